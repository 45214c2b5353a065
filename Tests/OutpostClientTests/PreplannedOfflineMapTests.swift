import Foundation
import OutpostClient
import OutpostSpatiaLite
import OutpostStorage
import Testing

/// Preplanned map areas on the device (docs/client.md, "Offline maps"): an area downloaded by
/// two devices that each register their copy and sync their edits to the other, and a
/// read-only area kept current by scheduled updates, then taken whole when its package was
/// made again.
@Suite struct PreplannedOfflineMapTests {
    static func task(_ serviceURL: URL) -> OfflineMapTask {
        OfflineMapTask(portal: OfflineMapTaskTests.portal(serviceURL), webMapItemId: OfflineMapTaskTests.demoMap)
    }

    static func download(
        _ task: OfflineMapTask, _ area: PreplannedMapArea, _ parameters: DownloadPreplannedOfflineMapParameters, to path: String,
        failing: [String] = []
    ) async throws -> URL {
        let folder = URL(fileURLWithPath: path)
        let job = try await task.makeDownloadPreplannedOfflineMapJob(area: area, parameters: parameters, downloadDirectory: folder)
        job.pollInterval = .milliseconds(20)
        job.start()
        let result = try await job.output
        #expect(result.layerErrors.keys.sorted() == failing, "\(result.layerErrors)")
        return folder
    }

    static func addTree(_ folder: URL, _ species: String) async throws {
        let geodatabase = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
        defer { geodatabase.close() }
        let trees = try geodatabase.featureTable(layerId: 2)
        try await trees.add(trees.makeFeature(attributes: ["species": .string(species)], geometry: .point(Point(x: 13.22, y: 52.42))))
    }

    static func species(_ folder: URL) async throws -> Set<String> {
        let geodatabase = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
        defer { geodatabase.close() }
        return Set(try await geodatabase.featureTable(layerId: 2).queryFeatures().compactMap { $0["species"].stringValue })
    }

    @Test func twoDevicesDownloadAnAreaRegisterTheirCopiesAndSyncEachOthersEdits() async throws {
        try await withLiveServer { serviceURL, store, device in
            let authoring = MapAreaClient(base: OfflineMapTaskTests.portal(serviceURL))
            _ = try await authoring.create(webMap: OfflineMapTaskTests.demoMap, extent: treeCorner, title: "Tiergarten")
            let task = Self.task(serviceURL)
            let areas = try await task.preplannedMapAreas()
            let area = try #require(areas.first)
            #expect(areas.count == 1 && area.title == "Tiergarten" && area.status == "complete" && area.packages.count == 3)
            let parameters = try await task.makeDefaultDownloadPreplannedOfflineMapParameters(area: area)
            #expect(parameters.updateMode == .syncWithFeatureServices)

            // Parcels is versioned: a copy cannot be registered there (as on ArcGIS), so its layer is
            // reported and left out; the rest of the area is taken.
            let a = try await Self.download(task, area, parameters, to: "\(device)/a", failing: ["Parcels-0"])
            let b = try await Self.download(task, area, parameters, to: "\(device)/b", failing: ["Parcels-0"])
            let files = try FileManager.default.subpathsOfDirectory(atPath: a.path).sorted()
            #expect(Set(files).isSuperset(of: ["data/Demo.gpkg", "tiles/DemoBasemap.tpkx", "map.json", "package.json"]))
            #expect(!files.contains("data/Parcels.gpkg"), "a copy that cannot sync is not left behind")
            let manifest = try JSONParser.parse(String(decoding: try Data(contentsOf: a.appendingPathComponent("package.json")), as: UTF8.self))
            #expect(manifest["source"]?["mode"] == "preplanned" && manifest["source"]?["mapAreaId"]?.stringValue == area.id)

            // Each copy is a replica of its own, registered on the server.
            let replicas = try [a, b].map { folder -> String in
                let geodatabase = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
                defer { geodatabase.close() }
                return try geodatabase.info().replicaId
            }
            #expect(replicas[0] != replicas[1])
            #expect(try replicas.allSatisfy { try store.replicas.replica(service: "Demo", id: $0) != nil })

            try await Self.addTree(a, "From device A")
            #expect(try await OfflineMapSyncTask(offlineMapDirectory: a).sync(pollInterval: .milliseconds(20)).hasErrors == false)
            try await Self.addTree(b, "From device B")
            _ = try await OfflineMapSyncTask(offlineMapDirectory: b).sync(pollInterval: .milliseconds(20))
            _ = try await OfflineMapSyncTask(offlineMapDirectory: a).sync(pollInterval: .milliseconds(20))
            #expect(try await Self.species(a).isSuperset(of: ["From device A", "From device B"]))
            #expect(try await Self.species(b).isSuperset(of: ["From device A", "From device B"]))
        }
    }

