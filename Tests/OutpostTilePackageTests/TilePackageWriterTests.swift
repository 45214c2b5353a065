import Foundation
import GRDB
import OutpostGeometry
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostTilePackage

/// Tiles held in memory, as a tile set would hand them (a fixture: the store's own reading
/// is tested against the real demo files in the server's export tests).
final class FixtureTiles: TileExportSource {
    var tiles: [Int: [StoredTile: [UInt8]]] = [:]
    /// Makes the second read of a block differ from the first, as a changed set would.
    var changeBetweenPasses = false

    init(levels: ClosedRange<Int>) {
        for level in levels {
            for row in 0..<(1 << level) {
                for column in 0..<(1 << level) {
                    let bytes =
                        Array("tile \(level)/\(row)/\(column) ".utf8)
                        + Array(repeating: UInt8(truncatingIfNeeded: row * 7 + column), count: row + column)
                    tiles[level, default: [:]][StoredTile(row: row, column: column, byteCount: bytes.count)] = bytes
                }
            }
        }
    }

    private func block(_ level: Int, _ rows: ClosedRange<Int>, _ columns: ClosedRange<Int>) -> [(StoredTile, [UInt8])] {
        (tiles[level] ?? [:]).filter { rows.contains($0.key.row) && columns.contains($0.key.column) }
            .sorted { ($0.key.column, $0.key.row) < ($1.key.column, $1.key.row) }.map { ($0.key, $0.value) }
    }

    func tileSizes(level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile] {
        block(level, rows, columns).map(\.0)
    }

    func readTiles(
        level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    )
        throws
    {
        for (tile, bytes) in block(level, rows, columns) {
            let sent = changeBetweenPasses ? bytes + [0] : bytes
            try sent.withUnsafeBytes { try body(StoredTile(row: tile.row, column: tile.column, byteCount: sent.count), $0) }
        }
    }

    func bytes(level: Int, row: Int, column: Int) -> [UInt8]? {
        tiles[level]?.first { $0.key.row == row && $0.key.column == column }?.value
    }
}

@Suite struct TilePackageWriterTests {
    static let set = TileSet(name: "Fixture", kind: .raster, format: "png", minZoom: 0, maxZoom: 3, created: 1)

    static func plan(_ levels: [Int], aoi: [[Point]]? = nil) throws -> TileExportPlan {
        let world = WebMercatorTiling.envelope([-180, -85.0511, 180, 85.0511])
        return try TileExportPlanner.plan(levels: levels, extent: world, areaOfInterest: aoi, maximum: 1000, service: "Fixture:MapServer")
    }

    static func write(_ plan: TileExportPlan, from source: FixtureTiles) throws -> (path: String, progress: [Int]) {
        let path = TestFolders.file("export.tpkx")
        var progress: [Int] = []
        let description = TilePackageDescription(set: set, extent: WebMercatorTiling.envelope(set.bounds), created: 1)
        try TilePackageWriter(description: description, plan: plan).write(to: path, from: source) { progress.append($0) }
        return (path, progress)
    }

