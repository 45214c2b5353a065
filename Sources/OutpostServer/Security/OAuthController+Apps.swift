import Hummingbird
import OutpostIdentity
import OutpostService
import OutpostStorage
import OutpostWire

/// `oauth2/registerApp` and `oauth2/apps/<client_id>`: an `Application` (or `API Key`) item
/// registered as an OAuth 2.0 client by its owner (or an administrator). The secret is
/// answered at registration; its hash is the check, and a sealed copy lets its owner read it
/// again (`registeredAppInfo`).
extension OAuthController {
    func registerApp(_ c: OutpostRequestContext) throws -> Response {
        try OAuthEndpoints.refuseKeys(c.user)
        let asked = try AppRegistration.parse(c.form.parameters)
        let caller = PortalCaller(user: c.user, securityOn: requireAuth)
        // As the portal's changes: an item the caller may not see is missing, one they may
        // only see is forbidden.
        guard let item = try store.portal.item(id: asked.itemId), caller.maySee(item) else { throw PortalFailure.itemNotFound(asked.itemId) }
        guard caller.mayChange(item) else { throw ArcGISError.forbidden }
        guard OAuthEndpoints.appItemTypes.contains(item.type) else {
            throw ArcGISError.invalidParameter("itemId", "an item of type Application or API Key, not \(item.type.prefix(60))")
        }
        if let registered = try store.oauth.app(itemId: item.id) {
            throw PortalFailure.invalid("The item is registered already, as client_id \(registered.clientId).")
        }
        try checkPrivileges(asked.privileges, owner: item.owner)
        let now = store.clock.milliseconds()
        let app = RegisteredApp(
            clientId: Self.newClientId(), itemId: item.id, owner: item.owner, appType: asked.appType, redirectURIs: asked.redirectURIs,
            registered: now, modified: now, privileges: asked.privileges, httpReferrers: asked.httpReferrers)
        let secret = Credentials.newToken()
        // Sealed too, so its owner reads it again in registeredAppInfo (ArcGIS REST JS does); the hash stays the check.
        try store.oauth.registerApp(app, secret: secret, sealedSecret: try Sealing.seal(secret, key: try store.oauth.sealingKey()))
        try markRegistered(itemId: item.id, true)
        let apiKey = asked.appType == "apikey" ? try OAuthEndpoints.issueAPIKey(app, slot: 0, oauth: store.oauth, now: now).token : nil
        var answer = OAuthEndpoints.appJSON(app, live: try store.oauth.apiKeySlots(clientId: app.clientId))
        answer["client_secret"] = .string(secret)
        if let apiKey { answer["apiKey"] = .string(apiKey) }
        return RESTResponse.json(.object(answer), parameters: c.form.parameters)
    }

    /// The registration, to the app's owner and administrators; to others as if there were none.
    func app(_ c: OutpostRequestContext) throws -> Response {
        let id = c.parameters.get("clientId") ?? ""
        guard let app = try store.oauth.app(clientId: id), manages(owner: try store.portal.item(id: app.itemId)?.owner ?? app.owner, c.user) else {
            throw OAuthRefusal.invalidClient()
        }
        return try registration(app.clientId, c)
    }

    /// The owner, an administrator, or anyone while token security is off.
    func manages(owner: String, _ user: ServerUser?) -> Bool {
        guard let user else { return !requireAuth }
        return user.role == .admin || owner.caseInsensitiveCompare(user.name) == .orderedSame
    }

    /// 16 random letters and digits, as ArcGIS's client ids.
    static func newClientId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var id = ""
        while id.count < 16 {
            // 248 is 4 × 62: bytes above it would favour the first letters.
            for byte in Credentials.randomBytes(32) where byte < 248 && id.count < 16 { id.append(alphabet[Int(byte) % 62]) }
        }
        return id
    }
}
