import Foundation
import OutpostStorage

/// Any vector source GDAL reads (a File Geodatabase folder, a Shapefile, CSV with X/Y or WKT
/// columns, KML, GPX, a `PG:` connection string…), turned into a GeoPackage by GDAL's own
/// `ogr2ogr` for `FeatureImporter` to import. `ogr2ogr` keeps what the GeoPackage can say:
/// field domains (as the schema extension's constraints), layers and their spatial references.
///
/// The command rather than the library: one process boundary, no link to a large C API and its
/// version, and every driver of the installed GDAL (docs/import.md weighs the two).
enum GDALSource {
    /// Whether `path` is for GDAL: not a format Outpost reads itself.
    static func handles(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return ![".gpkg", ".geojson", ".json", ".mbtiles"].contains { lowered.hasSuffix($0) }
    }

    /// Writes `source` into a new GeoPackage at `target`, reprojected to EPSG `srs` when given.
    static func convert(_ source: String, to target: String, srs: Int? = nil) throws {
        var arguments = ["ogr2ogr", "-f", "GPKG", target, source]
        if source.lowercased().hasSuffix(".csv") {
            // Coordinates from the usual column names, or WKT; the columns' types guessed from their values.
            arguments += [
                "-oo", "X_POSSIBLE_NAMES=x,lon,lng,long,longitude,easting", "-oo", "Y_POSSIBLE_NAMES=y,lat,latitude,northing",
                "-oo", "GEOM_POSSIBLE_NAMES=wkt,geometry,geom,the_geom", "-oo", "KEEP_GEOM_COLUMNS=NO", "-oo", "AUTODETECT_TYPE=YES",
            ]
        }
        if source.lowercased().hasSuffix(".csv") {
            // A CSV file says nothing of its coordinates: they are WGS 84, as their column names
            // (longitude, latitude) say; reprojecting needs that said.
            arguments += srs.map { ["-s_srs", "EPSG:4326", "-t_srs", "EPSG:\($0)"] } ?? ["-a_srs", "EPSG:4326"]
        } else if let srs {
            arguments += ["-t_srs", "EPSG:\(srs)"]
        }
        try run(Array(arguments.dropFirst()), what: "read \(source)")
    }

    /// Runs `ogr2ogr` with `arguments`; a failure says what it was to `what`.
    static func run(_ arguments: [String], what: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ogr2ogr"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw StoreError.importFailed("cannot run ogr2ogr (GDAL's command-line tools, Debian's gdal-bin): \(error)")
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            if process.terminationStatus == 127 {
                throw StoreError.importFailed("GDAL's ogr2ogr is needed to \(what) (Debian: apt install gdal-bin)")
            }
            throw StoreError.importFailed("GDAL could not \(what): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}
