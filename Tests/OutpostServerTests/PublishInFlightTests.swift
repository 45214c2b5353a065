import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// While a publish runs, its file item keeps its file and its name is taken (docs/portal.md,
/// "Publishing"): an attack deleted the item mid-publish and got a service no quota counted,
/// and two publishes of different kinds each passed the other's name check.
@Suite struct PublishInFlightTests {
    typealias Publish = PublishRoutesTests

    @Test func aHeldPublishKeepsItsFileAndItsName() async throws {
        try await TestTargetFaultTests.withTarget(DemoBackend.all[0]) { client, _ in
            let file = try PublishTilesTests.bytes(try MBTilesFixtures.make())
            let item = try await Publish.addFile(client, token: "", owner: "eve", type: "MBTiles", name: "held.mbtiles", bytes: file)
            let other = try await Publish.addFile(client, token: "", owner: "eve", type: "MBTiles", name: "other.mbtiles", bytes: file)
            _ = try await TestTargetFaultTests.addRule(client, #"{"operation":"portal","job":{"hold":true},"count":1}"#)
            let answer = try await Publish.publish(client, token: "", owner: "eve", item: item, filetype: "mbtiles", name: "Held_Set")
            let jobId = try #require(answer["services"]?[0]?["jobId"]?.stringValue, "\(answer)")
            let itemPath = "\(Publish.portal)/content/users/eve/items/\(item)"

            let deleted = try await post(client, "\(itemPath)/delete", [("f", "json")])
            #expect(deleted["error"]?["code"]?.int64Value == 409 && "\(deleted)".contains("being published"), "\(deleted)")
            let (headers, body) = multipart(fields: [("f", "json")], file: ("file", "tiny.mbtiles", "application/octet-stream", [1]))
            let replaced = try await client.execute(uri: "\(itemPath)/update", method: .post, headers: headers, body: body) { json($0) }
            #expect(replaced["error"]?["code"]?.int64Value == 409, "\(replaced)")
            // The name is the running publish's, in any case.
            let taken = try await Publish.publish(client, token: "", owner: "eve", item: other, filetype: "mbtiles", name: "HELD_set")
            #expect(taken["error"]?["code"]?.int64Value == 409, "\(taken)")
            let available = try await post(client, "\(Publish.portal)/portals/self/isServiceNameAvailable", [("f", "json"), ("name", "HELD_set")])
            #expect(available["available"]?.boolValue == false, "\(available)")

            #expect(try await post(client, "/_outpost/jobs/\(jobId)/release", [("f", "json")])["success"] == true)
            #expect(try await Publish.finished(client, token: "", owner: "eve", answer)["status"]?.stringValue == "completed")
            // Ended: the item now keeps its file because the service stands.
            let afterwards = try await post(client, "\(itemPath)/delete", [("f", "json")])
            #expect(afterwards["error"]?["code"]?.int64Value == 409 && "\(afterwards)".contains("published from it"), "\(afterwards)")
        }
    }

    /// A failed publish releases its name and its file at once.
    @Test func aFailedPublishReleasesItsNameAndFile() async throws {
        try await TestTargetFaultTests.withTarget(DemoBackend.all[0]) { client, _ in
            let broken = try PublishTilesTests.bytes(
                try MBTilesFixtures.make(tiles: [(0, 0, 0, MBTilesFixtures.png()), (2, 9, 0, MBTilesFixtures.png())]))
            let item = try await Publish.addFile(client, token: "", owner: "eve", type: "MBTiles", name: "broken.mbtiles", bytes: broken)
            let answer = try await Publish.publish(client, token: "", owner: "eve", item: item, filetype: "mbtiles", name: "Broken")
            #expect(try await Publish.finished(client, token: "", owner: "eve", answer)["status"]?.stringValue == "failed")
            let available = try await post(client, "\(Publish.portal)/portals/self/isServiceNameAvailable", [("f", "json"), ("name", "Broken")])
            #expect(available["available"]?.boolValue == true, "\(available)")
            let deleted = try await post(client, "\(Publish.portal)/content/users/eve/items/\(item)/delete", [("f", "json")])
            #expect(deleted["success"]?.boolValue == true, "\(deleted)")
        }
    }
}
