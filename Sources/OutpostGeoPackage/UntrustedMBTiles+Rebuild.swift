import Foundation
import GRDB

extension UntrustedMBTiles {
    /// Copies the file's checked tiles and metadata into a new MBTiles file at `destination`
    /// (which must not exist); `progress` hears the tiles copied so far. Returns the count.
    ///
    /// The new file keeps each image once, in mbutil's layout (`images`, `map`, and `tiles`
    /// a view over them, which the tile services read as any `tiles`): an mbutil file's shared
    /// images stay shared, so a basemap whose ocean is one image repeated is taken at its
    /// own size, and every image's bytes are read, and counted against the file's size, once.
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
                try output.writeWithoutTransaction { out in try out.execute(sql: rebuiltSchema) }
                var copied = 0
                try output.inTransaction { out in
                    for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
                        try out.execute(sql: "INSERT INTO metadata (name, value) VALUES (?, ?)", arguments: [name, value])
                    }
                    let writer = try RebuiltTiles(out)
                    let counted = { (count: Int) in
                        copied = count
                        if count % 1_000 == 0 { progress(count) }
                    }
                    switch layout {
                    case .table: try copyTable(db, into: writer, format: format, budget: budget, counted: counted)
                    case .mapAndImages: try copyMapAndImages(db, into: writer, format: format, budget: budget, counted: counted)
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

    /// The rebuilt file's schema: the server's own, so views are fine in it.
    static let rebuiltSchema = """
        PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
        CREATE TABLE metadata (name TEXT NOT NULL, value TEXT NOT NULL);
        CREATE TABLE images (tile_id INTEGER PRIMARY KEY, tile_data BLOB NOT NULL);
        CREATE TABLE map (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_id INTEGER NOT NULL);
        CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
        CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row,
            images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;
        """

    /// A `tiles` table: each row's place and bytes checked, its bytes an image of their own.
    private static func copyTable(
        _ db: Database, into writer: RebuiltTiles, format: String, budget: ReadBudget, counted: (Int) -> Void
    ) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")
        var count = 0
        while let row = try rows.next() {
            let place = try TilePlace(row)
            let image = try writer.addImage(try checkedImage(row[3], format: format, budget: budget, place: place.description))
            try writer.addTile(place, image: image)
            count += 1
            counted(count)
        }
    }

    /// mbutil's `images` and `map`: each image checked and copied once, then each place
    /// pointing at it; images no place points at are dropped from the copy. A place whose image
    /// is missing has no bytes. Both are read in plain scans, ids counted against the budget:
    /// a join or `IN` would have SQLite index the file's values (a column's default can make
    /// each of them as long as the file) before a byte is counted.
    private static func copyMapAndImages(
        _ db: Database, into writer: RebuiltTiles, format: String, budget: ReadBudget, counted: (Int) -> Void
    ) throws {
        func key(_ value: DatabaseValue) throws -> DatabaseValue {
            switch value.storage {
            case .string(let text): try budget.spend(text.utf8.count)
            case .blob(let data): try budget.spend(data.count)
            case .int64, .double, .null: try budget.spend(8)
            }
            return value
        }
        var images: [DatabaseValue: Int64] = [:]
        let stored = try Row.fetchCursor(db, sql: "SELECT tile_id, tile_data FROM images")
        while let row = try stored.next() {
            let id = try key(row[0])
            guard images[id] == nil else { throw ReplicaChanges.Failure.invalid("image \(String(describing: id).prefix(40)) appears twice") }
            images[id] = try writer.addImage(try checkedImage(row[1], format: format, budget: budget, place: "an image"))
        }
        let places = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_id FROM map")
        var count = 0
        while let row = try places.next() {
            let place = try TilePlace(row)
            guard let image = images[try key(row[3])] else { throw ReplicaChanges.Failure.invalid("\(place) has no bytes") }
            try writer.addTile(place, image: image)
            count += 1
            counted(count)
        }
        try writer.dropUnusedImages()
    }

    /// A tile's bytes, checked: a blob, not empty, within `maximumTileBytes`, of the set's
    /// format, and counted against the file's own size.
    static func checkedImage(_ value: DatabaseValue, format: String, budget: ReadBudget, place: String) throws -> Data {
        guard case .blob(let data) = value.storage, !data.isEmpty else { throw ReplicaChanges.Failure.invalid("\(place) has no bytes") }
        try budget.spend(data.count)
        guard data.count <= maximumTileBytes else {
            throw ReplicaChanges.Failure.invalid("\(place) is larger than \(maximumTileBytes >> 20) MiB")
        }
        guard matches(data, format: format) else { throw ReplicaChanges.Failure.invalid("\(place) is not a \(format) tile") }
        return data
    }

    /// Whether the bytes start as the format's do. Raster sets are served with their format's
    /// type, so any image is taken (sets mixing PNG and JPEG exist); a vector tile is gzipped
    /// or starts with its `layers` field (3, length-delimited).
    static func matches(_ data: Data, format: String) -> Bool {
        let head = [UInt8](data.prefix(12))
        if format == "pbf" { return head.starts(with: [0x1f, 0x8b]) || head.first == 0x1a }
        let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        let webp = head.count == 12 && head.starts(with: Array("RIFF".utf8)) && Array(head[8..<12]) == Array("WEBP".utf8)
        return head.starts(with: png) || head.starts(with: [0xff, 0xd8, 0xff]) || webp
    }
}

/// The rebuilt file's two inserts.
private struct RebuiltTiles {
    let db: Database
    let image: Statement
    let tile: Statement

    init(_ db: Database) throws {
        self.db = db
        image = try db.makeStatement(sql: "INSERT INTO images (tile_data) VALUES (?)")
        tile = try db.makeStatement(sql: "INSERT INTO map VALUES (?, ?, ?, ?)")
    }

    func addImage(_ data: Data) throws -> Int64 {
        try image.execute(arguments: [data])
        return db.lastInsertedRowID
    }

    func dropUnusedImages() throws {
        try db.execute(sql: "DELETE FROM images WHERE tile_id NOT IN (SELECT tile_id FROM map)")
    }

    func addTile(_ place: TilePlace, image: Int64) throws {
        do {
            try tile.execute(arguments: [place.level, place.column, place.row, image])
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw ReplicaChanges.Failure.invalid("\(place) appears twice")
        }
    }
}
