import Foundation
import GRDB
import OutpostStorage
import OutpostTileFiles
import OutpostWire

/// Tile sets listed in `outpost_tile_sets`, their MBTiles files under `tiles/` in the data
/// folder (`MBTilesFolder`).
public struct SpatiaLiteTileSets: MBTilesTileSets, StoreRepository {
    public let database: StoreDatabase
    public let files: MBTilesFolder

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
        do {
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO outpost_tile_sets(name, kind, format, min_zoom, max_zoom, bounds, description, metadata, created, file)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        set.name, set.kind.rawValue, set.format, set.minZoom, set.maxZoom, set.storedBounds, set.description,
                        set.metadata.jsonText, set.created, file,
                    ])
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // Another request listed the name first (two publishes at once): its file stays, this one goes.
            files.remove(file: file)
            throw TileSetFailure.exists(name)
        } catch {
            files.remove(file: file)
            throw error
        }
        if let styleResources { _ = try addStyleResources(set: set.name, from: styleResources) }
        return set
    }

    /// A set's file name, or a not-found failure.
    public func file(of set: String) throws -> String {
        let file = try pool.read { db in try String.fetchOne(db, sql: "SELECT file FROM outpost_tile_sets WHERE name = ?", arguments: [set]) }
        guard let file else { throw StoreError.serviceNotFound(set) }
        return file
    }

    public func unlist(_ set: String) throws -> String {
        let file = try pool.write { db in
            try String.fetchOne(db, sql: "DELETE FROM outpost_tile_sets WHERE name = ? RETURNING file", arguments: [set])
        }
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