    @Test func aReadOnlyAreaFollowsScheduledUpdatesAndIsTakenWholeWhenItsPackageIsMadeAgain() async throws {
        try await withLiveServer { serviceURL, store, device in
            let authoring = MapAreaClient(base: OfflineMapTaskTests.portal(serviceURL))
            let (areaId, _) = try await authoring.create(
                webMap: OfflineMapTaskTests.demoMap, extent: treeCorner, title: "Updates", updatesKeptDays: 5)
            let task = Self.task(serviceURL)
            let area = try #require(try await task.preplannedMapAreas().first)
            let thumbnail = try #require(area.thumbnailURL)
            let picture = try await ServiceConnection(serviceURL: serviceURL).download(thumbnail, offset: 0, length: 1 << 20).data
            #expect(picture.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the area shows the map's picture")
            var parameters = try await task.makeDefaultDownloadPreplannedOfflineMapParameters(area: area)
            #expect(parameters.updateMode == .downloadScheduledUpdates)
            parameters.includeBasemap = false
            let folder = try await Self.download(task, area, parameters, to: "\(device)/read-only")
            let sync = try OfflineMapSyncTask(offlineMapDirectory: folder)
            #expect(try await sync.checkForUpdates().downloadAvailability == .none)
            let package = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            let replica = try package.info().replicaId
            package.close()
            #expect(try store.replicas.replica(service: "Demo", id: replica) != nil, "the package's own replica: no copy registered")

            let service = ServiceConnection(serviceURL: serviceURL)
            _ = try await service.postForm(
                service.url("2/applyEdits"),
                [("adds", #"[{"attributes":{"species":"Scheduled"},"geometry":{"x":13.23,"y":52.43,"spatialReference":{"wkid":4326}}}]"#)])
            _ = try await authoring.refresh(area: areaId)
            let waiting = try await sync.checkForUpdates()
            #expect(
                waiting.downloadAvailability == .available && waiting.scheduledUpdatesDownloadSize > 0 && !waiting.isMobileMapPackageReopenRequired)
            let skipped = try await sync.sync(parameters: OfflineMapSyncParameters(preplannedScheduledUpdatesOption: .noUpdates))
            #expect(skipped.results.isEmpty && !skipped.hasErrors)
            #expect(try await !Self.species(folder).contains("Scheduled"), "noUpdates leaves the area as it is")
            let updated = try await sync.sync(parameters: OfflineMapSyncParameters(keepGeodatabaseDeltas: true))
            #expect(!updated.hasErrors && !updated.isMobileMapPackageReopenRequired && updated.results["data/Demo.gpkg"]?.changesApplied == 1)
            #expect(try await Self.species(folder).contains("Scheduled"))
            // The delta applied is kept in the folder, a geodatabase delta holding the new tree.
            let kept = try #require(updated.keptDeltas.first)
            #expect(updated.keptDeltas.count == 1 && kept.hasPrefix("deltas/Demo/d_") && kept.hasSuffix(".gpkg"), "\(updated.keptDeltas)")
            let delta = try Geodatabase.open(folder.appendingPathComponent(kept))
            let deltaTrees = try await delta.featureTable(layerId: 2).queryFeatures().compactMap { $0["species"].stringValue }
            delta.close()
            #expect(deltaTrees == ["Scheduled"])

            // The package's replica lost: the refresh makes it again whole; the device takes it whole.
            _ = try await service.postForm(service.url("unRegisterReplica"), [("replicaID", replica)])
            _ = try await authoring.refresh(area: areaId)
            #expect(try await sync.checkForUpdates().isMobileMapPackageReopenRequired)
            let whole = try await sync.sync()
            #expect(whole.isMobileMapPackageReopenRequired && !whole.hasErrors, "\(whole)")
            #expect(try await Self.species(folder).contains("Scheduled"))
        }
    }
}
