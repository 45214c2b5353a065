import Foundation
import OutpostIdentity
import OutpostService
import OutpostStorage
import OutpostWire

@testable import OutpostServer

/// An API key of `owner`'s, made as the routes make one (an `API Key` item, its app registered,
/// slot 0 issued) straight through the store, for the authorization tests.
struct TestAPIKey: Sendable {
    var clientId: String
    var itemId: String
    var token: String

    static func issue(
        _ store: any OutpostBackend, owner: String, privileges: [String], referrers: [String] = [], label: String = "key"
    ) throws -> TestAPIKey {
        let now = store.clock.milliseconds()
        let item = PortalItem(id: PortalNames.newId(), owner: owner, title: "\(label) \(UUID().uuidString)", type: "API Key", created: now)
        try store.portal.addItem(item, data: .text("{}"))
        let app = RegisteredApp(
            clientId: "\(label)\(UUID().uuidString.prefix(8).lowercased())", itemId: item.id, owner: owner, appType: "apikey", redirectURIs: [],
            registered: now, modified: now, privileges: privileges, httpReferrers: referrers)
        try store.oauth.registerApp(app, secret: Credentials.newToken(), sealedSecret: nil)
        let token = APIKeyToken.make(slot: 0)
        try store.oauth.issueAPIKeyToken(
            token, clientId: app.clientId, slot: 0, user: owner, expires: now + 3_600_000, sealed: nil)
        return TestAPIKey(clientId: app.clientId, itemId: item.id, token: token)
    }

    /// Sets the key's privileges (and referrers, when given), as `oauth2/apps/<id>/update` does.
    func update(_ store: any OutpostBackend, privileges: [String], referrers: [String]? = nil) throws {
        try store.oauth.updateApp(clientId: clientId, privileges: privileges, httpReferrers: referrers, redirectURIs: nil)
    }

    /// The privilege naming an item.
    static func item(_ id: String) -> String { APIKeyScope.itemPrivilegePrefix + id }

    /// The privilege naming a service's item (`ServiceItems`): `Name`, `MapServer:Name`, `VectorTileServer:Name`.
    static func service(_ name: String) -> String { item(ServiceItems.id(forService: name)) }

    static let edit = "features:user:edit"
}
