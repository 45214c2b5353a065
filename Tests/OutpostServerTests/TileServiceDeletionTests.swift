import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostTestSupport
import OutpostTileFiles
import OutpostWire
import Testing

@testable import OutpostServer

/// Deleting a tile service's item deletes the service (docs/portal.md, "Deleting a service"):
/// an administrator's change; its file goes, its name is free again, the file item it was
/// published from stays.
@Suite struct TileServiceDeletionTests {
    typealias Publish = PublishRoutesTests

    @Test(arguments: DemoBackend.all)
    func anAdministratorDeletesAPublishedTileServiceAndItsFile(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let (eve, ada) = (tokens["eve"]!, tokens["ada"]!)
            let file = try PublishTilesTests.bytes(try MBTilesFixtures.make())
            let dataItem = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "aerial.mbtiles", bytes: file)
            let answer = try await Publish.publish(client, token: eve, owner: "eve", item: dataItem, filetype: "mbtiles", name: "Aerial")
            #expect(try await Publish.finished(client, token: eve, owner: "eve", answer)["status"]?.stringValue == "completed")
            let serviceItem = try #require(answer["services"]?[0]?["serviceItemId"]?.stringValue)
            let folder = try #require((store.tiles as? any MBTilesTileSets)?.files.directory)
            let stored = { try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("Aerial") } }
            #expect(try !stored().isEmpty)
            let delete = { (token: String) in
                try await post(client, "\(Publish.portal)/content/users/outpost/items/\(serviceItem)/delete", [("f", "json"), ("token", token)])
            }
            // The publisher is an editor: the organisation's service is not theirs to delete.
            #expect(try await delete(eve)["error"]?["code"]?.int64Value == 403)
            #expect(try store.tiles.tileSet(named: "Aerial") != nil)
            // Nor is the file freed while the service stands: it counts the service against eve's quota.
            let dataItemPath = "\(Publish.portal)/content/users/eve/items/\(dataItem)"
            let refused = try await post(client, "\(dataItemPath)/delete", [("f", "json"), ("token", eve)])
            #expect(refused["error"]?["code"]?.int64Value == 409, "\(refused)")
            let (headers, body) = multipart(fields: [("f", "json"), ("token", eve)], file: ("file", "tiny.mbtiles", "application/octet-stream", [1]))
            let replaced = try await client.execute(uri: "\(dataItemPath)/update", method: .post, headers: headers, body: body) { json($0) }
            #expect(replaced["error"]?["code"]?.int64Value == 409, "\(replaced)")
            let retitled = try await post(client, "\(dataItemPath)/update", [("f", "json"), ("token", eve), ("title", "Aerial source")])
            #expect(retitled["success"]?.boolValue == true, "\(retitled)")

            let deleted = try await delete(ada)
            #expect(deleted["success"]?.boolValue == true && deleted["itemId"]?.stringValue == serviceItem, "\(deleted)")
            #expect(try store.tiles.tileSet(named: "Aerial") == nil)
            let left = try stored()
            #expect(left.isEmpty, "\(left)")
            try await client.execute(uri: "/arcgis/rest/services/Aerial/MapServer/tile/1/0/1?token=\(eve)", method: .get) { response in
                #expect(String(buffer: response.body).contains("Service not found"), "\(response.status)")
            }
            let item = try await post(client, "\(Publish.portal)/content/items/\(serviceItem)", [("f", "json"), ("token", ada)])
            #expect(item["error"] != nil, "\(item)")
            // The file item stays, no longer related to anything; the name is free again.
            let related = try await post(
                client, "\(Publish.portal)/content/items/\(dataItem)/relatedItems",
                [("f", "json"), ("token", eve), ("relationshipType", "Service2Data"), ("direction", "reverse")])
            #expect(related["relatedItems"]?.arrayValue?.isEmpty == true, "\(related)")
            #expect(try await delete(ada)["error"] != nil)
            let again = try await Publish.publish(client, token: eve, owner: "eve", item: dataItem, filetype: "mbtiles", name: "Aerial")
            #expect(try await Publish.finished(client, token: eve, owner: "eve", again)["status"]?.stringValue == "completed")
            // Once the service is gone its file is the editor's again to delete (the same name, the same item id).
            #expect(again["services"]?[0]?["serviceItemId"]?.stringValue == serviceItem)
            #expect(try await delete(ada)["success"]?.boolValue == true)
            let freed = try await post(client, "\(dataItemPath)/delete", [("f", "json"), ("token", eve)])
            #expect(freed["success"]?.boolValue == true, "\(freed)")
        }
    }

    /// The tiles this process answered from memory (the fast path's too) go with the service.
    @Test func aDeletedServicesCachedTilesAreNotAnsweredAgain() async throws {
        let store = try makeDemoStore(label: "delete-cached")
        let options = ServerOptions().withLastingTileSets()
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in
            let uri = "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5"
            for _ in 0..<2 { try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok) } }
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 1)
            let serviceItem = ServiceItems.id(forService: "MapServer:DemoBasemap")
            let body = ByteBuffer(string: "f=json")
            try await client.execute(
                uri: "/arcgis/sharing/rest/content/users/outpost/items/\(serviceItem)/delete", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"], body: body
            ) { response in
                #expect(String(buffer: response.body).contains("\"success\":true"), "\(String(buffer: response.body))")
            }
            try await client.execute(uri: uri, method: .get) { #expect(String(buffer: $0.body).contains("Service not found")) }
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 1)
        }
    }
}