    /// Python's zipfile, a reader that is not ours: the entries, their compression, their CRCs.
    static func pythonListing(_ path: String) async throws -> String {
        let listing = try await ExternalTool.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print('\\n'.join(f'{i.filename} {i.compress_type} {i.file_size}' for i in z.infolist()))",
                path,
            ])
        #expect(listing.exitCode == 0)
        return listing.text
    }

    @Test func aPackageHoldsEveryTileByteForByteInStoredEntries() async throws {
        let source = FixtureTiles(levels: 0...3)
        let (path, progress) = try Self.write(try Self.plan([0, 1, 2, 3]), from: source)
        let listing = try await Self.pythonListing(path)
        #expect(
            listing.contains("root.json 0 ") && listing.contains("iteminfo.json 0 ") && listing.contains("tile/L03/R0000C0000.bundle 0 "),
            "\(listing)")
        let entries = try #require(TilePackageReading.storedEntries([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        for level in 0...3 {
            let bundle = try #require(entries["tile/L0\(level)/R0000C0000.bundle"])
            #expect(TilePackageReading.tileCount(inBundle: bundle) == 1 << (2 * level))
            for row in 0..<(1 << level) {
                for column in 0..<(1 << level) {
                    #expect(
                        TilePackageReading.tile(inBundle: bundle, row: row, column: column) == source.bytes(level: level, row: row, column: column))
                }
            }
        }
        #expect(progress.last == 85 && progress == progress.sorted(), "progress per bundle, up to every tile")
        let root = try JSONParser.parse(String(decoding: try #require(entries["root.json"]), as: UTF8.self))
        #expect(root["storageInfo"]?["storageFormat"] == "esriMapCacheStorageModeCompactV2" && root["storageInfo"]?["packetSize"] == 128)
        #expect(root["minLOD"] == 0 && root["maxLOD"] == 3 && root["tileBundlesPath"] == "./tile" && root["tileImageInfo"]?["format"] == "PNG")
        let item = try JSONParser.parse(String(decoding: try #require(entries["iteminfo.json"]), as: UTF8.self))
        #expect(item["type"] == "Compact Tile Package" && item["typeKeywords"] == ["Compact Tile Package", "Tile Package", "tpkx"])
    }

    @Test func tilesOutsideTheAreaOfInterestAreLeftOut() throws {
        let source = FixtureTiles(levels: 3...3)
        // A small triangle inside the tile at row 2, column 4 of level 3.
        let (x, y) = WebMercatorTiling.project(longitude: 10, latitude: 50)
        let triangle = [[Point(x: x, y: y), Point(x: x + 1000, y: y), Point(x: x, y: y + 1000), Point(x: x, y: y)]]
        let (path, _) = try Self.write(try Self.plan([3], aoi: triangle), from: source)
        let entries = try #require(TilePackageReading.storedEntries([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        let bundle = try #require(entries["tile/L03/R0000C0000.bundle"])
        #expect(TilePackageReading.tileCount(inBundle: bundle) == 1)
        #expect(TilePackageReading.tile(inBundle: bundle, row: 2, column: 4) == source.bytes(level: 3, row: 2, column: 4))
    }

    @Test func tilesThatChangeBetweenTheTwoReadsFailTheExport() throws {
        let source = FixtureTiles(levels: 0...1)
        source.changeBetweenPasses = true
        #expect(throws: TilePackageWriteError.tilesChanged(level: 0)) { try Self.write(try Self.plan([0, 1]), from: source) }
    }

    @Test func anEntryMustBeTheSizeItAnnounced() throws {
        let zip = try StoredZipWriter(path: TestFolders.file("short.zip"))
        try zip.beginEntry("a", size: 4)
        try zip.write([1, 2, 3])
        #expect(throws: TilePackageWriteError.sizeMismatch(entry: "a", announced: 4, written: 3)) { try zip.endEntry() }
    }

    @Test func anMBTilesExportCountsRowsFromTheBottomAndSaysWhatItHolds() throws {
        let source = FixtureTiles(levels: 0...2)
        let path = TestFolders.file("export.mbtiles")
        let description = TilePackageDescription(set: Self.set, extent: WebMercatorTiling.envelope([-10, 35, 30, 60]), created: 1)
        let written = try MBTilesExportWriter(description: description, plan: try Self.plan([1, 2])).write(to: path, from: source)
        #expect(written == 20)
        try DatabaseQueue(path: path).read { db in
            let metadata = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, value FROM metadata").map { ($0[0] as String, $0[1] as String) })
            #expect(metadata["format"] == "png" && metadata["minzoom"] == "1" && metadata["maxzoom"] == "2" && metadata["name"] == "Fixture")
            // `bounds`: the tiles' (this plan's are the world's); `center`: the area asked for's.
            #expect(metadata["bounds"] == "-180.000000000,-85.051128780,180.000000000,85.051128780" && metadata["center"] == "10.000000,47.500000,1")
            // Row 0 from the top of level 2 is TMS row 3.
            let top = try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = 2 AND tile_column = 1 AND tile_row = 3")
            #expect(top.map { [UInt8]($0) } == source.bytes(level: 2, row: 0, column: 1))
        }
    }
}
