import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostSync
import OutpostWire
import Testing

@testable import OutpostServer

/// Devices (`devices.html`, docs/home.md): the replicas of a service as `replicas?returnDetails=true`
/// answers the user (their own; an admin all), whether the service changed since each synced,
/// idle ones marked, one unregistered through `unRegisterReplica`.
@Suite struct HomeDevicesTests {
    static let service = "/arcgis/rest/services/Demo/FeatureServer"

    static func replica(_ client: any TestClientProtocol, _ token: String, name: String) async throws -> String {
        let answer = try await post(
            client, "\(service)/createReplica",
            [
                ("f", "json"), ("token", token), ("replicaName", name), ("layers", "2"), ("returnAttachments", "false"), ("syncModel", "perLayer"),
                ("dataFormat", "json"), ("transportType", "esriTransportTypeEmbedded"), ("geometry", "-180,-90,180,90"),
                ("geometryType", "esriGeometryEnvelope"), ("inSR", "4326"), ("async", "false"),
            ])
        return try #require((answer["replicaID"] ?? answer["replicaId"])?.stringValue, "\(answer)")
    }

    @Test func eachUserSeesTheirDevicesAnAdminAllWithChangesAndIdleOnesMarked() async throws {
        let clock = SettableClock()
        try await OAuthFlows.with(clock: clock) { client, store, tokens in
            _ = try await Self.replica(client, tokens["eve"]!, name: "eves-tablet")
            let eds = try await Self.replica(client, tokens["ed"]!, name: "eds-phone")
            var eve = HomeBrowser(client)
            _ = try await eve.signIn("eve")
            let own = try await eve.open("devices.html?service=Demo")
            #expect(own.visibleText.contains("eves-tablet") && !own.visibleText.contains("eds-phone"), "\(own)")
            #expect(own.visibleText.contains("Active") && own.visibleText.contains(" No "), "\(own)")
            let chooser = try await eve.open("devices.html")
            #expect(chooser.text.contains("devices.html?service=Demo\""), "\(chooser)")
            let adds = #"[{"attributes":{"species":"Tilia"},"geometry":{"x":13.4,"y":52.5}}]"#
            let added = try await post(client, "\(Self.service)/2/applyEdits", [("f", "json"), ("token", tokens["eve"]!), ("adds", adds)])
            #expect(added["addResults"]?[0]?["success"]?.boolValue == true, "\(added)")
            clock.advance(milliseconds: 31 * 86_400_000)
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            let all = try await admin.open("devices.html?service=Demo")
            #expect(all.visibleText.contains("eves-tablet") && all.visibleText.contains("eds-phone"), "\(all)")
            #expect(all.visibleText.contains("Yes: changes to download") && all.text.contains("class=\"idle\""), "\(all)")
            let gone = try await admin.submit("unregisterReplica", [("service", "Demo"), ("replica", eds)])
            #expect(gone.visibleText.contains("Replica unregistered") && !gone.visibleText.contains("eds-phone"), "\(gone)")
            #expect(try store.replicas.replicas(service: "Demo").map(\.name) == ["eves-tablet"])
        }
    }

    @Test(arguments: DemoBackend.all)
    func anotherUsersReplicaCannotBeUnregisteredFromTheHome(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            let eves = try await Self.replica(client, tokens["eve"]!, name: "eves-tablet")
            for user in ["vic", "ed"] {
                var other = HomeBrowser(client)
                _ = try await other.signIn(user)
                _ = try await other.open("devices.html?service=Demo")
                let refused = try await other.submit("unregisterReplica", [("service", "Demo"), ("replica", eves)])
                #expect(refused.text.contains("class=\"flash failed\""), "\(user): \(refused)")
                let everyone = try await other.submit("unregisterReplica", [("service", "Demo"), ("replica", "*")])
                #expect(everyone.visibleText.contains("Name one replica"), "\(user): \(everyone)")
                let traversal = try await other.open("devices.html?service=..%2Fadmin")
                #expect(traversal.visibleText.contains("is not a service name"), "\(traversal)")
            }
            let info = try await post(client, "\(Self.service)/replicas/\(eves)", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(info["replicaName"]?.stringValue == "eves-tablet", "still registered: \(info)")
        }
    }
}
