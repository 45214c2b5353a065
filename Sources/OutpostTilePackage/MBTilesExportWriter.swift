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
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        var written = 0
        try queue.inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT NOT NULL, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB);
                    """)
            for (name, value) in metadata {
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

    /// The `metadata` rows.
    var metadata: [(String, String)] {
        let set = description.set
        let bounds = description.bounds
        let levels = plan.levels.map(\.level)
        let minZoom = levels.min() ?? set.minZoom
        let maxZoom = levels.max() ?? set.maxZoom
        var rows: [(String, String)] = [
            ("name", set.name), ("format", set.format), ("type", "baselayer"), ("version", "1.3"),
            ("description", set.description),
            ("bounds", bounds.map { String(format: "%.6f", $0) }.joined(separator: ",")),
            ("center", "\(String(format: "%.6f", (bounds[0] + bounds[2]) / 2)),\(String(format: "%.6f", (bounds[1] + bounds[3]) / 2)),\(minZoom)"),
            ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)),
        ]
        if set.metadata != .null { rows.append(("json", set.metadata.jsonText)) }
        return rows
    }
}
