import Foundation
import OutpostClient
import OutpostSpatiaLite
import OutpostStorage
import Testing

/// An offline map folder kept in step with its services (docs/client.md, "Offline maps"):
/// local edits go up and the server's come down for every geodatabase, what is pending is
/// reported, and unregistering ends every replica.
@Suite struct OfflineMapSyncTests {
    @Test func anOfflineMapSyncsBothWaysAndUnregistersEveryReplica() async throws {
        try await withLiveServer { serviceURL, store, device in
            let folder = try await OfflineMapAttachmentTests.takeOffline(serviceURL, device, "field-map") { $0.areaOfInterest = treeCorner }

            let sync = try OfflineMapSyncTask(offlineMapDirectory: folder)
            #expect(sync.geodatabases.map(\.file).sorted() == ["data/Demo.gpkg", "data/Parcels.gpkg"])
            #expect(try await sync.checkForUpdates().uploadAvailability == .none)

            // Offline: a tree added on the device; online: another added on the server.
            let demo = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            let trees = try demo.featureTable(layerId: 2)
            try await trees.add(trees.makeFeature(attributes: ["species": "Planted offline"], geometry: .point(Point(x: 13.22, y: 52.42))))
            demo.close()
            let info = try await sync.checkForUpdates()
            #expect(info.uploadAvailability == .available && info.downloadAvailability == .indeterminate)
            let service = ServiceConnection(serviceURL: serviceURL)
            _ = try await service.postForm(
                service.url("2/applyEdits"),
                [("adds", #"[{"attributes":{"species":"Planted online"},"geometry":{"x":13.23,"y":52.43,"spatialReference":{"wkid":4326}}}]"#)])

            let result = try await sync.sync(pollInterval: .milliseconds(20))
            #expect(!result.hasErrors && result.results["data/Demo.gpkg"]?.editsUploaded == 1, "\(result)")
            let treeLayer = try #require(result.layerResults["Demo-2"])
            #expect(treeLayer.file == "data/Demo.gpkg" && treeLayer.error == nil && treeLayer.failedEdits.isEmpty)
            #expect(result.tableResults["Demo-3"]?.file == "data/Demo.gpkg" && result.layerResults["Parcels-0"]?.file == "data/Parcels.gpkg")
            #expect(try await serverTrees(service).values.contains { $0["species"] == "Planted online" })
            #expect(try await serverTrees(service).values.contains { $0["species"] == "Planted offline" })
            let synced = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            let online = try await synced.featureTable(layerId: 2).queryFeatures(whereClause: "species = 'Planted online'")
            let replica = try synced.info().replicaId
            synced.close()
            #expect(online.count == 1)
            #expect(try await sync.checkForUpdates().uploadAvailability == .none)

            try await sync.unregisterAll()
            #expect(try store.replicas.replica(service: "Demo", id: replica) == nil)
            let after = try await sync.sync(pollInterval: .milliseconds(20))
            #expect(after.errors.count == 2, "unregistered replicas no longer sync")
            #expect(after.layerResults.count == 4 && after.layerResults.values.allSatisfy { $0.error != nil }, "\(after.layerResults)")
        }
    }

    @Test func aSyncJobPausedOnTheWayIsResumedFromJSONAndSendsEachEditOnce() async throws {
        try await withLiveServer { serviceURL, _, device in
            let folder = try await OfflineMapAttachmentTests.takeOffline(serviceURL, device, "paused-sync") { $0.areaOfInterest = treeCorner }
            let demo = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            let trees = try demo.featureTable(layerId: 2)
            for index in 0..<3 {
                try await trees.add(
                    trees.makeFeature(attributes: ["species": .string("Paused \(index)")], geometry: .point(Point(x: 13.22, y: 52.42))))
            }
            demo.close()

            let sync = try OfflineMapSyncTask(offlineMapDirectory: folder)
            let job = try sync.makeOfflineMapSyncJob(parameters: sync.makeDefaultOfflineMapSyncParameters())
            job.pollInterval = .milliseconds(20)
            job.start()
            job.pause()
            while job.status == .started { try await Task.sleep(for: .milliseconds(5)) }
            #expect(job.status == .paused)

            let resumed = try OfflineMapSyncJob.fromJSON(try job.toJSON())
            #expect(resumed.status == .paused && resumed.parameters == OfflineMapSyncParameters())
            resumed.pollInterval = .milliseconds(20)
            let statusStream = resumed.statuses  // subscribed before the start: nothing missed
            let statuses = Task { await Array(statusStream) }
            resumed.start()
            let result = try await resumed.output
            #expect(!result.hasErrors && result.results["data/Demo.gpkg"]?.editsUploaded == 3, "\(result)")
            #expect(await statuses.value == [.paused, .started, .succeeded])
            #expect(resumed.progress.fractionCompleted == 1)
            let service = ServiceConnection(serviceURL: serviceURL)
            let sent = try await serverTrees(service).values.filter { $0["species"]?.stringValue?.hasPrefix("Paused") == true }
            #expect(sent.count == 3, "each edit once: \(sent)")
            #expect(try await sync.checkForUpdates().uploadAvailability == .none)
        }
    }
}
