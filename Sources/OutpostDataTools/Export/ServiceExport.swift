import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// `outpost export`: a service's layers and tables written to a file GDAL writes, so data never
/// gets stuck in Outpost. The service is exported as a replica file is (a GeoPackage, no replica
/// registered, `syncModel=none`); `ogr2ogr` then writes its layer tables in the format asked for,
/// leaving out the sync extension's tables and the attachment tables.
public enum ServiceExport {
    public enum Format: String, CaseIterable, Sendable {
        case geoPackage = "GPKG", fileGeodatabase = "FileGDB", shapefile = "Shapefile", geoJSON = "GeoJSON", csv = "CSV"

        /// The format a name stands for, in any case.
        public init?(name: String) {
            guard let format = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
            self = format
        }

        var driver: String {
            switch self {
            case .geoPackage: "GPKG"
            case .fileGeodatabase: "OpenFileGDB"
            case .shapefile: "ESRI Shapefile"
            case .geoJSON: "GeoJSON"
            case .csv: "CSV"
            }
        }

        /// Formats holding one layer a file: several layers go to a folder, a file each.
        var isOneLayerAFile: Bool { self == .geoJSON || self == .csv }

        var fileExtension: String {
            switch self {
            case .geoPackage: "gpkg"
            case .fileGeodatabase: "gdb"
            case .shapefile: "shp"
            case .geoJSON: "geojson"
            case .csv: "csv"
            }
        }
    }

    /// Writes every layer and table of `service` to `output` (a file, or for a File
    /// Geodatabase, a Shapefile set or several one-layer files, a folder). Returns the layers' names.
    @discardableResult
    public static func export(
        service: String, from store: some SyncBackend, format: Format, to output: String, scratchDirectory: String
    ) async throws -> [String] {
        guard !FileManager.default.fileExists(atPath: output) else { throw StoreError.importFailed("\(output) exists already") }
        let definition = try store.service(named: service).definition
        let parameters: [(String, String)] = [
            ("layers", definition.layers.map { String($0.id) }.joined(separator: ",")), ("replicaName", "export"), ("syncModel", "none"),
            ("dataFormat", "sqlite"), ("returnAttachments", "false"), ("transportType", "esriTransportTypeUrl"),
        ]
        let plan = try ReplicaPlanner.plan(
            try CreateReplicaRequest.parse(RequestParameters(parameters)), service: definition, replicaId: "", owner: "", takenNames: [],
            now: store.clock.milliseconds())
        try FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
        let geoPackage = (scratchDirectory as NSString).appendingPathComponent("export-\(UUID().uuidString).gpkg")
        defer { try? FileManager.default.removeItem(atPath: geoPackage) }
        _ = try store.sync.exportReplica(plan, to: .geoPackage(path: geoPackage), serviceURL: "", serviceJSON: .null, layerJSON: [:], phase: { _ in })
        let tables = try await DatabaseQueue(path: geoPackage).read { db in
            try String.fetchAll(db, sql: "SELECT table_name FROM outpost_sync_layers ORDER BY layer_id")
        }
        if format.isOneLayerAFile && tables.count > 1 {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for table in tables {
                try await convert(
                    geoPackage, tables: [table], format: format, to: (output as NSString).appendingPathComponent("\(table).\(format.fileExtension)"))
            }
        } else {
            try await convert(geoPackage, tables: tables, format: format, to: output)
        }
        return tables
    }

    static func convert(_ geoPackage: String, tables: [String], format: Format, to output: String) async throws {
        var arguments = ["-f", format.driver, output, geoPackage] + tables
        if format == .csv { arguments += ["-lco", "GEOMETRY=AS_WKT"] }
        if format == .shapefile { arguments += ["-lco", "ENCODING=UTF-8"] }
        try await GDALSource.run(arguments, what: "write \(output)")
    }
}
