import Foundation
import OutpostGeoPackage
import OutpostStorage
import OutpostWire

/// A file someone handed in to be published (the portal's `publish`), and how it is read: by
/// GDAL's `ogr2ogr` in a process of its own, every driver but the one its type names skipped
/// (a VRT or a URL inside cannot send GDAL elsewhere), under a time limit, into a GeoPackage that
/// `FeatureImporter` then imports as it imports the CLI's files. A ZIP archive's directory is
/// checked first (`ZipDirectory`); a GeoPackage is opened defensively first (`UntrustedGeoPackage`).
/// GDAL reads the rest of the file in its own process.
public struct UploadedSource: Sendable, Equatable {
    public let format: PublishFileType
    /// What GDAL opens: the file, or a path inside it through `/vsizip/`.
    let gdalPath: String

    /// Checks the file at `path` for `format` before any work: a zip's directory and what it
    /// must hold (a `.shp`, a `.gdb` folder), refusing with `StoreError.importFailed`.
    public init(path: String, format: PublishFileType, limits: ZipDirectory.Limits = ZipDirectory.Limits()) throws {
        self.format = format
        guard !format.isTiles else { throw StoreError.importFailed("An MBTiles file holds tiles, not features: it becomes a tile service.") }
        guard format.isZipped else {
            if format == .geoPackage {
                do { try UntrustedGeoPackage.check(path) } catch {
                    switch error {
                    case .invalid(let reason): throw StoreError.importFailed("The GeoPackage cannot be published: \(reason).")
                    case .unreadable(let reason): throw StoreError.importFailed("The file is not a readable GeoPackage: \(reason).")
                    }
                }
            } else if Self.isSQLite(path) {
                // GDAL's GPKG driver (kept: it writes the scratch file) takes a SQLite file by its
                // header whatever its name, and loads SpatiaLite, whose virtual tables read other
                // files: a GeoPackage is published as one, after its check, or not at all.
                throw StoreError.importFailed("The file is a SQLite database, not \(format.itemType): publish a GeoPackage as a GeoPackage.")
            }
            gdalPath = path
            return
        }
        let directory: ZipDirectory
        do { directory = try ZipDirectory(path: path, limits: limits) } catch let refusal as ZipDirectory.Refusal {
            throw StoreError.importFailed(refusal.description)
        }
        let names = directory.entries.map(\.name)
        switch format {
        case .shapefile:
            // A Shapefile is a .shp with its .dbf at least: GDAL then opens the archive as a
            // folder (an archive of one file GDAL would open as that file, by any driver left).
            guard names.contains(where: { $0.lowercased().hasSuffix(".shp") }), names.contains(where: { $0.lowercased().hasSuffix(".dbf") }) else {
                throw StoreError.importFailed("The ZIP archive holds no Shapefile (a .shp with its .dbf).")
            }
            gdalPath = "/vsizip/{" + path + "}"
        default:
            // The geodatabase is the folder whose name ends in .gdb, at any depth.
            let folders = Set(
                names.compactMap { name -> String? in
                    let parts = name.split(separator: "/")
                    guard let index = parts.firstIndex(where: { $0.lowercased().hasSuffix(".gdb") }), index < parts.count - 1 || name.hasSuffix("/")
                    else { return nil }
                    return parts[...index].joined(separator: "/")
                })
            guard let folder = folders.sorted().first else {
                throw StoreError.importFailed("The ZIP archive holds no File Geodatabase (.gdb folder).")
            }
            guard folders.count == 1 else {
                throw StoreError.importFailed("The ZIP archive holds \(folders.count) File Geodatabases: publish one at a time.")
            }
            gdalPath = "/vsizip/{" + path + "}/" + folder
        }
    }
}

extension UploadedSource {
    /// Whether the file starts as every SQLite database does.
    static func isSQLite(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        return (try? file.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }
}

/// An upload GDAL has converted: the scratch GeoPackage (the caller removes it) and a File
/// Geodatabase's relationship classes.
public struct ConvertedUpload: Sendable {
    public let path: String
    let catalog: GeodatabaseCatalog
}

extension UploadedSource {
    /// GDAL converts the file (within `timeLimit`) into a scratch GeoPackage in
    /// `scratchDirectory`; `progress` hears GDAL's percentage. Only this runs on the caller's
    /// task: the import that follows (`FeatureImporter.importConverted`) is blocking work.
    /// Errors name the file as `displayName`, never by where the server keeps it.
    public func convert(
        displayName: String, scratchDirectory: String, srs: Int?, csvCoordinates: (longitude: String, latitude: String)? = nil,
        timeLimit: Duration, progress: @escaping @Sendable (Int) -> Void
    ) async throws -> ConvertedUpload {
        try FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
        let scratch = (scratchDirectory as NSString).appendingPathComponent("publish-\(UUID().uuidString)")
        let converted = scratch + ".gpkg"
        do {
            let catalog =
                format == .fileGeodatabase
                ? try await GDALSource.geodatabaseCatalog(gdalPath, scratch: scratch + "-items.gpkg", onlyDriver: format.driver, timeLimit: timeLimit)
                : GeodatabaseCatalog()
            try await GDALSource.convert(
                gdalPath, to: converted, srs: srs, csv: format == .csv, csvCoordinates: csvCoordinates, onlyDriver: format.driver,
                timeLimit: timeLimit, progress: progress)
            return ConvertedUpload(path: converted, catalog: catalog)
        } catch StoreError.importFailed(let reason) {
            try? FileManager.default.removeItem(atPath: converted)
            throw StoreError.importFailed(reason.replacingOccurrences(of: gdalPath, with: displayName))
        } catch {
            try? FileManager.default.removeItem(atPath: converted)
            throw error
        }
    }
}

extension FeatureImporter {
    /// Imports an upload GDAL converted, as the CLI imports a GeoPackage (blocking);
    /// `options.progress` hears each table's rows. Errors name the file as `displayName`.
    @discardableResult
    public func importConverted(_ converted: ConvertedUpload, displayName: String, options: Options) throws -> StoredService {
        do { return try importGeoPackage(at: converted.path, options: options, catalog: converted.catalog) } catch StoreError.importFailed(let reason)
        {
            throw StoreError.importFailed(reason.replacingOccurrences(of: converted.path, with: displayName))
        }
    }
}

extension PublishFileType {
    /// GDAL's driver for it, the only one `ogr2ogr` may use.
    var driver: String {
        switch self {
        case .shapefile: "ESRI Shapefile"
        case .fileGeodatabase: "OpenFileGDB"
        case .csv: "CSV"
        case .geojson: "GeoJSON"
        case .geoPackage: "GPKG"
        case .kml: "KML"
        // Never read by GDAL (`TilePublishWork` rebuilds it); no driver may open it.
        case .mbtiles: "MBTiles"
        }
    }
}
