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
/// exceed the file's own size. The rebuilt file keeps each distinct image once
/// (`UntrustedMBTiles+Rebuild.swift`), so a deduplicated basemap is taken at its own size.
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

    /// The `metadata` table's text rows (names lower-cased), bounded.
    static func metadata(_ db: Database, budget: ReadBudget) throws -> [String: String] {
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
    enum Layout {
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

        static func require(_ db: Database, table: String, columns: Set<String>) throws {
            let present = Set(try db.columns(in: table).map { $0.name.lowercased() })
            guard columns.isSubset(of: present) else {
                throw ReplicaChanges.Failure.invalid("its \(table) table lacks \(columns.subtracting(present).sorted().joined(separator: ", "))")
            }
        }
    }
}
