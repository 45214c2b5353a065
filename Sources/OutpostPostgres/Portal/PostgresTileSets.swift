import Foundation
import OutpostStorage
import OutpostSync
import OutpostTileFiles
import OutpostWire

/// Tile sets on PostgreSQL (`TileSetStore`): listed in `outpost_tile_sets`, their MBTiles
/// files in the data folder's `tiles/` (`MBTilesFolder`), as on SpatiaLite.
public struct PostgresTileSets: MBTilesTileSets {
    let pool: PostgresPool
    public let files: MBTilesFolder
    let clock: any WallClock

    static let columns = "name, kind, format, min_zoom, max_zoom, bounds, description, metadata, created"

    public func tileSets() throws -> [TileSet] {
        try pool.query("SELECT \(unescaped: Self.columns) FROM outpost_tile_sets ORDER BY lower(name) COLLATE \"C\"").rows.map(Self.tileSet)
    }

    public func tileSet(named name: String) throws -> TileSet? {
        try pool.query("SELECT \(unescaped: Self.columns) FROM outpost_tile_sets WHERE lower(name) = lower(\(name))").first.map(Self.tileSet)
    }

    public func addTileSet(mbtiles path: String, name: String, description: String?, styleResources: String?) throws -> TileSet {
        guard ServiceDefinition.isValidName(name) else { throw TileSetFailure.invalidName(name) }
        guard try tileSet(named: name) == nil else { throw TileSetFailure.exists(name) }
        let (set, file) = try files.adopt(
            mbtiles: path, name: name, description: description, styleResources: styleResources, created: clock.milliseconds())
        do {
            try pool.query(
                """
                INSERT INTO outpost_tile_sets(\(unescaped: Self.columns), file)
                VALUES (\(set.name), \(set.kind.rawValue), \(set.format), \(set.minZoom), \(set.maxZoom), \(set.storedBounds),
                    \(set.description), \(set.metadata.jsonText), \(set.created), \(file))
                """)
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            // Another process listed the name first.
            files.remove(file: file)
            throw TileSetFailure.exists(name)
        }
        if let styleResources { _ = try addStyleResources(set: set.name, from: styleResources) }
        return set
    }

    /// A set's file name, or a not-found failure.
    public func file(of set: String) throws -> String {
        guard let file = try pool.query("SELECT file FROM outpost_tile_sets WHERE lower(name) = lower(\(set))").first?.string(0) else {
            throw StoreError.serviceNotFound(set)
        }
        return file
    }

    public func unlist(_ set: String) throws -> String {
        guard let file = try pool.query("DELETE FROM outpost_tile_sets WHERE lower(name) = lower(\(set)) RETURNING file").first?.string(0) else {
            throw StoreError.serviceNotFound(set)
        }
        return file
    }

    private static func tileSet(_ row: PostgresRow) throws -> TileSet {
        TileSet(
            name: try row.required(0, row.string), kind: row.string(1).flatMap(TileSet.Kind.init(rawValue:)) ?? .raster,
            format: try row.required(2, row.string), minZoom: try row.required(3, row.int), maxZoom: try row.required(4, row.int),
            bounds: TileSet.storedBounds(row.string(5)), description: row.string(6) ?? "",
            metadata: row.string(7).flatMap { try? JSONParser.parse($0) } ?? .null, created: try row.required(8, row.int64))
    }
}
