import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostStore
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The demo's tile services over HTTP (docs/tiles.md).
@Suite struct TileServicesTests {
    static let services = "/arcgis/rest/services"

    static func sourceTile(_ file: String, level: Int, row: Int, column: Int) throws -> [UInt8]? {
        try DatabaseQueue(path: TestFolders.testdata + "/" + file).read { db in
            try Data.fetchOne(
                db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                arguments: [level, column, (1 << level) - 1 - row])
        }.map { [UInt8]($0) }
    }

    @Test func aMapServerServesItsTilesWithCacheHeaders() async throws {
        try await withFreshDemoApp { client, _ in
            let info = try await get(client, "\(Self.services)/DemoBasemap/MapServer?f=json")
            #expect(info["singleFusedMapCache"] == true && info["tileInfo"]?["lods"]?.arrayValue?.count == 6, "\(info)")
            let listed = try await get(client, "\(Self.services)?f=json")["services"]?.arrayValue ?? []
            #expect(
                listed.contains(["name": "DemoBasemap", "type": "MapServer"])
                    && listed.contains(["name": "DemoVectorBasemap", "type": "VectorTileServer"]))

            let expected = try #require(try Self.sourceTile("demo-raster.mbtiles", level: 3, row: 2, column: 5))
            let etag = try await client.execute(uri: "\(Self.services)/DemoBasemap/MapServer/tile/3/2/5", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/png")
                #expect(Array(buffer: response.body) == expected, "the stored tile, row counted from the top")
                #expect(response.headers[.cacheControl]?.contains("max-age") == true)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "\(Self.services)/DemoBasemap/MapServer/tile/3/2/5", method: .get, headers: [.ifNoneMatch: etag]) {
                #expect($0.status == .notModified && $0.body.readableBytes == 0)
            }
            for missing in ["tile/6/0/0", "tile/3/8/0", "tile/3/x/1"] {
                try await client.execute(uri: "\(Self.services)/DemoBasemap/MapServer/\(missing)", method: .get) {
                    #expect($0.status == .notFound || json($0)["error"]?["code"] == 404, "\(missing)")
                }
            }
            let tileMap = try await get(client, "\(Self.services)/DemoBasemap/MapServer/tilemap/1/0/0/3/2?f=json")
            #expect(tileMap["data"] == [1, 1, 0, 1, 1, 0], "\(tileMap)")
            // A raster set is not a vector tile service, and an unknown name is not found.
            #expect(try await get(client, "\(Self.services)/DemoBasemap/VectorTileServer?f=json")["error"]?["code"] == 404)
            #expect(try await get(client, "\(Self.services)/Nowhere/MapServer?f=json")["error"]?["code"] == 404)
        }
    }

    @Test func aVectorTileServerServesGzippedTilesAndAStyle() async throws {
        try await withFreshDemoApp { client, _ in
            let info = try await get(client, "\(Self.services)/DemoVectorBasemap/VectorTileServer?f=json")
            #expect(info["tiles"]?[0] == "tile/{z}/{y}/{x}.pbf" && info["exportTilesAllowed"] == true, "\(info)")
            let expected = try #require(try Self.sourceTile("demo-vector.mbtiles", level: 2, row: 1, column: 2))
            try await client.execute(uri: "\(Self.services)/DemoVectorBasemap/VectorTileServer/tile/2/1/2.pbf", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/x-protobuf")
                #expect(response.headers[.contentEncoding] == "gzip" && Array(buffer: response.body) == expected)
            }
            let style = try await get(client, "\(Self.services)/DemoVectorBasemap/VectorTileServer/resources/styles/root.json?f=json")
            let sourceLayers = Set(style["layers"]?.arrayValue?.compactMap { $0["source-layer"]?.stringValue } ?? [])
            #expect(sourceLayers == ["countries", "cities"], "\(style)")
        }
    }

    @Test func tileServicesNeedATokenUnderTokenSecurity() async throws {
        let store = try makeDemoStore(label: "tiles-auth")
        try store.users.addUser("vic", role: .viewer, password: "vic-password", rounds: 1000)
        let token = try store.users.issueToken(for: ServerUser(name: "vic", role: .viewer), minutes: 30).token
        try await Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true))).test(.router) { client in
            #expect(try await get(client, "\(Self.services)/DemoBasemap/MapServer?f=json")["error"]?["code"] == 499)
            try await client.execute(uri: "\(Self.services)/DemoBasemap/MapServer/tile/0/0/0?token=\(token)", method: .get) {
                #expect($0.status == .ok && $0.headers[.contentType] == "image/png")
            }
        }
        try? FileManager.default.removeItem(atPath: store.directory)
    }
}

/// The server's tile cache keeps at most its budget of bytes, the newest tiles first.
@Suite struct TileCacheTests {
    @Test func theOldestTilesGoWhenTheBudgetIsSpent() {
        let cache = TileCache(budget: 1600)
        func key(_ n: Int, version: Int64 = 1) -> TileCache.Key { TileCache.Key(set: "s", version: version, level: 5, row: n, column: 0) }
        for n in 0..<20 { cache.store(Array(repeating: UInt8(n), count: 100), for: key(n)) }
        #expect(cache.byteCount <= 1600)
        #expect(cache.tile(key(0)) == nil && cache.tile(key(3)) == nil)
        #expect(cache.tile(key(19)) == Array(repeating: 19, count: 100))
        #expect(cache.tile(key(19, version: 2)) == nil, "another import of the set is another set")
        cache.store(Array(repeating: 1, count: 101), for: key(99))
        #expect(cache.tile(key(99)) == nil, "a tile over a sixteenth of the budget is not kept")
    }
}
