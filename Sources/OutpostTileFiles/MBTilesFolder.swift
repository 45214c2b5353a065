import Foundation
import GRDB
import OutpostSQLite
import OutpostStorage
import OutpostWire
import Synchronization

/// Tile sets' MBTiles files in a folder (`tiles/` of the data folder), whichever database
/// lists them: a file is copied in under a temporary name and renamed, then read through a
/// few read-only connections of its own, opened on first use and kept (tiles never change
/// after import). The server keeps the tiles it served in memory (`TileCache`), so these
/// reads are its cache misses. A set's style resources are a folder beside its file.
public struct MBTilesFolder: Sendable {
    public let directory: String
    let readers: TileReaders

    public init(directory: String) {
        self.directory = directory
        readers = TileReaders()
    }

    public func path(of file: String) -> String { (directory as NSString).appendingPathComponent(file) }

    /// Checks an MBTiles file, copies it in and describes it; the caller lists the set under
    /// `file` (and removes the file when that fails).
    public func adopt(
        mbtiles path: String, name: String, description: String?, styleResources: String?, created: Int64
    ) throws -> (set: TileSet, file: String) {
        guard ServiceDefinition.isValidName(name) else { throw TileSetFailure.invalidName(name) }
        let metadata = try Self.metadata(of: path)
        guard let format = metadata["format"]?.lowercased(), ["png", "jpg", "jpeg", "webp", "pbf"].contains(format) else {
            throw TileSetFailure.unreadable("its format is '\(metadata["format"] ?? "")' (png, jpg, webp or pbf)")
        }
        if let styleResources {
            guard format == "pbf" else { throw TileSetFailure.unreadable("style resources go with a vector tile set (format pbf)") }
            guard !Self.styleResourcePaths(in: styleResources).isEmpty else {
                throw TileSetFailure.unreadable("\(styleResources) holds no style resources (styles/root.json, sprites/, fonts/)")
            }
        }
        let file = "\(created)-\(name.replacingOccurrences(of: "/", with: "__")).mbtiles"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let destination = self.path(of: file)
        try? FileManager.default.removeItem(atPath: destination + ".partial")
        try FileManager.default.copyItem(atPath: path, toPath: destination + ".partial")
        guard rename(destination + ".partial", destination) == 0 else { throw TileSetFailure.unreadable("could not store it") }
        let zooms = try DatabaseQueue(path: destination, configuration: Self.readOnly).read { db in
            try Row.fetchOne(db, sql: "SELECT min(zoom_level) AS low, max(zoom_level) AS high FROM tiles")
        }
        // The metadata's levels only within 0–30 and in order (a made-up `maxzoom` sized every
        // level list the services build); otherwise the tiles' own.
        let levels =
            Self.levels(minZoom: metadata["minzoom"], maxZoom: metadata["maxzoom"])
            ?? zooms.flatMap { zooms in
                Self.levels(minZoom: (zooms["low"] as Int?).map(String.init), maxZoom: (zooms["high"] as Int?).map(String.init))
            }
        guard let levels else {
            try? FileManager.default.removeItem(atPath: destination)
            throw TileSetFailure.unreadable("its levels are not between 0 and 30")
        }
        let bounds = metadata["bounds"].map { $0.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        let set = TileSet(
            name: name, kind: format == "pbf" ? .vector : .raster, format: format == "jpeg" ? "jpg" : format,
            minZoom: levels.lowerBound, maxZoom: levels.upperBound,
            bounds: bounds?.count == 4 ? bounds! : [-180, -85.0511, 180, 85.0511],
            description: description ?? metadata["description"] ?? metadata["name"] ?? "",
            metadata: metadata["json"].flatMap { try? JSONParser.parse($0) } ?? .null, created: created)
        return (set, file)
    }

    public func tile(file: String, level: Int, row: Int, column: Int) throws -> [UInt8]? {
        // MBTiles counts rows from the bottom (TMS).
        let tmsRow = (1 << level) - 1 - row
        return try readers.reader(for: path(of: file)).read { db in
            try Data.fetchOne(
                db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                arguments: [level, column, tmsRow]
            ).map { [UInt8]($0) }
        }
    }

    public func tilesPresent(file: String, level: Int, row: Int, column: Int, height: Int, width: Int) throws -> [[Bool]] {
        let size = 1 << level
        let (top, bottom) = (size - 1 - row, size - row - height)
        let present = try readers.reader(for: path(of: file)).read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT tile_column, tile_row FROM tiles WHERE zoom_level = ? AND tile_column BETWEEN ? AND ? AND tile_row BETWEEN ? AND ?
                    """, arguments: [level, column, column + width - 1, bottom, top]
            ).map { (row: size - 1 - ($0["tile_row"] as Int), column: $0["tile_column"] as Int) }
        }
        var grid = Array(repeating: Array(repeating: false, count: width), count: height)
        for tile in present where (row..<row + height).contains(tile.row) && (column..<column + width).contains(tile.column) {
            grid[tile.row - row][tile.column - column] = true
        }
        return grid
    }

    public func tileSizes(file: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile] {
        var sizes: [StoredTile] = []
        try scan(file: file, level: level, rows: rows, columns: columns, column: "length(tile_data)") { tile, reader in
            sizes.append(StoredTile(row: tile.row, column: tile.column, byteCount: Int(reader.int64(2))))
        }
        return sizes
    }

    public func readTiles(
        file: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try scan(file: file, level: level, rows: rows, columns: columns, column: "tile_data") { tile, reader in
            try reader.withBlob(2) { bytes in try body(StoredTile(row: tile.row, column: tile.column, byteCount: bytes.count), bytes) }
        }
    }

    /// Steps through a block's tiles in the tiles index's order (column, then TMS row), so
    /// both passes of an export see them alike and SQLite sorts nothing.
    private func scan(
        file: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, column: String,
        _ body: ((row: Int, column: Int), RawRowReader) throws -> Void
    ) throws {
        let last = (1 << level) - 1
        try readers.reader(for: path(of: file)).read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT tile_column, tile_row, \(column) FROM tiles
                    WHERE zoom_level = ? AND tile_column BETWEEN ? AND ? AND tile_row BETWEEN ? AND ?
                    ORDER BY tile_column, tile_row
                    """)
            let reader = try RawRowReader(
                statement: statement,
                arguments: [level, columns.lowerBound, columns.upperBound, last - rows.upperBound, last - rows.lowerBound])
            while try reader.step(db: db) {
                try body((last - Int(reader.int64(1)), Int(reader.int64(0))), reader)
            }
        }
    }

    /// Levels from text, when both are integers within 0–30 and the first is not past the second.
    static func levels(minZoom: String?, maxZoom: String?) -> ClosedRange<Int>? {
        guard let low = minZoom.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
            let high = maxZoom.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), 0 <= low, low <= high, high <= 30
        else { return nil }
        return low...high
    }

    static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// An MBTiles file's `metadata` table, read defensively (read only).
    public static func metadata(of path: String) throws -> [String: String] {
        do {
            return try DatabaseQueue(path: path, configuration: readOnly).read { db in
                // A view too: mbutil's files, and the ones `UntrustedMBTiles` rebuilds, are deduplicated.
                guard try db.tableExists("tiles") || db.viewExists("tiles") else { throw TileSetFailure.unreadable("it has no tiles table") }
                var values: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata") {
                    if let name: String = row["name"], let value: String = row["value"] { values[name.lowercased()] = value }
                }
                return values
            }
        } catch let failure as TileSetFailure {
            throw failure
        } catch {
            throw TileSetFailure.unreadable("\(error)")
        }
    }
}

/// Read-only connections to tile files, a few per file, handed out in turn.
final class TileReaders: Sendable {
    static let connectionsPerFile = 4
    private let open = Mutex<[String: (queues: [DatabaseQueue], next: Int)]>([:])

    func reader(for file: String) throws -> DatabaseQueue {
        try open.withLock { open in
            if var entry = open[file] {
                entry.next = (entry.next + 1) % entry.queues.count
                open[file] = entry
                return entry.queues[entry.next]
            }
            let queues = try (0..<Self.connectionsPerFile).map { _ in try DatabaseQueue(path: file, configuration: MBTilesFolder.readOnly) }
            open[file] = (queues, 0)
            return queues[0]
        }
    }

    /// Drops the file's connections: each closes when the last read holding it ends.
    func forget(_ file: String) {
        _ = open.withLock { $0.removeValue(forKey: file) }
    }
}
