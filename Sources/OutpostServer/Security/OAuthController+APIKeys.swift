import Hummingbird
import OutpostIdentity
import OutpostService
import OutpostStorage
import OutpostWire

/// The API key routes below `oauth2/` (docs/identity.md, "API keys: issuing"): an app's
/// privileges and referrers updated, its `apiKey` reset, its registration removed, and a key
/// validated. Each is its owner's or an administrator's; an app the caller may not manage is
/// answered as an unknown client id.
extension OAuthController {
    /// `oauth2/apps/<client_id>/update`: `privileges`, `httpReferrers`, `redirect_uris`, any subset.
    func updateApp(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let app = try managedApp(c)
        let privileges = try APIKeyPrivileges.parse(p.string("privileges"))
        let referrers = try AppRegistration.httpReferrers(p.string("httpReferrers"))
        let uris = try p.string("redirect_uris").map { text throws(ArcGISError) in try AppRegistration.redirectURIs(text) }
        if let privileges { try checkPrivileges(privileges, owner: app.owner) }
        try store.oauth.updateApp(clientId: app.clientId, privileges: privileges, httpReferrers: referrers, redirectURIs: uris)
        return try registration(app.clientId, c)
    }

    /// `oauth2/apps/<client_id>/resetApiKey`: a new `apiKey` (slot 0) for an `apikey` app; the old one ends.
    func resetApiKey(_ c: OutpostRequestContext) throws -> Response {
        let app = try managedApp(c)
        guard app.appType == "apikey" else {
            throw ArcGISError.invalidParameter("clientId", "an app of appType apikey (others' tokens come from oauth2/token with apiToken)")
        }
        let key = try OAuthEndpoints.issueAPIKey(app, slot: 0, oauth: store.oauth, now: store.clock.milliseconds())
        return try registration(app.clientId, c, apiKey: key.token)
    }

    /// `oauth2/apps/<client_id>/unregister`: the registration and its keys end; the item stays.
    func unregister(_ c: OutpostRequestContext) throws -> Response {
        let app = try managedApp(c)
        try store.oauth.removeApp(clientId: app.clientId)
        try markRegistered(itemId: app.itemId, false)
        return RESTResponse.json(["success": true, "itemId": .string(app.itemId)], parameters: c.form.parameters)
    }

    /// `oauth2/validateApiKey`: whether `key` is a live API key token holding every privilege
    /// of `privilege` (a comma list). Only the key's owner and administrators may ask (403),
    /// so nobody probes others' keys; an unknown key is `{"valid": false}`.
    func validateApiKey(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        try OAuthEndpoints.refuseKeys(c.user)
        let wanted = try APIKeyPrivileges.parseList(p.string("privilege"))
        guard let key = p.string("key"), key.utf8.count <= 256 else { throw ArcGISError.missingParameter("key") }
        guard APIKeyToken.slot(of: key) != nil, case .valid(let holder) = try store.users.check(token: key), let scope = holder.apiKey else {
            guard requireAuth ? c.user != nil : true else { throw ArcGISError.forbidden }
            return RESTResponse.json(["valid": false], parameters: p)
        }
        guard manages(owner: holder.name, c.user) else { throw ArcGISError.forbidden }
        let valid = wanted.allSatisfy(scope.privileges.contains)
        return RESTResponse.json(["valid": .bool(valid)], parameters: p)
    }

    /// The app the path's client id names, if the caller manages it (keys never do).
    func managedApp(_ c: OutpostRequestContext) throws -> RegisteredApp {
        try OAuthEndpoints.refuseKeys(c.user)
        let id = c.parameters.get("clientId") ?? ""
        guard let app = try store.oauth.app(clientId: id), manages(owner: try store.portal.item(id: app.itemId)?.owner ?? app.owner, c.user) else {
            throw OAuthRefusal.invalidClient()
        }
        return app
    }

