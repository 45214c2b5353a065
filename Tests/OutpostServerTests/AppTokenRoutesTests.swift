import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The red team's two holes, closed (docs/identity.md, "API keys"): an app token
/// (`client_credentials` without `apiToken`) reaches no more than the app's keys, and a result
/// file is served only below the service it was made for.
@Suite struct AppTokenRoutesTests {
    static let secret = "the app's secret, long enough"

    /// `eve`'s app (its `Application` item and registration, as the routes make them).
    static func app(_ store: any OutpostBackend, privileges: [String], referrers: [String] = []) throws -> String {
        let now = store.clock.milliseconds()
        let item = PortalItem(id: PortalNames.newId(), owner: "eve", title: "app \(UUID().uuidString)", type: "Application", created: now)
        try store.portal.addItem(item, data: .text("{}"))
        let clientId = "app\(UUID().uuidString.prefix(12).lowercased())"
        try store.oauth.registerApp(
            RegisteredApp(
                clientId: clientId, itemId: item.id, owner: "eve", appType: "multiple", redirectURIs: [], registered: now, modified: now,
                privileges: privileges, httpReferrers: referrers), secret: secret, sealedSecret: nil)
        return clientId
    }

    /// `oauth2/token` with the app's secret and no `apiToken`: the app token.
    static func appToken(_ client: any TestClientProtocol, _ clientId: String) async throws -> String {
        let answer = try await post(
            client, "\(APIKeyReachTests.portal)/oauth2/token",
            [("f", "json"), ("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret)])
        return try #require(answer["access_token"]?.stringValue, "\(answer)")
    }

    @Test(arguments: DemoBackend.all)
    func anAppTokenReadsWhatTheAppNamesOnlyAndNeverEdits(_ backend: DemoBackend) async throws {
        try await APIKeyReachTests.withServer(backend) { store, client in
            let named = try APIKeyReachTests.item(store, owner: "eve", access: .private)
            let other = try APIKeyReachTests.item(store, owner: "eve", access: .private)
            let clientId = try Self.app(store, privileges: [TestAPIKey.item(named), TestAPIKey.service("Demo"), TestAPIKey.edit])
            // Servers each fetch their own: many live at once.
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try await Self.appToken(client, clientId)) }
            #expect(Set(tokens).count == 3)
            for token in tokens {
                #expect(try await APIKeyReachTests.send(client, "\(APIKeyReachTests.portal)/content/items/\(named)", key: token).code == 0)
            }
            let otherAnswer = try await APIKeyReachTests.send(client, "\(APIKeyReachTests.portal)/content/items/\(other)", key: tokens[0])
            #expect(otherAnswer.code != 0 && otherAnswer.json["id"] == nil, "\(otherAnswer)")
            let query = "\(APIKeyReachTests.demo)/0/query?where=1%3D1&returnCountOnly=true"
            #expect(try await APIKeyReachTests.send(client, query, key: tokens[1]).json["count"] != nil)
            // The app's edit privilege lets its keys edit, never its app tokens.
            let add = try await APIKeyReachTests.send(
                client, "\(APIKeyReachTests.demo)/0/addFeatures", key: tokens[2], post: [("features", APIKeyReachTests.tree)])
            #expect(add.code == 403, "\(add)")
            // The app's keys are no business of its tokens: none is listed, and the app's removal ends them.
            #expect(try store.oauth.apiKeySlots(clientId: clientId) == [])
            try store.oauth.removeApp(clientId: clientId)
            #expect(try await APIKeyReachTests.send(client, "\(APIKeyReachTests.portal)/content/items/\(named)", key: tokens[0]).code == 498)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aReferrerBoundAppsTokenNeedsItsPage(_ backend: DemoBackend) async throws {
        try await APIKeyReachTests.withServer(backend) { store, client in
            let clientId = try Self.app(store, privileges: [TestAPIKey.service("Demo")], referrers: ["https://maps.example.com/*"])
            let token = try await Self.appToken(client, clientId)
            let layer = "\(APIKeyReachTests.demo)/0"
            #expect(APIKeyReachTests.isDenied(try await APIKeyReachTests.send(client, layer, key: token)))
            #expect(APIKeyReachTests.isDenied(try await APIKeyReachTests.send(client, layer, key: token, referer: "https://evil.example/")))
            #expect(try await APIKeyReachTests.send(client, layer, key: token, referer: "https://maps.example.com/app/").code == 0)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aResultFileIsServedOnlyBelowItsService(_ backend: DemoBackend) async throws {
        try await APIKeyReachTests.withServer(backend) { store, client in
            _ = try store.schema.createService(pointLayerService(name: "Other"))
            let eve = try store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 30).token
            let key = try TestAPIKey.issue(store, owner: "eve", privileges: [TestAPIKey.service("Demo"), TestAPIKey.service("Other")])
            let made = try await APIKeyReachTests.send(
                client, "\(APIKeyReachTests.demo)/createReplica", key: eve,
                post: [
                    ("replicaName", "filed"), ("layers", "0"), ("transportType", "esriTransportTypeUrl"), ("dataFormat", "json"),
                    ("syncModel", "perLayer"), ("returnAttachments", "false"),
                ])
            let url = try #require((made.json["URL"] ?? made.json["responseUrl"])?.stringValue, "\(made)")
            let file = try #require(url.components(separatedBy: "/replicafiles/").last)
            for caller in [eve, key.token] {
                let own = try await APIKeyReachTests.send(client, "/arcgis/rest/services/Demo/replicafiles/\(file)", key: caller)
                #expect(own.code == 0, "\(own)")
                let elsewhere = try await APIKeyReachTests.send(client, "/arcgis/rest/services/Other/replicafiles/\(file)", key: caller)
                #expect(elsewhere.code == 404 && elsewhere.json["layers"] == nil, "\(elsewhere)")
            }
        }
    }
}
