import Foundation
import OutpostClient
import OutpostTesting
import OutpostWire
import Testing

/// Recipes of docs/testing-your-app.md for a preplanned map area kept current by scheduled
/// updates: the server's clock moved instead of waiting days.
@Suite struct MapAreaRecipeTests {
    /// A read-only area refreshed daily at 03:00 UTC keeping deltas `keptDays`, downloaded to
    /// the device; the area's id, the device's folder and its sync task.
    static func downloadScheduledArea(_ server: OutpostTestServer, keptDays: Int, device: String) async throws -> (String, URL, OfflineMapSyncTask) {
        let authoring = MapAreaClient(base: server.portalBase)
        let (areaId, _) = try await authoring.create(
            webMap: Recipe.demoMap, extent: Recipe.treeCorner, title: "Scheduled", refreshSchedule: "0 0 3 * * ?", updatesKeptDays: keptDays)
        let task = OfflineMapTask(portal: server.portalBase, webMapItemId: Recipe.demoMap)
        let area = try #require(try await task.preplannedMapAreas().first)
        var parameters = try await task.makeDefaultDownloadPreplannedOfflineMapParameters(area: area)
        parameters.includeBasemap = false
        let folder = URL(fileURLWithPath: "\(device)/area")
        let job = try await task.makeDownloadPreplannedOfflineMapJob(area: area, parameters: parameters, downloadDirectory: folder)
        job.pollInterval = .milliseconds(20)
        job.start()
        _ = try await job.output
        return (areaId, folder, try OfflineMapSyncTask(offlineMapDirectory: folder))
    }

    /// Someone adds a tree online.
    static func addTreeOnline(_ server: OutpostTestServer, _ species: String) async throws {
        let service = ServiceConnection(serviceURL: server.featureServer())
        let answer = try await service.postForm(
            service.url("2/applyEdits"),
            [("adds", #"[{"attributes":{"species":"\#(species)"},"geometry":{"x":13.23,"y":52.43,"spatialReference":{"wkid":4326}}}]"#)])
        #expect(answer["addResults"]?[0]?["success"] == true, "\(answer)")
    }

    static func species(_ folder: URL) async throws -> Set<String> {
        let geodatabase = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
        defer { geodatabase.close() }
        return Set(try await geodatabase.featureTable(layerId: 2).queryFeatures().compactMap { $0["species"].stringValue })
    }

    /// Recipe: 25 simulated hours fire the daily refresh; the device downloads the update.
    @Test func scheduledUpdatesArriveAfterTwentyFiveSimulatedHours() async throws {
        let server = try await OutpostTestServer.start(seed: 42, backend: try Recipe.backend())
        let device = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: device) }
        let (area, folder, sync) = try await Self.downloadScheduledArea(server, keptDays: 5, device: device)
        try await Self.addTreeOnline(server, "Planted today")
        #expect(try await sync.checkForUpdates().downloadAvailability == .none, "nothing refreshed yet")

        let moved = try await server.clock.advance(by: .hours(25))
        #expect(moved.housekeeping.contains("refreshed \(area)"), "\(moved.housekeeping)")
        let waiting = try await sync.checkForUpdates()
        #expect(waiting.downloadAvailability == .available && waiting.scheduledUpdatesDownloadSize > 0 && !waiting.isMobileMapPackageReopenRequired)
        let updated = try await sync.sync()
        #expect(!updated.hasErrors && !updated.isMobileMapPackageReopenRequired && updated.results["data/Demo.gpkg"]?.changesApplied == 1)
        #expect(try await Self.species(folder).contains("Planted today"))
        await server.stop()
    }

    /// Recipe: 15 simulated days on (deltas kept 5 days), the device's copy is behind a purged
    /// delta: it is told to take the package whole, and does.
    @Test func aCopyFifteenSimulatedDaysBehindIsDownloadedWhole() async throws {
        let server = try await OutpostTestServer.start(seed: 42, backend: try Recipe.backend())
        let device = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: device) }
        let (area, folder, sync) = try await Self.downloadScheduledArea(server, keptDays: 5, device: device)
        // A refresh a day for 15 days, an online edit before each of the first and the last.
        try await Self.addTreeOnline(server, "Day one")
        for day in 1...15 {
            if day == 15 { try await Self.addTreeOnline(server, "Day fifteen") }
            let moved = try await server.clock.advance(by: .days(1))
            #expect(moved.housekeeping.contains("refreshed \(area)"), "day \(day): \(moved.housekeeping)")
        }
        let behind = try await sync.checkForUpdates()
        #expect(behind.downloadAvailability == .available && behind.isMobileMapPackageReopenRequired, "\(behind)")
        let whole = try await sync.sync()
        #expect(whole.isMobileMapPackageReopenRequired && !whole.hasErrors, "\(whole)")
        let trees = try await Self.species(folder)
        #expect(trees.contains("Day one") && trees.contains("Day fifteen"))
        await server.stop()
    }
}
