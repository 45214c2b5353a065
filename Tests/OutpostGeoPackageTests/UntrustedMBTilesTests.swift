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
        #expect(indexes == ["map_index"])
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

    /// mbutil's shared images stay shared: one image under all 64 tiles of level 3 is read and
    /// kept once, so the file is taken (64 copies would be far past its size) and stays small.
    @Test func aDeduplicatedFileIsTakenAtItsOwnSize() throws {
        let ocean = MBTilesFixtures.png(7) + [UInt8](repeating: 0x5a, count: 32 * 1024)
        let source = try MBTilesFixtures.make(layout: .mapAndImages, tiles: [(0, 0, 0, ocean)])
        let extraPlaces = (1..<64).map { "(3, \($0 % 8), \($0 / 8), 't0')" }.joined(separator: ", ")
        try DatabaseQueue(path: source).write { db in
            try db.execute(sql: "UPDATE map SET zoom_level = 3; INSERT INTO map VALUES \(extraPlaces)")
        }
        let rebuilt = TestFolders.file("shared.mbtiles")
        #expect(try UntrustedMBTiles.rebuild(source, to: rebuilt) == 64)
        let (tiles, _, _) = try Self.contents(rebuilt)
        #expect(tiles.count == 64 && Set(tiles.map { $0[3] }).count == 1)
        #expect(try DatabaseQueue(path: rebuilt).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM images") } == 1)
        let size = try FileManager.default.attributesOfItem(atPath: rebuilt)[.size] as? Int ?? .max
        #expect(size < 4 * ocean.count, "\(size) bytes")
    }

    /// mbutil's layout, hostile or broken: a place without its image, an image twice, and ids
    /// made as long as the file by a column's default (read in a scan and counted, never joined).
    @Test(arguments: [
        ("UPDATE map SET tile_id = 'nowhere' WHERE zoom_level = 1 AND tile_column = 1", "tile 1/1/1 has no bytes"),
        ("INSERT INTO images VALUES (x'00', 't0')", "appears twice"),
        (
            "CREATE TABLE m2 (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER); "
                + "INSERT INTO m2 SELECT zoom_level, tile_column, tile_row FROM map; "
                + "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO m2 SELECT 8, i, 0 FROM n; "
                + "DROP VIEW tiles; DROP TABLE map; ALTER TABLE m2 RENAME TO map; "
                + "ALTER TABLE map ADD COLUMN tile_id TEXT DEFAULT '\(String(repeating: "t", count: 60_000))'; "
                + "UPDATE images SET tile_id = '\(String(repeating: "t", count: 60_000))' WHERE tile_id = 't0'",
            "more data than it holds"
        ),
    ])
    func aHostileMBUtilFileIsRefused(_ row: (sql: String, reason: String)) throws {
        let source = try MBTilesFixtures.make(layout: .mapAndImages, extraSQL: row.sql)
        let rebuilt = TestFolders.file("refused.mbtiles")
        let outcome = Result { () throws(ReplicaChanges.Failure) in try UntrustedMBTiles.rebuild(source, to: rebuilt) }
        guard case .failure(.invalid(let reason)) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains(row.reason), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: rebuilt))
    }

    /// A file in WAL mode is read without leaving the -wal and -shm files reading it made.
    @Test func aWALModeFileLeavesNothingBeside() throws {
        let source = try MBTilesFixtures.make()
        try DatabaseQueue(path: source).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        let beside = { ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: source + $0) } }
        #expect(beside().isEmpty, "the fixture's writer removed its own")
        #expect(try UntrustedMBTiles.summary(of: source).tileCount == 3)
        #expect(try UntrustedMBTiles.rebuild(source, to: TestFolders.file("from-wal.mbtiles")) == 3)
        #expect(beside().isEmpty, "\(beside())")
    }

    @Test func aFileThatIsNotSQLiteIsUnreadable() throws {
        let path = TestFolders.file("text.mbtiles")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(throws: ReplicaChanges.Failure.self) { try UntrustedMBTiles.summary(of: path) }
    }
}
