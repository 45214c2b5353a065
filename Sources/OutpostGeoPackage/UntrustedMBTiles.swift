import Foundation
import GRDB

/// An MBTiles file someone handed in (the portal's `publish`), rebuilt rather than kept: read
/// defensively (`UntrustedFile`), its tiles and metadata copied into a new file this server
/// writes, so the file the tile services read per request is one whose schema is the server's
/// own (docs/portal.md, "Publishing").
///
/// Taken: a `tiles` table, or mbutil's deduplicated `map` and `images` tables (whose `tiles`
/// is a view, and views are not read in untrusted files). Every tile is checked: its level
/// within `levels`, its column and row within the level, no tile twice, its bytes a blob of
/// the kind the set's `format` names (an image's signature; a vector tile gzipped or starting
/// with its layers' field), no longer than `maximumTileBytes`. All bytes read together never
/// exceed the file's own size.
public enum UntrustedMBTiles {
    public static let levels = 0...30
    public static let maximumTileBytes = 16 << 20
    /// Metadata rows kept, and the longest name and value (a vector set's `json` can be long).
    static let maximumMetadataRows = 1_000
    static let maximumMetadataValueBytes = 1 << 20

    /// What a file holds, read before anything is copied: its metadata and the number of tiles.
    public struct Summary: Sendable, Equatable {
        public let metadata: [String: String]
        public let tileCount: Int

        /// The tiles' format, lower-cased (`png`, `jpg`, `webp`, `pbf`), or nil when unknown.
        public var format: String? {
            guard let format = metadata["format"]?.lowercased() else { return nil }
            let known = format == "jpeg" ? "jpg" : format
            return ["png", "jpg", "webp", "pbf"].contains(known) ? known : nil
        }
    }

    /// The file's metadata and tile count, or why it cannot be published.
    public static func summary(of path: String) throws(ReplicaChanges.Failure) -> Summary {
        try UntrustedFile.read(path, limits: .generous) { db, budget in
            let layout = try Layout(db)
            let summary = Summary(metadata: try metadata(db, budget: budget), tileCount: try Int.fetchOne(db, sql: layout.countSQL) ?? 0)
            guard summary.format != nil else {
                throw ReplicaChanges.Failure.invalid("its metadata's format is '\(summary.metadata["format"] ?? "")' (png, jpg, webp or pbf)")
            }
            guard summary.tileCount > 0 else { throw ReplicaChanges.Failure.invalid("it holds no tiles") }
            return summary
        }
    }

    /// Copies the file's checked tiles and metadata into a new MBTiles file at `destination`
    /// (which must not exist); `progress` hears the tiles copied so far. Returns the count.
    @discardableResult
    public static func rebuild(
        _ path: String, to destination: String, progress: (Int) -> Void = { _ in }
    ) throws(ReplicaChanges.Failure) -> Int {
        do {
            return try UntrustedFile.read(path, limits: .generous) { db, budget in
                let layout = try Layout(db)
                let metadata = try metadata(db, budget: budget)
                guard let format = Summary(metadata: metadata, tileCount: 0).format else {
                    throw ReplicaChanges.Failure.invalid("its metadata's format is '\(metadata["format"] ?? "")' (png, jpg, webp or pbf)")
                }
                let output = try DatabaseQueue(path: destination)
                defer { try? output.close() }
                try output.writeWithoutTransaction { out in
                    try out.execute(
                        sql: """
                            PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                            CREATE TABLE metadata (name TEXT NOT NULL, value TEXT NOT NULL);
                            CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL,
                                tile_data BLOB NOT NULL);
                            CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                            """)
                }
                var copied = 0
                try output.inTransaction { out in
                    for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
                        try out.execute(sql: "INSERT INTO metadata (name, value) VALUES (?, ?)", arguments: [name, value])
                    }
                    let insert = try out.makeStatement(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)")
                    let rows = try Row.fetchCursor(db, sql: layout.tilesSQL)
                    while let row = try rows.next() {
                        let tile = try Tile(row, format: format, budget: budget)
                        do {
                            try insert.execute(arguments: [tile.level, tile.column, tile.row, tile.data])
                        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                            throw ReplicaChanges.Failure.invalid("tile \(tile.level)/\(tile.column)/\(tile.row) appears twice")
                        }
                        copied += 1
                        if copied % 1_000 == 0 { progress(copied) }
                    }
                    return .commit
                }
                guard copied > 0 else { throw ReplicaChanges.Failure.invalid("it holds no tiles") }
                progress(copied)
                return copied
            }
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
    }

