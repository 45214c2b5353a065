import ArgumentParser
import OutpostDataTools
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a feature service's layers and tables to a file GDAL writes (through ogr2ogr), so data never gets stuck in Outpost.",
        discussion: """
            Formats: GPKG (default), FileGDB (OUT is a .gdb folder), Shapefile (a .shp, or a folder for several layers), \
            GeoJSON and CSV (one layer a file: several layers go to a folder OUT, a file each; CSV carries the geometry as WKT). \
            Attachments stay in Outpost. See docs/import.md.
            """)

    @Argument(help: "The service's name (Folder/Name in a folder).") var service: String
    @Argument(help: "The file or folder to write (must not exist).") var output: String
    @Option(name: .long, help: "GPKG, FileGDB, Shapefile, GeoJSON or CSV.") var format = "GPKG"
    @OptionGroup var location: StoreLocation

    func run() async throws {
        guard let chosen = ServiceExport.Format(name: format) else {
            throw ValidationError("--format: one of \(ServiceExport.Format.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let backend = try location.postgres() {
            defer { backend.close() }
            try await export(from: backend, format: chosen)
        } else {
            try await export(from: try SpatiaLiteBackend(dataDirectory: location.data), format: chosen)
        }
    }

    func export(from store: some OutpostBackend, format: ServiceExport.Format) async throws {
        let layers = try await ServiceExport.export(
            service: service, from: store, format: format, to: output, scratchDirectory: store.temporaryDirectory)
        print("\(service): \(layers.joined(separator: ", ")) written to \(output) (\(format.rawValue))")
    }
}
