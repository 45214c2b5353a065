import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// The item storage quota (issue 43): one owner's item data and resources stop at it with a
/// 413 in the ArcGIS error shape, nothing stored; another owner is unaffected.
@Suite struct ItemQuotaTests {
    static let portal = "/arcgis/sharing/rest"

    @Test func anOwnersItemsStopAtTheQuotaAndAnotherOwnerIsUnaffected() async throws {
        try await HardeningTests.withSecuredApp(options: ServerOptions(requireAuth: true, itemQuotaBytes: 2_000)) { client, store, tokens in
            let eve = try #require(tokens["eve"])
            let ada = try #require(tokens["ada"])
            func add(_ user: String, _ token: String, bytes: Int) async throws -> JSONValue {
                try await post(
                    client, "\(Self.portal)/content/users/\(user)/addItem",
                    [("f", "json"), ("token", token), ("type", "Code Sample"), ("title", "t"), ("text", String(repeating: "x", count: bytes))])
            }
            let first = try #require(try await add("eve", eve, bytes: 1_500)["id"]?.stringValue)
            let before = try store.portal.items().count
            let refused = try await add("eve", eve, bytes: 1_000)
            #expect(refused["error"]?["code"] == 413 && refused["error"]?["message"] == "Item storage quota exceeded.", "\(refused)")
            #expect(try store.portal.items().count == before, "nothing added")
            let resource = try await post(
                client, "\(Self.portal)/content/users/eve/items/\(first)/addResources",
                [("f", "json"), ("token", eve), ("fileName", "r.txt"), ("text", String(repeating: "y", count: 600))])
            #expect(resource["error"]?["code"] == 413, "\(resource)")
            #expect(try store.portal.resources(of: first).isEmpty)
            // Data replaced counts once: 1,800 bytes in place of 1,500.
            let updated = try await post(
                client, "\(Self.portal)/content/users/eve/items/\(first)/update",
                [("f", "json"), ("token", eve), ("text", String(repeating: "z", count: 1_800))])
            #expect(updated["success"] == true, "\(updated)")
            #expect(try await add("ada", ada, bytes: 1_500)["id"] != nil, "another owner is unaffected")
        }
    }
}
