import Foundation
import OutpostClient
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import Testing

/// `OfflineMapTask` on a live server with the demo web map (docs/client.md, "Offline maps"):
/// capabilities, defaults from the map's offline settings, and `GenerateOfflineMapJob` into a
/// folder — paused and resumed from JSON, with a layer that cannot go offline.
@Suite struct OfflineMapTaskTests {
    static let demoMap = "de3000000000000000000000000000a1"
    static let europe = Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56)

    static func portal(_ serviceURL: URL) -> URL {
        serviceURL.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test func theDemoMapGoesOfflineIntoAFolderPausedAndResumedOnTheWay() async throws {
        try await withLiveServer { serviceURL, store, device in
            let task = OfflineMapTask(portal: Self.portal(serviceURL), webMapItemId: Self.demoMap)
            var parameters = try await task.makeDefaultGenerateOfflineMapParameters(areaOfInterest: Self.europe, maxScale: 36_978_595.47)
            #expect(parameters.itemInfo?.title == "Demo map")
            #expect(parameters.returnLayerAttachmentOption == .readOnlyLayers, "the demo map's editable layers download features only")
            parameters.continueOnErrors = false
            let capabilities = try await task.offlineMapCapabilities(parameters: parameters)
            #expect(!capabilities.hasErrors, "\(capabilities.layers.filter { $0.capability.error != nil })")
            #expect(capabilities.geodatabases.count == 2 && capabilities.tileCaches.first?.parameters.levelIDs == [0, 1, 2, 3, 4])

            let folder = URL(fileURLWithPath: "\(device)/offline-demo")
            let job = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: folder)
            job.pollInterval = .milliseconds(20)
            job.start()
            job.pause()
            while job.status == .started { try await Task.sleep(for: .milliseconds(5)) }
            #expect(job.status == .paused)
            let saved = try job.toJSON()
            #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing at the destination until the end")

            let resumed = try GenerateOfflineMapJob.fromJSON(saved)
            resumed.pollInterval = .milliseconds(20)
            let statusStream = resumed.statuses  // subscribed before the start: nothing missed
            let statuses = Task { await Array(statusStream) }
            let messageStream = resumed.messageStream
            let messages = Task { await Array(messageStream).map(\.text) }
            resumed.start()
            let result = try await resumed.output
            #expect(await statuses.value == [.paused, .started, .succeeded])
            let told = await messages.value
            #expect(told.first == "started" && told.contains("resumed") && told.last == "succeeded", "\(told)")
            #expect(!result.hasErrors && result.directory.path == folder.path)
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
            #expect(
                Set(files).isSuperset(of: [
                    "map.json", "package.json", "data/Demo.gpkg", "data/Parcels.gpkg", "tiles/DemoBasemap.mbtiles", "thumbnail.png",
                ]),
                "\(files)")
            #expect(!files.contains { $0.hasSuffix(".partial") })
            #expect(try FileManager.default.contentsOfDirectory(atPath: device).filter { $0.contains("partial") }.isEmpty)

            let map = try JSONParser.parse(String(decoding: try Data(contentsOf: folder.appendingPathComponent("map.json")), as: UTF8.self))
            let urls = (map["operationalLayers"]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue }
            #expect(!urls.isEmpty && urls.allSatisfy { $0 == "data/Demo.gpkg" || $0 == "data/Parcels.gpkg" }, "\(urls)")
            #expect(map["baseMap"]?["baseMapLayers"]?[0]?["url"] == "tiles/DemoBasemap.mbtiles")
            #expect(map["operationalLayers"]?[0]?["x-outpost-source"]?.stringValue?.hasSuffix("/FeatureServer/0") == true)
            let manifest = try JSONParser.parse(String(decoding: try Data(contentsOf: folder.appendingPathComponent("package.json")), as: UTF8.self))
            #expect(manifest["format"] == "outpost-offline-map" && manifest["files"]?.arrayValue?.count == 3 && manifest["errors"] == [])
            // The web map item's thumbnail, as the portal serves it.
            #expect(manifest["thumbnail"] == "thumbnail.png")
            let thumbnail = try #require(FileManager.default.contents(atPath: folder.appendingPathComponent("thumbnail.png").path))
            let served = try #require(try store.portal.thumbnailPath(item: Self.demoMap))
            #expect(thumbnail == FileManager.default.contents(atPath: served))

            // The replicas are registered (syncWithFeatureServices) and open as geodatabases with the area's rows.
            let demo = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            defer { demo.close() }
            #expect(try store.replicas.replica(service: "Demo", id: demo.info().replicaId) != nil)
            #expect(try await demo.featureTable(layerId: 0).featureCount() > 0)
        }
    }

    @Test func overridesSchemaOnlyLayersAndAReferenceBasemapShapeWhatIsTaken() async throws {
        try await withLiveServer { serviceURL, _, device in
            let task = OfflineMapTask(portal: Self.portal(serviceURL), webMapItemId: Self.demoMap)
            let parameters = try await task.makeDefaultGenerateOfflineMapParameters(areaOfInterest: Self.europe)
            var overrides = try await task.makeGenerateOfflineMapParameterOverrides(parameters: parameters)
            let demo = OfflineMapParametersKey(serviceURL: serviceURL.absoluteString)
            let basemap = try #require(overrides.exportTileCacheParameters.keys.first)
            #expect(overrides.generateGeodatabaseParameters.count == 2 && basemap.serviceURL.hasSuffix("/DemoBasemap/MapServer"))
            overrides.generateGeodatabaseParameters[demo]?.layerOptions.removeAll { $0.layerId != 2 }
            overrides.exportTileCacheParameters[basemap]?.levelIDs = [0, 1]
            let first = URL(fileURLWithPath: "\(device)/overridden")
            let job = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: first, overrides: overrides)
            job.pollInterval = .milliseconds(20)
            job.start()
            _ = try await job.output
            let geodatabase = try Geodatabase.open(first.appendingPathComponent("data/Demo.gpkg"))
            #expect(try geodatabase.featureTables().map(\.layerId) == [2])
            geodatabase.close()
            #expect(try ExportTileCacheTests.zoomLevels(first.appendingPathComponent("tiles/DemoBasemap.mbtiles").path) == [0, 1])

            // Editable layers schema only, and the basemap already on the device instead of an export.
            var second = parameters
            second.returnSchemaOnlyForEditableLayers = true
            second.itemInfo?.thumbnail = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])  // the app's own picture (a JPEG)
            second.referenceBasemapDirectory = first.appendingPathComponent("tiles")
            second.referenceBasemapFilename = "DemoBasemap.mbtiles"
            let folder = URL(fileURLWithPath: "\(device)/schema-only")
            let schemaJob = try await task.makeGenerateOfflineMapJob(parameters: second, downloadDirectory: folder)
            schemaJob.pollInterval = .milliseconds(20)
            schemaJob.start()
            _ = try await schemaJob.output
            let empty = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            defer { empty.close() }
            for table in try empty.featureTables() { #expect(try await table.featureCount() == 0, "\(table.name)") }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("tiles/DemoBasemap.mbtiles").path))
            let map = try JSONParser.parse(String(decoding: try Data(contentsOf: folder.appendingPathComponent("map.json")), as: UTF8.self))
            #expect(map["baseMap"]?["baseMapLayers"]?[0]?["url"]?.stringValue == first.appendingPathComponent("tiles/DemoBasemap.mbtiles").path)
            #expect(FileManager.default.contents(atPath: folder.appendingPathComponent("thumbnail.jpg").path) == second.itemInfo?.thumbnail)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("thumbnail.png").path))
        }
    }

    @Test func aLayerThatCannotGoOfflineIsReportedOrStopsTheJob() async throws {
        try await withLiveServer { serviceURL, store, device in
            var noSync = pointLayerService(name: "NoSync")
            noSync.capabilities = ["Query"]
            _ = try store.schema.createService(noSync)
            let text =
                #"{"operationalLayers":[{"id":"cities","url":"/arcgis/rest/services/Demo/FeatureServer/0"},"#
                + #"{"id":"points","url":"/arcgis/rest/services/NoSync/FeatureServer/0"}],"baseMap":{"baseMapLayers":[]}}"#
            let item = PortalItem(
                id: "0000000000000000000000000000ab09", owner: "outpost", title: "Mixed", type: "Web Map", access: .public, created: 1)
            try store.portal.addItem(item, data: .text(text))
            let task = OfflineMapTask(portal: Self.portal(serviceURL), webMapItemId: item.id)
            var parameters = try await task.makeDefaultGenerateOfflineMapParameters(areaOfInterest: Self.europe)
            let job = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: URL(fileURLWithPath: "\(device)/mixed"))
            job.pollInterval = .milliseconds(20)
            job.start()
            let result = try await job.output
            #expect(result.hasErrors && result.layerErrors.keys.sorted() == ["points"], "\(result.layerErrors)")
            #expect(FileManager.default.fileExists(atPath: "\(device)/mixed/data/Demo.gpkg"))

            parameters.continueOnErrors = false
            await #expect(throws: ClientError.self) {
                _ = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: URL(fileURLWithPath: "\(device)/strict"))
            }
            #expect(!FileManager.default.fileExists(atPath: "\(device)/strict"))
            await #expect(throws: ClientError.self) {
                _ = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: URL(fileURLWithPath: "\(device)/mixed"))
            }
        }
    }
}
