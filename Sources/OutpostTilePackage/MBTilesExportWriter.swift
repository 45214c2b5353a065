import Foundation
import GRDB
import OutpostSQLite
import OutpostSync
import OutpostWire

/// Writes an export as MBTiles 1.3 (§3.4): `metadata` (name, format, bounds, center, zooms,
/// and a vector set's `json`) and `tiles` with rows counted from the bottom (TMS), each tile's
/// bytes exactly as the set holds them. Vector exports are always MBTiles (docs/tiles.md).
public struct MBTilesExportWriter {
    public let description: TilePackageDescription
    public let plan: TileExportPlan

    public init(description: TilePackageDescription, plan: TileExportPlan) {
        self.description = description
        self.plan = plan
    }

    /// Writes the file at `path` (replaced if present); `progress` hears the tiles written so
    /// far. Returns how many tiles it holds.
    @discardableResult
    public func write(to path: String, from source: some TileExportSource, progress: (Int) throws -> Void = { _ in }) throws -> Int {
        try? FileManager.default.removeItem(atPath: path)
        var configuration = Configuration()
        // A new file published by rename once complete: no journal needed to protect it.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        }
        let covered = try source.extent(of: plan)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        var written = 0
        try queue.inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT NOT NULL, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB);
                    """)
            for (name, value) in metadata(tilesExtent: covered) {
                try db.execute(sql: "INSERT INTO metadata(name, value) VALUES (?, ?)", arguments: [name, value])
            }
            let insert = RawStatementBinder(
                statement: try db.makeStatement(sql: "INSERT INTO tiles(zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)"))
            try db.inTransaction {
                for level in plan.levels {
                    let last = Int64((1 << level.level) - 1)
                    for block in level.bundleBlocks {
                        try source.readTiles(level: level.level, rows: block.rows, columns: block.columns) { tile, bytes in
                            guard plan.includes(level, row: tile.row, column: tile.column) else { return }
                            try insert.execute([Int64(level.level), Int64(tile.column), last - Int64(tile.row)], blob: bytes, db: db)
                            written += 1
                        }
                        try progress(written)
                    }
                }
                return .commit
            }
            // Built after the rows: one sort instead of an index kept up row by row.
            try db.execute(sql: "CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)")
        }
        try queue.close()
        return written
    }

    /// The `metadata` rows. `bounds` is the tiles' extent (`TileExportSource.extent(of:)`):
    /// GDAL crops to it, and the area asked for may be under a pixel at the deepest level;
    /// `center` is the area asked for's.
    func metadata(tilesExtent: Envelope?) -> [(String, String)] {
        let set = description.set
        let bounds = tilesExtent.map(TilePackageDescription.degrees) ?? description.bounds
        let asked = description.bounds
        let levels = plan.levels.map(\.level)
        let minZoom = levels.min() ?? set.minZoom
        let maxZoom = levels.max() ?? set.maxZoom
        var rows: [(String, String)] = [
            ("name", set.name), ("format", set.format), ("type", "baselayer"), ("version", "1.3"),
            ("description", set.description),
            // Nine decimals (0.1 mm): GDAL crops to these, and a level-20 pixel is 15 cm.
            ("bounds", bounds.map { String(format: "%.9f", $0) }.joined(separator: ",")),
            ("center", "\(String(format: "%.6f", (asked[0] + asked[2]) / 2)),\(String(format: "%.6f", (asked[1] + asked[3]) / 2)),\(minZoom)"),
            ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)),
        ]
        if set.metadata != .null { rows.append(("json", set.metadata.jsonText)) }
        return rows
    }
}
