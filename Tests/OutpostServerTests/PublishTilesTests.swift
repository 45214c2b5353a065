import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// An MBTiles file published through the portal's `publish` becomes a tile service: rebuilt
/// tile by tile (docs/portal.md, "Publishing"), served as a `MapServer` or `VectorTileServer`,
/// its item related to the file's; a file that cannot be served is refused with its reason.
@Suite struct PublishTilesTests {
    typealias Publish = PublishRoutesTests

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test(arguments: DemoBackend.all)
    func aRasterMBTilesFileBecomesAMapServer(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let eve = tokens["eve"]!
            let file = try Self.bytes(try MBTilesFixtures.make())
            let item = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "aerial.mbtiles", bytes: file)
            let answer = try await Publish.publish(client, token: eve, owner: "eve", item: item, filetype: "mbtiles", name: "Aerial")
            let service = try #require(answer["services"]?[0], "\(answer)")
            #expect(service["type"]?.stringValue == "Map Service")
            #expect(service["serviceurl"]?.stringValue?.hasSuffix("/arcgis/rest/services/Aerial/MapServer") == true, "\(service)")
            let status = try await Publish.finished(client, token: eve, owner: "eve", answer)
            #expect(status["status"]?.stringValue == "completed" && status["progress"]?.int64Value == 100, "\(status)")
            // TMS row 1 of level 1 is the top row: tile/1/0/1 (level, row, column).
            try await client.execute(uri: "/arcgis/rest/services/Aerial/MapServer/tile/1/0/1?token=\(eve)", method: .get) { response in
                #expect(response.status == .ok && [UInt8](buffer: response.body) == MBTilesFixtures.png(30))
            }
            let serviceItem = service["serviceItemId"]?.stringValue ?? ""
            let described = try await post(client, "\(Publish.portal)/content/items/\(serviceItem)", [("f", "json"), ("token", eve)])
            #expect(described["type"]?.stringValue == "Map Service", "\(described)")
            let related = try await post(
                client, "\(Publish.portal)/content/items/\(serviceItem)/relatedItems",
                [("f", "json"), ("token", eve), ("relationshipType", "Service2Data")])
            #expect(related["relatedItems"]?[0]?["id"]?.stringValue == item, "\(related)")
            #expect(try store.tiles.tileSet(named: "Aerial")?.maxZoom == 1)
        }
    }

    @Test func aVectorMBTilesFileBecomesAVectorTileServer() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let eve = tokens["eve"]!
            let file = try Self.bytes(try MBTilesFixtures.make(format: "pbf", tiles: [(0, 0, 0, MBTilesFixtures.vectorTile)]))
            let item = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "streets.mbtiles", bytes: file)
            let answer = try await Publish.publish(client, token: eve, owner: "eve", item: item, filetype: "mbtiles", name: "Streets")
            #expect(answer["services"]?[0]?["type"]?.stringValue == "Vector Tile Service", "\(answer)")
            let status = try await Publish.finished(client, token: eve, owner: "eve", answer)
            #expect(status["status"]?.stringValue == "completed", "\(status)")
            try await client.execute(uri: "/arcgis/rest/services/Streets/VectorTileServer/tile/0/0/0.pbf?token=\(eve)", method: .get) { response in
                #expect(response.status == .ok && [UInt8](buffer: response.body) == MBTilesFixtures.vectorTile)
            }
        }
    }

    /// Levels the metadata makes up (past 30, or the lowest past the highest) are not taken: the
    /// set's levels are its tiles', and its service answers (it once sized a level list by them).
    @Test(arguments: ["UPDATE metadata SET value = '100000000000' WHERE name = 'maxzoom'", "UPDATE metadata SET value = '5' WHERE name = 'minzoom'"])
    func madeUpLevelsAreReplacedByTheTilesOwn(_ sql: String) async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let file = try Self.bytes(try MBTilesFixtures.make(extraSQL: sql))
            let item = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "levels.mbtiles", bytes: file)
            let answer = try await Publish.publish(client, token: eve, owner: "eve", item: item, filetype: "mbtiles", name: "Levels")
            let status = try await Publish.finished(client, token: eve, owner: "eve", answer)
            #expect(status["status"]?.stringValue == "completed", "\(status)")
            let set = try #require(try store.tiles.tileSet(named: "Levels"))
            #expect(set.minZoom == 0 && set.maxZoom == 1)
            let info = try await post(client, "/arcgis/rest/services/Levels/MapServer", [("f", "json"), ("token", eve)])
            #expect(info["tileInfo"]?["lods"]?.arrayValue?.isEmpty == false, "\(info)")
            try await client.execute(uri: "/arcgis/rest/services/Levels/MapServer/tile/0/0/0?token=\(eve)", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    /// What the file's metadata shows is refused at once; what only its tiles show fails the
    /// job with the reason. Neither leaves a tile service.
    @Test func aFileThatCannotBeServedIsRefusedOrFailsItsJob() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let view = try Self.bytes(
                try MBTilesFixtures.make(
                    extraSQL:
                        "DROP TABLE tiles; CREATE VIEW tiles AS SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, zeroblob(9) AS tile_data"))
            let viewItem = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "view.mbtiles", bytes: view)
            let refused = try await Publish.publish(client, token: eve, owner: "eve", item: viewItem, filetype: "mbtiles", name: "Viewed")
            #expect(refused["error"]?["code"]?.int64Value == 400, "\(refused)")
            #expect("\(refused)".contains("no tiles table") && "\(refused)".contains("view.mbtiles") && !"\(refused)".contains(TestFolders.root))
            // The demo's basemap holds the name already.
            let good = try Self.bytes(try MBTilesFixtures.make())
            let goodItem = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "good.mbtiles", bytes: good)
            let taken = try await Publish.publish(client, token: eve, owner: "eve", item: goodItem, filetype: "mbtiles", name: "DemoBasemap")
            #expect(taken["error"]?["code"]?.int64Value == 409, "\(taken)")
            // Services share one namespace: a tile service never takes a feature service's name.
            let spoof = try await Publish.publish(client, token: eve, owner: "eve", item: goodItem, filetype: "mbtiles", name: "demo")
            #expect(spoof["error"]?["code"]?.int64Value == 409, "\(spoof)")
            for (name, type, available) in [
                ("Demo", "vectorTileService", false), ("demobasemap", "featureService", false), ("Fresh", "featureService", true),
                ("Fresh", "mapService", true), ("a b", "featureService", false),
            ] {
                let answer = try await post(
                    client, "\(Publish.portal)/portals/self/isServiceNameAvailable", [("f", "json"), ("token", eve), ("name", name), ("type", type)])
                #expect(answer["available"]?.boolValue == available, "\(name) as \(type): \(answer)")
            }
            // A Shapefile item is not published as tiles.
            let shapefile = try await Publish.addFile(
                client, token: eve, owner: "eve", type: "Shapefile", name: "s.zip", bytes: try await Publish.zippedShapefile())
            let mismatch = try await Publish.publish(client, token: eve, owner: "eve", item: shapefile, filetype: "mbtiles", name: "Mismatch")
            #expect(mismatch["error"]?["code"]?.int64Value == 400, "\(mismatch)")
            // A tile outside its level is found by the job.
            let outside = try Self.bytes(try MBTilesFixtures.make(tiles: [(0, 0, 0, MBTilesFixtures.png()), (2, 9, 0, MBTilesFixtures.png())]))
            let outsideItem = try await Publish.addFile(client, token: eve, owner: "eve", type: "MBTiles", name: "outside.mbtiles", bytes: outside)
            let answer = try await Publish.publish(client, token: eve, owner: "eve", item: outsideItem, filetype: "mbtiles", name: "Outside")
            let status = try await Publish.finished(client, token: eve, owner: "eve", answer)
            #expect(status["status"]?.stringValue == "failed", "\(status)")
            #expect(status["statusMessage"]?.stringValue?.contains("tile 2/9/0 is outside its level") == true, "\(status)")
            let sets = try store.tiles.tileSets().map(\.name)
            #expect(!sets.contains { ["Viewed", "Mismatch", "Outside"].contains($0) }, "\(sets)")
        }
    }
}
