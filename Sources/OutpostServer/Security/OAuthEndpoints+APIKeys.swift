import OutpostIdentity
import OutpostService
import OutpostStorage
import OutpostWire

/// What the API key routes share between the OAuth controller and the portal's
/// `registeredAppInfo`, `portals/self/apiKeys` and `updateItem` (docs/identity.md, "API keys:
/// issuing").
extension OAuthEndpoints {
    /// Item types an app registers on: ArcGIS REST JS adds an `Application`, the ArcGIS API for
    /// Python an `API Key`.
    static let appItemTypes: Set = ["Application", "API Key"]

    /// Where a route is refused to an API key as such: keys never register or manage apps.
    static let deniedToKeys = ArcGISError(kind: .forbidden, message: "Token is valid but access is denied.")

    /// Refuses a caller whose token is an API key's.
    static func refuseKeys(_ user: ServerUser?) throws {
        if user?.apiKey != nil { throw deniedToKeys }
    }

    /// The registration as the API key routes answer it: never a token or a secret.
    static func appJSON(_ app: RegisteredApp, live slots: [APIKeySlot]) -> JSONObject {
        [
            "client_id": .string(app.clientId), "itemId": .string(app.itemId), "owner": .string(app.owner), "appType": .string(app.appType),
            "redirect_uris": .array(app.redirectURIs.map(JSONValue.string)), "registered": .int(app.registered), "modified": .int(app.modified),
            "privileges": .array(app.privileges.map(JSONValue.string)), "httpReferrers": .array(app.httpReferrers.map(JSONValue.string)),
            "apiToken1Active": .bool(slots.contains { $0.slot == 1 }), "apiToken2Active": .bool(slots.contains { $0.slot == 2 }),
            "isPersonalAPIToken": false,
        ]
    }

    /// `apiToken1ExpirationDate` / `apiToken2ExpirationDate` of `updateItem`, all checked
    /// before any is set (400 changes nothing); nothing for an item registered as no app.
    static func setAPITokenExpirations(_ p: RequestParameters, itemId: String, oauth: some OAuthGrantStore, now: Int64) throws {
        var dates: [(slot: Int, expires: Int64?)] = []
        for slot in 1...2 {
            let name = "apiToken\(slot)ExpirationDate"
            if let text = p.string(name) { dates.append((slot, try APIKeyToken.expirationDate(text, parameter: name, now: now))) }
        }
        guard !dates.isEmpty, let app = try oauth.app(itemId: itemId) else { return }
        for date in dates { try oauth.setAPITokenExpiration(clientId: app.clientId, slot: date.slot, expires: date.expires) }
    }

    /// A new token for the app's `slot`, replacing the live one, sealed when it is the app's
    /// `apiKey` (slot 0) so its owner may read it again.
    static func issueAPIKey(_ app: RegisteredApp, slot: Int, oauth: some OAuthGrantStore, now: Int64) throws -> (token: String, expires: Int64) {
        let configured = slot == 0 ? nil : app.apiTokenExpirations.dropFirst(slot - 1).first ?? nil
        let expires = try APIKeyToken.expiry(configured: configured, now: now)
        let token = APIKeyToken.make(slot: slot)
        let sealed = slot == 0 ? try Sealing.seal(token, key: try oauth.sealingKey()) : nil
        try oauth.issueAPIKeyToken(token, clientId: app.clientId, slot: slot, user: app.owner, expires: expires, sealed: sealed)
        return (token, expires)
    }

    /// A sealed secret or `apiKey` opened; nil when it does not open.
    static func opened(_ sealed: String?, oauth: some OAuthGrantStore) throws -> String? {
        guard let sealed else { return nil }
        return Sealing.open(sealed, as: String.self, key: try oauth.sealingKey(), maximumBytes: 4096)
    }

    /// Whether `item` is one `owner` may see, for a privilege naming it: its own, org-shared
    /// or public, or a service's.
    static func ownerMaySee(_ itemId: String, owner: ServerUser, portal: some PortalStore, serviceItems: () throws -> [PortalItem]) throws -> Bool {
        let caller = PortalCaller(user: owner, securityOn: true)
        guard let item = try portal.item(id: itemId) ?? serviceItems().first(where: { $0.id == itemId }) else { return false }
        return caller.maySee(item)
    }
}