    /// The `metadata` table's text rows (names lower-cased), bounded.
    private static func metadata(_ db: Database, budget: ReadBudget) throws -> [String: String] {
        guard try db.tableExists("metadata") else { return [:] }
        var values: [String: String] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT name, value FROM metadata")
        while let row = try rows.next() {
            guard values.count < maximumMetadataRows else { throw ReplicaChanges.Failure.invalid("its metadata has more than 1,000 rows") }
            guard case .string(let name) = (row[0] as DatabaseValue).storage, case .string(let value) = (row[1] as DatabaseValue).storage
            else { continue }
            try budget.spend(name.utf8.count + value.utf8.count)
            guard name.utf8.count <= 200, value.utf8.count <= maximumMetadataValueBytes else {
                throw ReplicaChanges.Failure.invalid("metadata '\(name.prefix(40))' is longer than this server keeps")
            }
            values[name.lowercased()] = value
        }
        return values
    }

    /// Where the tiles are: a `tiles` table, or mbutil's `map` and `images`.
    private enum Layout {
        case table
        case mapAndImages

        init(_ db: Database) throws {
            let tables = Set(try UntrustedFile.tables(db).plain.map { $0.lowercased() })
            if tables.contains("tiles") {
                try Self.require(db, table: "tiles", columns: ["zoom_level", "tile_column", "tile_row", "tile_data"])
                self = .table
            } else if tables.contains("map"), tables.contains("images") {
                try Self.require(db, table: "map", columns: ["zoom_level", "tile_column", "tile_row", "tile_id"])
                try Self.require(db, table: "images", columns: ["tile_id", "tile_data"])
                self = .mapAndImages
            } else {
                throw ReplicaChanges.Failure.invalid("it has no tiles table (nor mbutil's map and images)")
            }
        }

        var countSQL: String {
            switch self {
            case .table: "SELECT count(*) FROM tiles"
            case .mapAndImages: "SELECT count(*) FROM map"
            }
        }

        var tilesSQL: String {
            switch self {
            case .table: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"
            case .mapAndImages:
                "SELECT map.zoom_level, map.tile_column, map.tile_row, images.tile_data FROM map JOIN images ON images.tile_id = map.tile_id"
            }
        }

        static func require(_ db: Database, table: String, columns: Set<String>) throws {
            let present = Set(try db.columns(in: table).map { $0.name.lowercased() })
            guard columns.isSubset(of: present) else {
                throw ReplicaChanges.Failure.invalid("its \(table) table lacks \(columns.subtracting(present).sorted().joined(separator: ", "))")
            }
        }
    }

    /// One tile, checked.
    private struct Tile {
        let level: Int64
        let column: Int64
        let row: Int64
        let data: Data

        init(_ row: Row, format: String, budget: ReadBudget) throws {
            guard case .int64(let level) = (row[0] as DatabaseValue).storage, case .int64(let column) = (row[1] as DatabaseValue).storage,
                case .int64(let tileRow) = (row[2] as DatabaseValue).storage
            else { throw ReplicaChanges.Failure.invalid("a tile's level, column or row is not an integer") }
            let place = "tile \(level)/\(column)/\(tileRow)"
            guard UntrustedMBTiles.levels.contains(Int(clamping: level)) else {
                throw ReplicaChanges.Failure.invalid("\(place): levels go from 0 to \(UntrustedMBTiles.levels.upperBound)")
            }
            guard (0..<(Int64(1) << level)).contains(column), (0..<(Int64(1) << level)).contains(tileRow) else {
                throw ReplicaChanges.Failure.invalid("\(place) is outside its level")
            }
            guard case .blob(let data) = (row[3] as DatabaseValue).storage, !data.isEmpty else {
                throw ReplicaChanges.Failure.invalid("\(place) has no bytes")
            }
            try budget.spend(data.count)
            guard data.count <= UntrustedMBTiles.maximumTileBytes else {
                throw ReplicaChanges.Failure.invalid("\(place) is larger than \(UntrustedMBTiles.maximumTileBytes >> 20) MiB")
            }
            guard Self.matches(data, format: format) else { throw ReplicaChanges.Failure.invalid("\(place) is not a \(format) tile") }
            (self.level, self.column, self.row, self.data) = (level, column, tileRow, data)
        }

        /// Whether the bytes start as the format's do. Raster sets are served with their
        /// format's type, so any image is taken (sets mixing PNG and JPEG exist); a vector tile
        /// is gzipped or starts with its `layers` field (3, length-delimited).
        static func matches(_ data: Data, format: String) -> Bool {
            let head = [UInt8](data.prefix(12))
            if format == "pbf" { return head.starts(with: [0x1f, 0x8b]) || head.first == 0x1a }
            let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
            let webp = head.count == 12 && head.starts(with: Array("RIFF".utf8)) && Array(head[8..<12]) == Array("WEBP".utf8)
            return head.starts(with: png) || head.starts(with: [0xff, 0xd8, 0xff]) || webp
        }
    }
}
