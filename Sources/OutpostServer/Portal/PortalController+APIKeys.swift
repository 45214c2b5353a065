import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// The portal's API key reads (docs/identity.md, "API keys: issuing"): an item's registration
/// with its secret and `apiKey` (`registeredAppInfo`, its owner's and administrators'), and the
/// caller's keys (`portals/self/apiKeys`). Keys themselves never read them.
extension PortalController {
    /// `content/users/<user>/items/<id>/registeredAppInfo`: to anyone else the item is missing.
    func registeredAppInfo(_ c: OutpostRequestContext) throws -> Response {
        try OAuthEndpoints.refuseKeys(c.user)
        let id = c.parameters.get("item") ?? ""
        guard let item = try store.portal.item(id: id), caller(c).maySee(item), caller(c).mayChange(item) else {
            throw PortalFailure.itemNotFound(id)
        }
        guard let app = try store.oauth.app(itemId: item.id) else {
            throw ArcGISError(
                kind: .invalidParameter, message: "The item is not registered as an app.", details: ["Register it with oauth2/registerApp."])
        }
        var answer = OAuthEndpoints.appJSON(app, live: try store.oauth.apiKeySlots(clientId: app.clientId))
        if let secret = try OAuthEndpoints.opened(try store.oauth.sealedSecret(clientId: app.clientId), oauth: store.oauth) {
            answer["client_secret"] = .string(secret)
        }
        if let key = try OAuthEndpoints.opened(try store.oauth.sealedAPIKey(clientId: app.clientId), oauth: store.oauth) {
            answer["apiKey"] = .string(key)
        }
        for slot in 1...2 {
            let date = app.apiTokenExpirations.dropFirst(slot - 1).first ?? nil
            answer["apiToken\(slot)ExpirationDate"] = .int(date ?? -1)
        }
        return RESTResponse.json(.object(answer), parameters: c.form.parameters)
    }

    /// `portals/self/apiKeys`: the caller's apps with a live key or of appType `apikey`
    /// (everyone's to an administrator), paged by `start` (from 1) and `num` (at most 100).
    func apiKeys(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        try OAuthEndpoints.refuseKeys(c.user)
        guard c.user != nil || !requireAuth else { throw ArcGISError(kind: .tokenRequired, message: "Token Required") }
        // From 1; 0 (the ArcGIS API for Python's first page) is 1 too.
        let start = max(try p.int("start") ?? 1, 1)
        let num = try p.int("num") ?? 10
        guard try p.int("start") ?? 1 >= 0 else { throw ArcGISError.invalidParameter("start", "a position from 1") }
        guard (0...100).contains(num) else { throw ArcGISError.invalidParameter("num", "0 to 100") }
        let owner = c.user.flatMap { $0.role == .admin ? nil : $0.name }
        var keys: [JSONValue] = []
        var total = 0
        for app in try store.oauth.apps(owner: owner) {
            let slots = try store.oauth.apiKeySlots(clientId: app.clientId)
            guard app.appType == "apikey" || !slots.isEmpty else { continue }
            total += 1
            guard total >= start, keys.count < num else { continue }
            keys.append(.object(Self.keyJSON(app, slots: slots)))
        }
        let next = start + num <= total ? start + num : -1
        return RESTResponse.json(
            [
                "apiKeys": .array(keys), "total": .int(Int64(total)), "start": .int(Int64(start)), "num": .int(Int64(num)),
                "nextStart": .int(Int64(next)),
            ],
            parameters: p)
    }

    /// One key of the listing: never a token or a secret.
    static func keyJSON(_ app: RegisteredApp, slots: [APIKeySlot]) -> JSONObject {
        let listed: Set = [
            "itemId", "client_id", "appType", "privileges", "httpReferrers", "apiToken1Active", "apiToken2Active", "registered", "modified",
        ]
        return JSONObject(OAuthEndpoints.appJSON(app, live: slots).filter { listed.contains($0.key) })
    }
}
