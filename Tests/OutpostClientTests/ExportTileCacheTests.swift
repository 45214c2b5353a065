import Foundation
import GRDB
import OutpostClient
import OutpostTestSupport
import Testing

/// Tiles taken offline with `ExportTileCacheTask` (docs/client.md, "Tiles"): the levels a
/// scale range chooses, and the export job against a live server for raster (`.tpkx`) and
/// vector (MBTiles) services.
@Suite struct ExportTileCacheTests {
    /// ArcGIS's scales of levels 0–5.
    static let lods: [(level: Int, scale: Double)] = [
        (0, 591_657_527.591555), (1, 295_828_763.795777), (2, 147_914_381.897889), (3, 73_957_190.948944), (4, 36_978_595.474472),
        (5, 18_489_297.737236),
    ]

    static let rows: [(String, Double, Double, Double, Double, [Int])] = [
        ("no range: every level", 0, 0, 0, 0, [0, 1, 2, 3, 4, 5]),
        ("from level 2 in", 147_914_381.9, 0, 0, 0, [2, 3, 4, 5]),
        ("down to level 3", 0, 73_957_190.9, 0, 0, [0, 1, 2, 3]),
        ("levels 1 to 3, scales rounded", 295_828_764, 73_957_191, 0, 0, [1, 2, 3]),
        ("the service stops at level 4", 0, 0, 0, 36_978_595.474472, [0, 1, 2, 3, 4]),
        ("the user's range and the service's intersected", 295_828_764, 0, 147_914_381.9, 36_978_595.5, [2, 3, 4]),
        ("a range between two levels", 100_000_000, 80_000_000, 0, 0, []),
    ]

    @Test(arguments: rows.indices) func theScaleRangeChoosesTheLevels(_ row: Int) {
        let (name, minScale, maxScale, serviceMin, serviceMax, expected) = Self.rows[row]
        #expect(
            ExportTileCacheParameters.levels(
                of: Self.lods, minScale: minScale, maxScale: maxScale, serviceMinScale: serviceMin, serviceMaxScale: serviceMax) == expected,
            "\(name)")
    }

    static func zoomLevels(_ path: String) throws -> [Int] {
        try DatabaseQueue(path: path).read { db in try Int.fetchAll(db, sql: "SELECT DISTINCT zoom_level FROM tiles ORDER BY 1") }
    }

    @Test func rasterAndVectorTilesOfAnAreaAreExportedAndDownloaded() async throws {
        try await withLiveServer { serviceURL, _, device in
            let services = serviceURL.deletingLastPathComponent().deletingLastPathComponent()
            let europe = Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56)

            let raster = ExportTileCacheTask(url: services.appendingPathComponent("DemoBasemap/MapServer"))
            let parameters = try await raster.makeDefaultExportTileCacheParameters(areaOfInterest: europe, minScale: 147_914_381.9)
            #expect(parameters.levelIDs == [2, 3, 4, 5] && parameters.storageFormat == nil)
            let file = URL(fileURLWithPath: "\(device)/basemap.tpkx")
            let job = raster.makeExportTileCacheJob(parameters: parameters, downloadFileURL: file)
            job.pollInterval = .milliseconds(20)
            job.start()
            #expect(try await job.output.fileURL == file)
            let entries = try #require(TilePackageReading.storedEntries([UInt8](try Data(contentsOf: file))))
            #expect(entries.keys.contains("root.json") && entries.keys.contains { $0.hasSuffix(".bundle") })
            #expect(job.messages.map(\.text).contains { $0.hasPrefix("tile export ") })

            let vector = ExportTileCacheTask(url: services.appendingPathComponent("DemoVectorBasemap/VectorTileServer"))
            let vectorParameters = try await vector.makeDefaultExportTileCacheParameters(areaOfInterest: europe, maxScale: 73_957_190.9)
            // 512-pixel vector tiles: level n is drawn at raster level n+1's scale.
            #expect(vectorParameters.levelIDs == [0, 1, 2] && vectorParameters.storageFormat == "MBTiles")
            let mbtiles = URL(fileURLWithPath: "\(device)/vector.mbtiles")
            let vectorJob = vector.makeExportTileCacheJob(parameters: vectorParameters, downloadFileURL: mbtiles)
            vectorJob.pollInterval = .milliseconds(20)
            vectorJob.start()
            _ = try await vectorJob.output
            #expect(try Self.zoomLevels(mbtiles.path) == [0, 1, 2])

            // A job saved as JSON comes back only as the kind it is.
            #expect(throws: ClientError.self) { try GenerateGeodatabaseJob.fromJSON(try vectorJob.toJSON()) }
            #expect(try ExportTileCacheJob.fromJSON(try vectorJob.toJSON()).status == .succeeded)
        }
    }
}
