import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// What an API key reaches (docs/identity.md, "API keys: what a key reaches"), on both
/// backends, with token security on: keys as the ArcGIS API for Python sends them
/// (`X-Esri-Authorization: Bearer`).
@Suite struct APIKeyReachTests {
    static let demo = "/arcgis/rest/services/Demo/FeatureServer"
    static let portal = "/arcgis/sharing/rest"
    static let tree = #"[{"attributes":{"name":"Key"},"geometry":{"x":13.4,"y":52.5}}]"#

    /// A demo store with `eve` (editor), `ed` (editor), `vic` (viewer) and `ada` (admin), served.
    static func withServer(
        _ backend: DemoBackend, _ body: @Sendable (any OutpostBackend, any TestClientProtocol) async throws -> Void
    ) async throws {
        let store = try backend.make()
        for (name, role) in [("eve", UserRole.editor), ("ed", .editor), ("vic", .viewer), ("ada", .admin)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
        }
        let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true)))
        try await app.test(.router) { client in try await body(store, client) }
    }

    /// Sends a request with `key`; a POST's fields as a form. The answer's error code (0: none), message and JSON.
    static func send(
        _ client: any TestClientProtocol, _ path: String, key: String, post fields: [(String, String)]? = nil, referer: String? = nil
    ) async throws -> (code: Int, message: String, json: JSONValue) {
        var headers: HTTPFields = [HTTPField.Name("X-Esri-Authorization")!: "Bearer \(key)"]
        if let referer { headers[.referer] = referer }
        var body: ByteBuffer?
        if let fields {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = ByteBuffer(string: (fields + [("f", "json")]).map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&"))
        }
        let uri = fields == nil ? path + (path.contains("?") ? "&" : "?") + "f=json" : path
        return try await client.execute(uri: uri, method: fields == nil ? .get : .post, headers: headers, body: body) { response in
            let json = (try? JSONParser.parse(String(buffer: response.body))) ?? .null
            let code = json["error"]?["code"]?.int64Value.map(Int.init) ?? (response.status.code >= 400 ? Int(response.status.code) : 0)
            return (code, json["error"]?["message"]?.stringValue ?? "", json)
        }
    }

    static func isDenied(_ answer: (code: Int, message: String, json: JSONValue)) -> Bool {
        answer.code == 403 && answer.message == APIKeyReachMiddleware.deniedMessage
    }

    static func item(_ store: any OutpostBackend, owner: String, access: ItemAccess) throws -> String {
        let item = PortalItem(
            id: PortalNames.newId(), owner: owner, title: "reach \(UUID().uuidString)", type: "Web Mapping Application", access: access,
            created: store.clock.milliseconds())
        try store.portal.addItem(item, data: .text("{}"))
        return item.id
    }

    @Test(arguments: DemoBackend.all)
    func aKeyReadsTheServicesItNamesAndNoOthers(_ backend: DemoBackend) async throws {
        try await Self.withServer(backend) { store, client in
            let key = try TestAPIKey.issue(store, owner: "eve", privileges: [TestAPIKey.service("Demo")])
            let query = try await Self.send(client, "\(Self.demo)/0/query?where=1%3D1&returnCountOnly=true", key: key.token)
            #expect(query.code == 0 && (query.json["count"]?.int64Value ?? 0) > 0, "\(query)")
            // Another feature service, a tile service, the packaging service, the directory: refused as a key.
            for path in [
                "/arcgis/rest/services/Parcels/FeatureServer/0/query?where=1%3D1", "/arcgis/rest/services/DemoBasemap/MapServer",
                "/arcgis/rest/services/System/OfflinePackaging/GPServer", "/arcgis/rest/services",
            ] {
                #expect(Self.isDenied(try await Self.send(client, path, key: key.token)), "\(path)")
            }
            // A tile service named by its own item (MapServer:<name>).
            try key.update(store, privileges: [TestAPIKey.service("MapServer:DemoBasemap")])
            #expect(try await Self.send(client, "/arcgis/rest/services/DemoBasemap/MapServer", key: key.token).code == 0)
            #expect(Self.isDenied(try await Self.send(client, "\(Self.demo)/0", key: key.token)), "a privilege removed applies at once")
        }
    }

    @Test(arguments: DemoBackend.all)
    func aKeyEditsOnlyWithTheEditPrivilegeAndNeverBeyondItsOwner(_ backend: DemoBackend) async throws {
        try await Self.withServer(backend) { store, client in
            let service = TestAPIKey.service("Demo")
            let key = try TestAPIKey.issue(store, owner: "eve", privileges: [service])
            let add = "\(Self.demo)/0/addFeatures"
            let refused = try await Self.send(client, add, key: key.token, post: [("features", Self.tree)])
            #expect(refused.code == 403, "\(refused)")
            try key.update(store, privileges: [service, TestAPIKey.edit])
            let added = try await Self.send(client, add, key: key.token, post: [("features", Self.tree)])
            #expect(added.json["addResults"]?[0]?["success"] == true, "\(added)")
            try key.update(store, privileges: [service])
            #expect(try await Self.send(client, add, key: key.token, post: [("features", Self.tree)]).code == 403, "edit removed")
            // A viewer's key with the edit privilege stays a viewer's.
            let viewers = try TestAPIKey.issue(store, owner: "vic", privileges: [service, TestAPIKey.edit])
            #expect(try await Self.send(client, add, key: viewers.token, post: [("features", Self.tree)]).code == 403)
            // Nor does a read-only key sync edits up, on a replica made while it could edit.
            try key.update(store, privileges: [service, TestAPIKey.edit])
            let replica = try await Self.send(
                client, "\(Self.demo)/createReplica", key: key.token,
                post: [
                    ("replicaName", "keyed"), ("layers", "0"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
                    ("returnAttachments", "false"),
                ])
            let id = try #require(replica.json["replicaID"]?.stringValue, "\(replica)")
            let gen = replica.json["layerServerGens"]?[0]?["serverGen"]?.int64Value ?? 0
            try key.update(store, privileges: [service])
            let edits = #"[{"id":0,"features":{"adds":\#(Self.tree),"updates":[],"deleteIds":[]}}]"#
            let sync: [(String, String)] = [
                ("replicaID", id), ("transportType", "esriTransportTypeEmbedded"), ("syncLayers", #"[{"id":0,"serverGen":\#(gen)}]"#),
            ]
            // Refused by the sync itself, as a viewer's is (a demoted user's too): 403, nothing applied.
            let upload = try await Self.send(client, "\(Self.demo)/synchronizeReplica", key: key.token, post: sync + [("edits", edits)])
            #expect(upload.code == 403, "\(upload)")
            let download = try await Self.send(client, "\(Self.demo)/synchronizeReplica", key: key.token, post: sync)
            #expect(download.code == 0, "\(download)")
        }
    }

    @Test(arguments: DemoBackend.all)
    func aKeyChangesNoPortalContent(_ backend: DemoBackend) async throws {
        try await Self.withServer(backend) { store, client in
            let own = try Self.item(store, owner: "eve", access: .private)
            let key = try TestAPIKey.issue(store, owner: "eve", privileges: [TestAPIKey.edit, TestAPIKey.item(own)])
            let user = "\(Self.portal)/content/users/eve"
            for (path, fields) in [
                ("\(user)/addItem", [("type", "Code Sample"), ("title", "by key")]), ("\(user)/items/\(own)/update", [("title", "by key")]),
                ("\(user)/items/\(own)/share", [("everyone", "true")]), ("\(user)/items/\(own)/delete", []),
                ("\(user)/createFolder", [("title", "by key")]), ("\(Self.portal)/content/items/\(own)/share", [("everyone", "true")]),
                ("/arcgis/sharing/rest/oauth2/registerApp", [("itemId", own), ("appType", "apikey")]),
            ] {
                #expect(Self.isDenied(try await Self.send(client, path, key: key.token, post: fields)), "\(path)")
            }
            let item = try #require(try store.portal.item(id: own))
            #expect(item.title != "by key" && item.access == .private)
            #expect(try store.portal.items().allSatisfy { $0.title != "by key" })
            // It still reads the item, but not its owner's folders.
            #expect(try await Self.send(client, "\(Self.portal)/content/items/\(own)", key: key.token).code == 0)
            let content = try await Self.send(client, user, key: key.token)
            #expect(content.json["folders"]?.arrayValue?.isEmpty ?? true, "\(content)")
        }
    }

    @Test(arguments: DemoBackend.all)
    func aKeySeesPublicItemsAndNamedOnesItsOwnerMaySee(_ backend: DemoBackend) async throws {
        try await Self.withServer(backend) { store, client in
            let (othersOrg, othersPrivate, ownOrg) = (
                try Self.item(store, owner: "ed", access: .org), try Self.item(store, owner: "ed", access: .private),
                try Self.item(store, owner: "eve", access: .org)
            )
            let key = try TestAPIKey.issue(store, owner: "eve", privileges: [])
            let all = [ownOrg, DemoData.demoMapId, othersOrg, othersPrivate]
            func seen() async throws -> [Bool] {
                var seen: [Bool] = []
                for id in all { seen.append(try await Self.send(client, "\(Self.portal)/content/items/\(id)", key: key.token).code == 0) }
                return seen
            }
            // Naming none: its owner's own, and public ones.
            #expect(try await seen() == [true, true, false, false])
            // Naming some: those (when its owner may see them) and public ones.
            try key.update(store, privileges: [TestAPIKey.item(othersOrg), TestAPIKey.item(othersPrivate)])
            #expect(try await seen() == [false, true, true, false])
            let search = try await Self.send(client, "\(Self.portal)/search?q=owner%3Aed&num=100", key: key.token)
            let found = Set(search.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
            #expect(found == [othersOrg], "\(search)")
            // An admin's key is its owner's, not an admin's.
            let admins = try TestAPIKey.issue(store, owner: "ada", privileges: [TestAPIKey.item(othersPrivate)])
            #expect(try await Self.send(client, "\(Self.portal)/content/items/\(othersPrivate)", key: admins.token).code == 400)
            let me = try await Self.send(client, "\(Self.portal)/community/self", key: admins.token)
            #expect(me.json["role"]?.stringValue != "org_admin", "\(me)")
        }
    }

    @Test(arguments: DemoBackend.all)
    func aKeyWithReferrersIsUsedOnlyFromThosePages(_ backend: DemoBackend) async throws {
        try await Self.withServer(backend) { store, client in
            let key = try TestAPIKey.issue(
                store, owner: "eve", privileges: [TestAPIKey.service("Demo")],
                referrers: ["https://maps.example.com/app/", "https://*.field.example"])
            let layer = "\(Self.demo)/0"
            #expect(try await Self.send(client, layer, key: key.token, referer: "https://maps.example.com/app/index.html").code == 0)
            #expect(try await Self.send(client, layer, key: key.token, referer: "https://crew.field.example/map").code == 0)
            #expect(Self.isDenied(try await Self.send(client, layer, key: key.token, referer: "https://evil.example/app/")))
            #expect(Self.isDenied(try await Self.send(client, layer, key: key.token)), "no Referer")
            #expect(Self.isDenied(try await Self.send(client, "\(Self.portal)/content/items/\(DemoData.demoMapId)", key: key.token)))
            // The referrers removed: any page again, at the next request.
            try key.update(store, privileges: [TestAPIKey.service("Demo")], referrers: [])
            #expect(try await Self.send(client, layer, key: key.token).code == 0)
        }
    }
}