    /// The item's `Registered App` type keyword, by which clients know to ask for its
    /// `registeredAppInfo` (the ArcGIS API for Python's `Item.app_info`), as ArcGIS keeps it.
    func markRegistered(itemId: String, _ registered: Bool) throws {
        guard var item = try store.portal.item(id: itemId), item.typeKeywords.contains(Self.registeredKeyword) != registered else { return }
        if registered { item.typeKeywords.append(Self.registeredKeyword) } else { item.typeKeywords.removeAll { $0 == Self.registeredKeyword } }
        try store.portal.updateItem(item, data: nil)
    }

    static var registeredKeyword: String { "Registered App" }

    /// The registration as stored now, with the `apiKey` just issued if any.
    func registration(_ clientId: String, _ c: OutpostRequestContext, apiKey: String? = nil) throws -> Response {
        guard let app = try store.oauth.app(clientId: clientId) else { throw OAuthRefusal.invalidClient() }
        var answer = OAuthEndpoints.appJSON(app, live: try store.oauth.apiKeySlots(clientId: clientId))
        if let apiKey { answer["apiKey"] = .string(apiKey) }
        return RESTResponse.json(.object(answer), parameters: c.form.parameters)
    }

    /// Every item a privilege names must be one the app's owner may see (else 400 naming it).
    func checkPrivileges(_ privileges: [String], owner: String) throws {
        let ownerUser = try store.users.user(named: owner) ?? ServerUser(name: owner, role: .viewer)
        for id in APIKeyPrivileges.itemIds(privileges) {
            let seen = try OAuthEndpoints.ownerMaySee(id, owner: ownerUser, portal: store.portal) {
                ServiceItems.items(for: try store.catalog(), tileSets: try store.tiles.tileSets(), server: "", securityOn: requireAuth)
            }
            guard seen else {
                throw ArcGISError.invalidParameter(
                    "privileges", "'\(APIKeyPrivileges.itemPrefix)\(id)' names no item the app's owner may see")
            }
        }
    }
}

/// The `apiToken` slots at the token endpoints: issued and ended with the app's secret.
extension OAuthController {
    /// `oauth2/token` with `grant_type=client_credentials` and `apiToken`: after the secret
    /// check, a new token of that slot (the slot's previous one ends), living until the slot's
    /// expiration date or a year.
    func issueAPIToken(clientId: String, secret: String, slot: Int) throws -> JSONObject {
        guard let app = try store.oauth.app(clientId: clientId), try store.oauth.verifyAppSecret(clientId: clientId, secret: secret) else {
            throw OAuthRefusal.invalidClient("Invalid client_id or client_secret")
        }
        guard try store.users.user(named: app.owner) != nil else { throw OAuthRefusal.invalidClient("The app's owner is no longer a user") }
        let now = store.clock.milliseconds()
        let issued = try OAuthEndpoints.issueAPIKey(app, slot: slot, oauth: store.oauth, now: now)
        return ["access_token": .string(issued.token), "expires_in": .int((issued.expires - now) / 1000), "token_type": "Bearer", "ssl": ssl]
    }

    /// `oauth2/revokeToken` with `apiToken`: the slot's token ends, `client_secret` required.
    func revokeAPIToken(clientId: String, slot text: String, _ p: RequestParameters) throws -> Response {
        guard text == "1" || text == "2" else { throw OAuthRefusal.invalidRequest("apiToken is 1 or 2") }
        guard let secret = p.string("client_secret"), secret.utf8.count <= 256 else { throw OAuthRefusal.invalidClient("client_secret is required") }
        guard try store.oauth.verifyAppSecret(clientId: clientId, secret: secret) else { throw OAuthRefusal.invalidClient("Invalid client_secret") }
        try store.oauth.revokeAPIKeyTokens(clientId: clientId, slot: text == "1" ? 1 : 2)
        return RESTResponse.json(["success": true], parameters: p)
    }
}
