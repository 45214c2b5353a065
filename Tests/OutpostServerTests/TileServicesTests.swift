import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
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

    /// Issue 43, finding 4: a `tilemap` (or tile) with a row or column near `Int.max` trapped
    /// on overflow and took the process down; an address outside the level's grid is now a 404.
    @Test func addressesOutsideTheTilingAreNotFoundAndNeverCountedWith() async throws {
        try await withFreshDemoApp { client, _ in
            let huge = String(Int.max)
            for path in [
                "MapServer/tilemap/1/0/\(huge)/256/256", "MapServer/tilemap/1/\(huge)/0/256/256",
                "MapServer/tilemap/3/8/0/1/1", "MapServer/tilemap/31/0/0/1/1", "MapServer/tile/1/\(huge)/\(huge)",
                "VectorTileServer/tilemap/2/\(huge)/\(huge)/256/256", "VectorTileServer/tile/2/0/\(huge).pbf",
                "MapServer/tilemap/1/-1/0/1/1", "MapServer/tilemap/1/0/0/0/1", "MapServer/tilemap/1/0/0/1/\(huge)",
            ] {
                let service = path.hasPrefix("Vector") ? "DemoVectorBasemap" : "DemoBasemap"
                try await client.execute(uri: "\(Self.services)/\(service)/\(path)?f=json", method: .get) { response in
                    let code = response.status == .notFound ? 404 : json(response)["error"]?["code"]?.int64Value
                    #expect(code == 404 || code == 400, "\(path): \(response.status)")
                }
            }
            // The deepest corner of the deepest level is still an address the tiling has.
            let corner = try await get(client, "\(Self.services)/DemoBasemap/MapServer/tilemap/30/1073741823/1073741823/2/2?f=json")
            #expect(corner["data"] == [0, 0, 0, 0], "\(corner)")
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

extension ServerOptions {
    /// The options with a tile cache that never reads a set again: a test counting the fast
    /// path's answers must not see one go through the router because its steps were slow.
    func withLastingTileSets() -> ServerOptions {
        var options = self
        options.tileCache = TileCache(setLifetime: .seconds(3600))
        return options
    }
}

/// The server's tile cache keeps at most its budget of bytes, the newest tiles first.
@Suite struct TileCacheTests {
    @Test func theOldestTilesGoWhenTheBudgetIsSpent() {
        let cache = TileCache(budget: 1600)
        func key(_ n: Int, version: Int64 = 1) -> TileCache.Key { TileCache.Key(set: "s", version: version, level: 5, row: n, column: 0) }
        func bytes(_ value: UInt8, _ count: Int) -> ByteBuffer { ByteBuffer(bytes: Array(repeating: value, count: count)) }
        for n in 0..<20 { cache.store(bytes(UInt8(n), 100), for: key(n)) }
        #expect(cache.byteCount <= 1600)
        #expect(cache.tile(key(0)) == nil && cache.tile(key(3)) == nil)
        #expect(cache.tile(key(19)) == bytes(19, 100))
        #expect(cache.tile(key(19, version: 2)) == nil, "another import of the set is another set")
        cache.store(bytes(1, 101), for: key(99))
        #expect(cache.tile(key(99)) == nil, "a tile over a sixteenth of the budget is not kept")
    }

    private static func set(_ name: String, created: Int64) -> TileSet {
        TileSet(name: name, kind: .raster, format: "png", minZoom: 0, maxZoom: 3, created: created)
    }

    /// A set read before everything was forgotten (a tile service deleted meanwhile) is not
    /// remembered after, under any spelling; an older read never replaces a newer one.
    @Test func aSetReadBeforeTheCacheWasClearedIsNotRemembered() {
        let cache = TileCache()
        let first = cache.beginRead()
        cache.remember(Self.set("Parcels", created: 1), from: first)
        #expect(cache.set(named: "PARCELS")?.created == 1)
        cache.remember(Self.set("Parcels", created: 2), from: cache.beginRead())
        #expect(cache.set(named: "PARCELS")?.created == 2, "a spelling seen before names the newest read")
        cache.remember(Self.set("Parcels", created: 1), from: first)
        #expect(cache.set(named: "Parcels")?.created == 2, "an older read does not replace a newer one")
        cache.removeAll()
        #expect(cache.set(named: "parcels") == nil && cache.set(named: "PARCELS") == nil)
        cache.remember(Self.set("Parcels", created: 2), from: first)
        #expect(cache.set(named: "Parcels") == nil, "read before the clearing")
        cache.remember(Self.set("Parcels", created: 3), from: cache.beginRead())
        #expect(cache.set(named: "PARCELS")?.created == 3)
    }

    /// Another process may delete a set or publish another under its name: a set is read from
    /// the store again once its lifetime has passed.
    @Test func aSetIsReadAgainAfterItsLifetime() {
        let lasting = TileCache(setLifetime: .seconds(3600))
        lasting.remember(Self.set("Parcels", created: 1), from: lasting.beginRead())
        #expect(lasting.set(named: "Parcels") != nil)
        let expired = TileCache(setLifetime: .zero)
        expired.remember(Self.set("Parcels", created: 1), from: expired.beginRead())
        #expect(expired.set(named: "Parcels") == nil)
    }
}

/// A vector set's own style, sprites and glyphs (docs/tiles.md, "Adding tile sets").
@Suite struct StyleResourceTests {
    static func resources() throws -> String {
        let folder = TestFolders.make("style")
        let files: [(String, String)] = [
            (
                "styles/root.json",
                #"{"version":8,"sprite":"https://elsewhere.example/sprite","glyphs":"https://elsewhere.example/{fontstack}/{range}.pbf","sources":{"esri":{"type":"vector","url":"https://elsewhere.example/VectorTileServer"}},"layers":[{"id":"land","type":"fill","source":"esri","source-layer":"countries"}]}"#
            ),
            ("sprites/sprite.json", #"{"dot":{"x":0,"y":0,"width":8,"height":8,"pixelRatio":1}}"#),
            ("sprites/sprite.png", "not really a png"),
            ("fonts/Noto Sans Regular/0-255.pbf", "glyphs 0-255"),
            ("notes.txt", "not a resource"),
        ]
        for (path, text) in files {
            let file = (folder as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
        return folder
    }

    @Test func aGivenStyleIsServedPointingAtThisServiceWithItsSpritesAndGlyphs() async throws {
        try await withFreshDemoApp { client, store in
            let folder = try Self.resources()
            _ = try store.tiles.addTileSet(
                mbtiles: TestFolders.testdata + "/demo-vector.mbtiles", name: "Styled", description: nil, styleResources: folder)
            let base = "/arcgis/rest/services/Styled/VectorTileServer/resources"
            let style = try await get(client, "\(base)/styles/root.json?f=json")
            #expect(style["sprite"] == "../sprites/sprite" && style["glyphs"] == "../fonts/{fontstack}/{range}.pbf", "\(style)")
            #expect(style["sources"]?["esri"]?["url"] == "../../" && style["layers"]?[0]?["id"] == "land")
            try await client.execute(uri: "\(base)/sprites/sprite.png", method: .get) { response in
                #expect(
                    response.status == .ok && response.headers[.contentType] == "image/png" && String(buffer: response.body) == "not really a png")
            }
            try await client.execute(uri: "\(base)/fonts/Noto%20Sans%20Regular/0-255.pbf", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body) == "glyphs 0-255")
            }
            for missing in ["sprites/notes.txt", "fonts/Noto%20Sans%20Regular/..%2F..%2Fstyles%2Froot.json", "sprites/sprite@2x.png"] {
                try await client.execute(uri: "\(base)/\(missing)", method: .get) { #expect($0.status == .notFound, "\(missing)") }
            }
            // A raster set takes no style; a folder without resources is refused before anything is added.
            #expect(throws: TileSetFailure.self) {
                try store.tiles.addTileSet(
                    mbtiles: TestFolders.testdata + "/demo-raster.mbtiles", name: "R", description: nil, styleResources: folder)
            }
            #expect(throws: TileSetFailure.self) {
                try store.tiles.addTileSet(
                    mbtiles: TestFolders.testdata + "/demo-vector.mbtiles", name: "V", description: nil, styleResources: TestFolders.make("empty"))
            }
            #expect(try store.tiles.tileSet(named: "R") == nil && store.tiles.tileSet(named: "V") == nil)
        }
    }

    @Test(arguments: [
        ("styles/root.json", true), ("sprites/sprite@2x.png", true), ("fonts/Open Sans Bold,Arial Unicode MS Regular/256-511.pbf", true),
        ("fonts/x.pbf", false), ("sprites/../styles/root.json", false), ("tiles/0/0/0.pbf", false), ("sprites/sprite.svg", false),
        ("/styles/root.json", false),
    ])
    func resourcePathsAreChecked(_ row: (String, Bool)) {
        #expect(StyleResources.isValidPath(row.0) == row.1, "\(row.0)")
    }
}

/// The tile fast path (docs/tiles.md, "Serving tiles fast") over a real connection.
@Suite struct TileFastPathTests {
    static func app(_ store: SpatiaLiteBackend, _ options: ServerOptions) -> some ApplicationProtocol {
        buildApplication(store: store, port: 0, options: options)
    }

    @Test func aCachedTileIsAnsweredBeforeTheRouterAsTheRouterAnswersIt() async throws {
        let store = try makeDemoStore(label: "fast-path")
        let options = ServerOptions().withLastingTileSets()
        try await Self.app(store, options).test(.live) { client in
            let uri = "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5"
            func fetch(
                _ uri: String, _ headers: HTTPFields = [:], method: HTTPRequest.Method = .get
            ) async throws -> (HTTPResponse.Status, HTTPFields, [UInt8]) {
                try await client.execute(uri: uri, method: method, headers: headers) { ($0.status, $0.headers, Array(buffer: $0.body)) }
            }
            let (status, routed, bytes) = try await fetch(uri)
            #expect(status == .ok && options.tileCache.fastAnswers.load(ordering: .relaxed) == 0, "the first request fills the cache")
            let (again, fast, sameBytes) = try await fetch(uri)
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 1, "the second comes from the fast path")
            #expect(again == .ok && sameBytes == bytes)
            let names = { (fields: HTTPFields) in Set(fields.map { $0.name.canonicalName }) }
            #expect(names(fast) == names(routed), "the same headers: \(names(fast).symmetricDifference(names(routed)))")
            for name in [HTTPField.Name.eTag, .cacheControl, .contentType, .contentLength, .xContentTypeOptions] {
                #expect(fast[name] == routed[name], "\(name)")
            }
            #expect(fast[.requestId] != routed[.requestId])
            let (notModified, _, empty) = try await fetch(uri, [.ifNoneMatch: try #require(routed[.eTag])])
            #expect(notModified == .notModified && empty.isEmpty && options.tileCache.fastAnswers.load(ordering: .relaxed) == 2)
            // A query, another method, a tile not seen yet, or a tile the set lacks: the router's.
            _ = try await fetch(uri + "?f=image")
            _ = try await fetch(uri, method: .head)
            let (missing, _, _) = try await fetch("/arcgis/rest/services/DemoBasemap/MapServer/tile/5/0/0")
            let (outside, _, _) = try await fetch("/arcgis/rest/services/DemoBasemap/MapServer/tile/9/0/0")
            #expect(outside == .notFound && [.ok, .notFound].contains(missing))
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 2)
            // The vector tile, gzipped, through both.
            let vector = "/arcgis/rest/services/DemoVectorBasemap/VectorTileServer/tile/2/1/2.pbf"
            let (_, first, firstBytes) = try await fetch(vector)
            let (_, second, secondBytes) = try await fetch(vector)
            #expect(first[.contentEncoding] == "gzip" && second[.contentEncoding] == "gzip" && firstBytes == secondBytes)
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 3)
        }
    }

    @Test func underTokenSecurityEveryTileGoesThroughTheRouter() async throws {
        let store = try makeDemoStore(label: "fast-path-auth")
        let options = ServerOptions(requireAuth: true)
        try await Self.app(store, options).test(.live) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5", method: .get) { response in
                    #expect(json(response)["error"]?["code"] == 499)
                }
            }
            #expect(tileFastPath(options, logger: .outpostDefault) == nil && options.tileCache.fastAnswers.load(ordering: .relaxed) == 0)
        }
    }
}
