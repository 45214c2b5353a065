import Foundation
import OutpostClient
import OutpostDataTools
import OutpostSpatiaLite
import Testing

/// docs/client.md's offline map workflows ("Offline maps") and its tile export ("Tiles"), as
/// written there — only the server's address and the folders differ — against a live
/// server: if the documented API changes, this stops compiling; if it stops doing what the
/// text says, this fails.
@Suite struct OfflineMapWalkthroughTests {
    @Test func theOfflineMapWorkflowsRunAsDocumented() async throws {
        try await withLiveServer { serviceURL, store, device in
            let portal = OfflineMapTaskTests.portal(serviceURL)
            func folder(_ name: String) -> URL { URL(fileURLWithPath: "\(device)/\(name)") }

            // --- docs/client.md, "Offline maps": on demand ---
            let task = OfflineMapTask(portal: portal, webMapItemId: "de3000000000000000000000000000a1")
            var parameters = try await task.makeDefaultGenerateOfflineMapParameters(
                areaOfInterest: Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56), maxScale: 36_978_595.47)
            parameters.returnLayerAttachmentOption = .allLayers  // the cities' notes too
            let capabilities = try await task.offlineMapCapabilities(parameters: parameters)
            for layer in capabilities.layers where layer.capability.error != nil {
                print(layer.mapLayerId, layer.capability.error ?? "")  // supportsOffline, remainsOnline, error
            }
            var overrides = try await task.makeGenerateOfflineMapParameterOverrides(parameters: parameters)
            for key in overrides.exportTileCacheParameters.keys { overrides.exportTileCacheParameters[key]?.levelIDs = [0, 1, 2] }
            let job = try await task.makeGenerateOfflineMapJob(
                parameters: parameters, downloadDirectory: folder("demo-offline"), overrides: overrides)
            job.start()
            var seen: [JobStatus] = []
            for await status in job.statuses { seen.append(status) }  // started … succeeded (or paused, failed)
            let result = try await job.output  // directory, layerErrors, tableErrors
            // ---
            #expect(seen.first == .started && seen.last == .succeeded && !result.hasErrors && !capabilities.hasErrors)
            #expect(try ExportTileCacheTests.zoomLevels(folder("demo-offline/tiles/DemoBasemap.mbtiles").path) == [0, 1, 2])

            // An edit in the field, then the documented sync.
            let field = try Geodatabase.open(folder("demo-offline/data/Demo.gpkg"))
            let trees = try field.featureTable(layerId: 2)
            try await trees.add(trees.makeFeature(attributes: ["species": "Walkthrough"], geometry: .point(Point(x: 13.22, y: 52.42))))
            field.close()

            // --- docs/client.md, "Offline maps": keeping it current ---
            let offlineMap = try OfflineMapSyncTask(offlineMapDirectory: folder("demo-offline"))
            let updates = try await offlineMap.checkForUpdates()  // uploadAvailability, downloadAvailability, scheduledUpdatesDownloadSize
            var synced: OfflineMapSyncResult?
            if updates.uploadAvailability == .available || updates.downloadAvailability != .none {
                let sync = try offlineMap.makeOfflineMapSyncJob(parameters: offlineMap.makeDefaultOfflineMapSyncParameters())
                sync.start()
                synced = try await sync.output
                for (layer, outcome) in synced!.layerResults where outcome.error != nil || !outcome.failedEdits.isEmpty {
                    print(layer, outcome.error?.description ?? "", outcome.failedEdits)
                }
                if synced!.isMobileMapPackageReopenRequired { print("open the map's geodatabases again") }
            }
            // ---
            #expect(updates.uploadAvailability == .available && synced?.results["data/Demo.gpkg"]?.editsUploaded == 1)
            #expect(synced?.hasErrors == false && synced?.layerResults.isEmpty == false)

            // --- docs/client.md, "Offline maps": preplanned (an area its author made) ---
            _ = try await MapAreaClient(base: portal).create(webMap: DemoData.demoMapId, extent: treeCorner, title: "Berlin")
            let areas = try await task.preplannedMapAreas()  // title, status, areaOfInterest, packages, thumbnailURL
            let area = areas[0]
            let download = try await task.makeDownloadPreplannedOfflineMapJob(
                area: area, parameters: try await task.makeDefaultDownloadPreplannedOfflineMapParameters(area: area),
                downloadDirectory: folder("area-offline"))
            download.start()
            let downloaded = try await download.output
            // ---
            // The versioned Parcels service cannot register a copy (as on ArcGIS): that layer is reported.
            #expect(downloaded.layerErrors.keys.sorted() == ["Parcels-0"] && area.title == "Berlin", "\(downloaded.layerErrors)")
            #expect(FileManager.default.fileExists(atPath: folder("area-offline/data/Demo.gpkg").path))

            var mapReplicas: [(String, String)] = []
            for name in ["Demo", "Parcels"] {
                let geodatabase = try Geodatabase.open(folder("demo-offline/data/\(name).gpkg"))
                mapReplicas.append((name, try geodatabase.info().replicaId))
                geodatabase.close()
            }

            // --- docs/client.md, "Offline maps": done with it ---
            try await offlineMap.unregisterAll()
            try FileManager.default.removeItem(at: folder("demo-offline"))
            // ---
            let areaCopy = try Geodatabase.open(folder("area-offline/data/Demo.gpkg"))
            let stillRegistered = try areaCopy.info().replicaId
            areaCopy.close()
            for (service, id) in mapReplicas { #expect(try store.replicas.replica(service: service, id: id) == nil, "\(service) unregistered") }
            #expect(try store.replicas.replica(service: "Demo", id: stillRegistered) != nil, "only that map's replicas went")
        }
    }

    @Test func theTileExportRunsAsDocumented() async throws {
        try await withLiveServer { serviceURL, _, device in
            let base = serviceURL.deletingLastPathComponent().deletingLastPathComponent()
            // --- docs/client.md, "Tiles" ---
            let basemap = ExportTileCacheTask(url: base.appendingPathComponent("DemoBasemap/MapServer"))
            let parameters = try await basemap.makeDefaultExportTileCacheParameters(
                areaOfInterest: Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56), minScale: 147_914_381.9, maxScale: 0)
            let export = basemap.makeExportTileCacheJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: "\(device)/basemap.tpkx"))
            export.start()
            let cache = try await export.output  // TileCache(fileURL:)
            // ---
            #expect(cache.fileURL.lastPathComponent == "basemap.tpkx" && parameters.levelIDs == [2, 3, 4, 5])
            let size = try FileManager.default.attributesOfItem(atPath: cache.fileURL.path)[.size] as? Int ?? 0
            #expect(size > 0)
        }
    }
}
