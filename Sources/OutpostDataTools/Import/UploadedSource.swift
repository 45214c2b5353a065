import Foundation
import OutpostStorage
import OutpostWire

/// A file someone handed in to be published (the portal's `publish`), and how it is read: by
/// GDAL's `ogr2ogr` in a process of its own, every driver but the one its type names skipped
/// (a VRT or a URL inside cannot send GDAL elsewhere), under a time limit, into a GeoPackage that
/// `FeatureImporter` then imports as it imports the CLI's files. A ZIP archive's directory is
/// checked first (`ZipDirectory`). Nothing of the file is parsed in the server's process.
public struct UploadedSource: Sendable, Equatable {
    public let format: PublishFileType
    /// What GDAL opens: the file, or a path inside it through `/vsizip/`.
    let gdalPath: String

    /// Checks the file at `path` for `format` before any work: a zip's directory and what it
    /// must hold (a `.shp`, a `.gdb` folder), refusing with `StoreError.importFailed`.
    public init(path: String, format: PublishFileType, limits: ZipDirectory.Limits = ZipDirectory.Limits()) throws {
        self.format = format
        guard format.isZipped else {
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
            guard names.contains(where: { $0.lowercased().hasSuffix(".shp") }) else {
                throw StoreError.importFailed("The ZIP archive holds no Shapefile (.shp).")
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

extension FeatureImporter {
    /// Publishes `source` as a new service: GDAL converts it (within `timeLimit`) into a
    /// scratch GeoPackage, which is imported as the CLI imports one. `options.progress` hears
    /// GDAL's percentage, then each table's rows.
    /// Errors name the file as `displayName`, never by where the server keeps it.
    @discardableResult
    public func importUpload(_ source: UploadedSource, displayName: String, options: Options, timeLimit: Duration) async throws -> StoredService {
        do { return try await convertAndImport(source, options: options, timeLimit: timeLimit) } catch StoreError.importFailed(let reason) {
            throw StoreError.importFailed(reason.replacingOccurrences(of: source.gdalPath, with: displayName))
        }
    }

    private func convertAndImport(_ source: UploadedSource, options: Options, timeLimit: Duration) async throws -> StoredService {
        try FileManager.default.createDirectory(atPath: options.scratchDirectory, withIntermediateDirectories: true)
        let scratch = (options.scratchDirectory as NSString).appendingPathComponent("publish-\(UUID().uuidString)")
        let converted = scratch + ".gpkg"
        defer { try? FileManager.default.removeItem(atPath: converted) }
        let driver = source.format.driver
        let catalog =
            source.format == .fileGeodatabase
            ? try await GDALSource.geodatabaseCatalog(source.gdalPath, scratch: scratch + "-items.gpkg", onlyDriver: driver, timeLimit: timeLimit)
            : GeodatabaseCatalog()
        let progress = options.progress
        let label = "GDAL " + source.format.itemType
        try await GDALSource.convert(
            source.gdalPath, to: converted, srs: options.srs, csv: source.format == .csv, onlyDriver: driver, timeLimit: timeLimit
        ) {
            progress(ImportProgress(layer: label, loaded: $0, total: 100, isPercent: true))
        }
        return try importGeoPackage(at: converted, options: options, catalog: catalog)
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
        }
    }
}
