import Foundation
import GRDB
import OutpostWire

/// Why a GeoPackage's tiles cannot become a tile service.
public enum GeoPackageTileFailure: Error, Equatable, CustomStringConvertible {
    case noTiles
    case severalTileTables([String])
    case notWebMercatorTiling(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .noTiles: "the GeoPackage has no tiles (gpkg_contents lists no 'tiles' table)"
        case .severalTileTables(let names): "the GeoPackage has several tile tables (\(names.joined(separator: ", "))); name one with --table"
        case .notWebMercatorTiling(let reason):
            "its tiles are not in the Web Mercator tiling tile services use (\(reason)); GDAL makes one with -co TILING_SCHEME=GoogleMapsCompatible"
        case .unreadable(let reason): "not a GeoPackage this server can read: \(reason)"
        }
    }
}

/// A GeoPackage tile pyramid (OGC GeoPackage §2.2) copied into an MBTiles file, tile bytes
/// unchanged, so it is served like any imported MBTiles (docs/tiles.md, "Adding tile sets").
///
/// Only the tiling MBTiles and ArcGIS share is taken: EPSG:3857, 256-pixel tiles, the tile
/// matrix set covering the world, each matrix `2^z` tiles wide — what GDAL writes with
/// `TILING_SCHEME=GoogleMapsCompatible`. The GeoPackage's zoom levels may be numbered from any
/// level; the web zoom follows from each matrix's width.
public enum GeoPackageTileImport {
    /// Writes `destination` (MBTiles) from the tile table `table` (the only one when nil) of
    /// `geopackage`; returns the table copied.
    @discardableResult
    public static func convert(geopackage path: String, table: String? = nil, to destination: String) throws -> String {
        var configuration = Configuration()
        configuration.readonly = true
        let source: DatabaseQueue
        do { source = try DatabaseQueue(path: path, configuration: configuration) } catch { throw GeoPackageTileFailure.unreadable("\(error)") }
        return try source.read { db in
            guard try db.tableExists("gpkg_contents"), try db.tableExists("gpkg_tile_matrix") else { throw GeoPackageTileFailure.noTiles }
            let tables = try String.fetchAll(db, sql: "SELECT table_name FROM gpkg_contents WHERE data_type = 'tiles' ORDER BY table_name")
            let chosen: String
            if let table {
                guard let found = tables.first(where: { $0.caseInsensitiveCompare(table) == .orderedSame }) else {
                    throw GeoPackageTileFailure.noTiles
                }
                chosen = found
            } else {
                guard let only = tables.first else { throw GeoPackageTileFailure.noTiles }
                guard tables.count == 1 else { throw GeoPackageTileFailure.severalTileTables(tables) }
                chosen = only
            }
            let zooms = try webZooms(db, table: chosen)
            try copy(db, table: chosen, zooms: zooms, name: chosen, to: destination)
            return chosen
        }
    }

    /// Whether a GeoPackage holds tiles and no features or attribute tables.
    public static func holdsOnlyTiles(_ path: String) throws -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        let types = try DatabaseQueue(path: path, configuration: configuration).read { db in
            try db.tableExists("gpkg_contents") ? try String.fetchAll(db, sql: "SELECT DISTINCT data_type FROM gpkg_contents") : []
        }
        return types.contains("tiles") && !types.contains("features") && !types.contains("attributes")
    }

    /// The web zoom of each GeoPackage zoom level, after checking the tiling is the web's.
    static func webZooms(_ db: Database, table: String) throws -> [Int: Int] {
        guard
            let set = try Row.fetchOne(
                db,
                sql: """
                    SELECT s.min_x, s.min_y, s.max_x, s.max_y, r.organization, r.organization_coordsys_id
                    FROM gpkg_tile_matrix_set s JOIN gpkg_spatial_ref_sys r ON r.srs_id = s.srs_id WHERE s.table_name = ?
                    """, arguments: [table])
        else { throw GeoPackageTileFailure.notWebMercatorTiling("no tile matrix set") }
        let code: Int = set["organization_coordsys_id"]
        guard (set["organization"] as String?)?.uppercased() == "EPSG", code == 3857 else {
            throw GeoPackageTileFailure.notWebMercatorTiling("its spatial reference is not EPSG:3857")
        }
        let half = WebMercatorTiling.halfWorld
        let bounds: [Double] = [set["min_x"], set["min_y"], set["max_x"], set["max_y"]]
        guard zip(bounds, [-half, -half, half, half]).allSatisfy({ abs($0 - $1) < 1 }) else {
            throw GeoPackageTileFailure.notWebMercatorTiling("its tile matrix set does not cover the world")
        }
        var zooms: [Int: Int] = [:]
        for matrix in try Row.fetchAll(
            db, sql: "SELECT zoom_level, matrix_width, matrix_height, tile_width, tile_height FROM gpkg_tile_matrix WHERE table_name = ?",
            arguments: [table])
        {
            let width: Int = matrix["matrix_width"]
            let webZoom = width.trailingZeroBitCount
            guard width > 0, width == 1 << webZoom, matrix["matrix_height"] == width, matrix["tile_width"] == 256, matrix["tile_height"] == 256
            else { throw GeoPackageTileFailure.notWebMercatorTiling("zoom level \(matrix["zoom_level"] as Int) is not 2^z tiles of 256 pixels") }
            zooms[matrix["zoom_level"]] = webZoom
        }
        guard !zooms.isEmpty else { throw GeoPackageTileFailure.noTiles }
        return zooms
    }

    private static func copy(_ db: Database, table: String, zooms: [Int: Int], name: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        let target = try DatabaseQueue(path: destination)
        let quoted = "\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\""
        let format =
            try Data.fetchOne(db, sql: "SELECT tile_data FROM \(quoted) LIMIT 1").map { $0.starts(with: [0xFF, 0xD8]) ? "jpg" : "png" } ?? "png"
        let description = try String.fetchOne(db, sql: "SELECT description FROM gpkg_contents WHERE table_name = ?", arguments: [table]) ?? ""
        try target.write { out in
            try out.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                    """)
            let levels = zooms.values
            if let extent = try Row.fetchOne(
                db, sql: "SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?", arguments: [table]),
                let minX = extent["min_x"] as Double?, let minY = extent["min_y"] as Double?, let maxX = extent["max_x"] as Double?,
                let maxY = extent["max_y"] as Double?, minX < maxX, minY < maxY
            {
                let low = WebMercatorTiling.unproject(x: minX, y: minY)
                let high = WebMercatorTiling.unproject(x: maxX, y: maxY)
                try out.execute(
                    sql: "INSERT INTO metadata VALUES ('bounds', ?)",
                    arguments: ["\(low.longitude),\(low.latitude),\(high.longitude),\(high.latitude)"])
            }
            for (key, value) in [
                ("name", name), ("format", format), ("type", "baselayer"), ("description", description),
                ("minzoom", String(levels.min() ?? 0)), ("maxzoom", String(levels.max() ?? 0)),
            ] {
                try out.execute(sql: "INSERT INTO metadata VALUES (?, ?)", arguments: [key, value])
            }
            let rows = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM \(quoted)")
            while let row = try rows.next() {
                guard let zoom = zooms[row["zoom_level"]] else { continue }
                // GeoPackage rows count from the top, MBTiles rows from the bottom.
                let tmsRow = (1 << zoom) - 1 - (row["tile_row"] as Int)
                try out.execute(
                    sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [zoom, row["tile_column"] as Int, tmsRow, row["tile_data"] as Data])
            }
        }
        try target.close()
    }
}
