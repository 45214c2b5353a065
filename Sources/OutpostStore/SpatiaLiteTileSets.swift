import Foundation
import GRDB
import OutpostStorage
import OutpostTileFiles
import OutpostWire

/// Tile sets listed in `outpost_tile_sets`, their MBTiles files under `tiles/` in the data
/// folder (`MBTilesFolder`).
public struct SpatiaLiteTileSets: TileSetStore, StoreRepository {
    public let database: StoreDatabase
    let files: MBTilesFolder

    init(database: StoreDatabase) {
        self.database = database
        files = MBTilesFolder(directory: (database.directory as NSString).appendingPathComponent("tiles"))
    }

    public func tileSets() throws -> [TileSet] {
        try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM outpost_tile_sets ORDER BY name").map(Self.tileSet) }
    }

    public func tileSet(named name: String) throws -> TileSet? {
        try pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM outpost_tile_sets WHERE name = ?", arguments: [name]).map(Self.tileSet) }
    }

    public func addTileSet(mbtiles path: String, name: String, description: String?, styleResources: String?) throws -> TileSet {
        guard ServiceDefinition.isValidName(name) else { throw TileSetFailure.invalidName(name) }
        guard try tileSet(named: name) == nil else { throw TileSetFailure.exists(name) }
        let (set, file) = try files.adopt(
            mbtiles: path, name: name, description: description, styleResources: styleResources, created: clock.milliseconds())
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outpost_tile_sets(name, kind, format, min_zoom, max_zoom, bounds, description, metadata, created, file)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    set.name, set.kind.rawValue, set.format, set.minZoom, set.maxZoom, set.storedBounds, set.description, set.metadata.jsonText,
                    set.created, file,
                ])
        }
        if let styleResources { _ = try addStyleResources(set: set.name, from: styleResources) }
        return set
    }

    public func tile(set: String, level: Int, row: Int, column: Int) throws -> [UInt8]? {
        try files.tile(file: try file(of: set), level: level, row: row, column: column)
    }

    public func tilesPresent(set: String, level: Int, row: Int, column: Int, height: Int, width: Int) throws -> [[Bool]] {
        try files.tilesPresent(file: try file(of: set), level: level, row: row, column: column, height: height, width: width)
    }

    public func tileSizes(set: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile] {
        try files.tileSizes(file: try file(of: set), level: level, rows: rows, columns: columns)
    }

    public func readTiles(
        set: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try files.readTiles(file: try file(of: set), level: level, rows: rows, columns: columns, body)
    }

    public func addStyleResources(set: String, from directory: String) throws -> [String] {
        try files.addStyleResources(file: try file(of: set), from: directory)
    }

    public func styleResource(set: String, path: String) throws -> [UInt8]? {
        try files.styleResource(file: try file(of: set), path: path)
    }

    /// A set's file name, or a not-found failure.
    func file(of set: String) throws -> String {
        let file = try pool.read { db in try String.fetchOne(db, sql: "SELECT file FROM outpost_tile_sets WHERE name = ?", arguments: [set]) }
        guard let file else { throw StoreError.serviceNotFound(set) }
        return file
    }

    private static func tileSet(_ row: Row) -> TileSet {
        TileSet(
            name: row["name"], kind: TileSet.Kind(rawValue: row["kind"]) ?? .raster, format: row["format"], minZoom: row["min_zoom"],
            maxZoom: row["max_zoom"], bounds: TileSet.storedBounds(row["bounds"]), description: row["description"],
            metadata: (try? JSONParser.parse(row["metadata"] as String)) ?? .null, created: row["created"])
    }
}
