import Foundation
import GRDB
import OutpostGeoPackage
import OutpostTestSupport
import Testing

/// An uploaded MBTiles file is rebuilt into one the server writes (docs/portal.md,
/// "Publishing"): what it holds is copied tile by tile, checked; a file that is anything else
/// is refused with the reason, and nothing it makes up (a view, a generated column) is read.
@Suite struct UntrustedMBTilesTests {
    /// The rebuilt file's tiles, as (level, column, TMS row, bytes), and its metadata.
    static func contents(_ path: String) throws -> (tiles: [[String]], metadata: [String: String], indexes: [String]) {
        try DatabaseQueue(path: path).read { db in
            let tiles = try Row.fetchAll(db, sql: "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3").map { row in
                (0..<4).map { "\(row[$0] as DatabaseValue)" }
            }
            let metadata = Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, value FROM metadata").map { ($0[0] as String, $0[1] as String) })
            return (tiles, metadata, try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
        }
    }

    @Test(arguments: [MBTilesFixtures.Layout.table, .mapAndImages])
    func aFileIsRebuiltWithItsTilesAndMetadata(_ layout: MBTilesFixtures.Layout) throws {
        let source = try MBTilesFixtures.make(layout: layout)
        let summary = try UntrustedMBTiles.summary(of: source)
        #expect(summary.tileCount == 3 && summary.format == "png" && summary.metadata["name"] == "Fixture")
        let rebuilt = TestFolders.file("rebuilt.mbtiles")
        var heard: [Int] = []
        #expect(try UntrustedMBTiles.rebuild(source, to: rebuilt) { heard.append($0) } == 3)
        #expect(heard.last == 3)
        let (tiles, metadata, indexes) = try Self.contents(rebuilt)
        let expected = [(0, 0, 0, 10), (1, 0, 0, 20), (1, 1, 1, 30)].map { level, column, row, shade in
            ["\(level)", "\(column)", "\(row)", "\"\(MBTilesFixtures.png(UInt8(shade)).map { String(format: "%02X", $0) }.joined())\""]
        }
        #expect(tiles == expected)
        #expect(metadata["format"] == "png" && metadata["bounds"] == "-180,-85,180,85")
        #expect(indexes == ["tile_index"])
    }

    @Test func aVectorSetTakesGzippedAndPlainTiles() throws {
        let gzipped: [UInt8] = [0x1f, 0x8b, 0x08, 0x00] + [UInt8](repeating: 0, count: 8)
        let source = try MBTilesFixtures.make(format: "pbf", tiles: [(0, 0, 0, MBTilesFixtures.vectorTile), (1, 1, 0, gzipped)])
        #expect(try UntrustedMBTiles.summary(of: source).format == "pbf")
        #expect(try UntrustedMBTiles.rebuild(source, to: TestFolders.file("vector.mbtiles")) == 2)
    }

    /// Each row: what makes the file hostile or broken, and the reason the refusal gives. The
    /// refusal comes from `summary` (before a job) or `rebuild` (in the job); neither leaves a file.
    static let refusals: [(label: String, format: String, tiles: [(Int, Int, Int, [UInt8])]?, sql: String, unique: Bool, reason: String)] = [
        (
            "a view of endless rows as tiles", "png", nil,
            "DROP TABLE tiles; CREATE VIEW tiles AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n) "
                + "SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, zeroblob(1000) AS tile_data FROM n", true, "no tiles table"
        ),
        (
            "a generated column of a gigabyte", "png", nil,
            "DROP TABLE tiles; CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, "
                + "tile_data BLOB GENERATED ALWAYS AS (zeroblob(1000000000)) VIRTUAL); INSERT INTO tiles (zoom_level, tile_column, tile_row) VALUES (0, 0, 0)",
            true, "generated or hidden"
        ),
        ("a level past 30", "png", [(31, 0, 0, MBTilesFixtures.png())], "", true, "levels go from 0 to 30"),
        ("a column outside its level", "png", [(1, 2, 0, MBTilesFixtures.png())], "", true, "outside its level"),
        ("a negative row", "png", [(1, 0, -1, MBTilesFixtures.png())], "", true, "outside its level"),
        ("a level given as text", "png", nil, "UPDATE tiles SET zoom_level = 'one' WHERE zoom_level = 1", true, "not an integer"),
        ("bytes that are not an image", "png", [(0, 0, 0, Array("<script>alert(1)</script>".utf8))], "", true, "is not a png tile"),
        ("an image in a vector set", "pbf", nil, "", true, "is not a pbf tile"),
        ("a tile with no bytes", "png", [(0, 0, 0, [])], "", true, "has no bytes"),
        ("a tile twice", "png", [(0, 0, 0, MBTilesFixtures.png()), (0, 0, 0, MBTilesFixtures.png(9))], "", false, "appears twice"),
        ("a format no tile service serves", "exe", nil, "", true, "metadata's format is 'exe'"),
        ("no tiles at all", "png", [], "", true, "holds no tiles"),
        (
            "metadata of more than 1,000 rows", "png", nil,
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO metadata SELECT 'k' || i, 'v' FROM n",
            true, "more than 1,000 rows"
        ),
    ]

    @Test(arguments: 0..<refusals.count)
    func aHostileOrBrokenFileIsRefusedWithItsReason(_ index: Int) throws {
        let row = Self.refusals[index]
        let source = try MBTilesFixtures.make(format: row.format, tiles: row.tiles, extraSQL: row.sql, uniqueIndex: row.unique)
        let rebuilt = TestFolders.file("refused.mbtiles")
        let outcome = Result { () throws(ReplicaChanges.Failure) in
            _ = try UntrustedMBTiles.summary(of: source)
            return try UntrustedMBTiles.rebuild(source, to: rebuilt)
        }
        guard case .failure(.invalid(let reason)) = outcome else {
            Issue.record("\(row.label): \(outcome)")
            return
        }
        #expect(reason.contains(row.reason), "\(row.label): \(reason)")
        #expect(!FileManager.default.fileExists(atPath: rebuilt), "\(row.label): a rebuilt file was left")
    }

    @Test func aFileThatIsNotSQLiteIsUnreadable() throws {
        let path = TestFolders.file("text.mbtiles")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(throws: ReplicaChanges.Failure.self) { try UntrustedMBTiles.summary(of: path) }
    }
}
