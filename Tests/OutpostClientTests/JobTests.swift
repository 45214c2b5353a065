import Foundation
import GRDB
import OutpostClient
import OutpostGeometry
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

/// The job's serialized state, as a dictionary.
func jobState<Output>(_ job: Job<Output>) throws -> JSONValue {
    try JSONParser.parse(String(decoding: try job.toJSON(), as: UTF8.self))
}

@Suite struct JobTests {
    @Test func aGenerateJobPausedMidDownloadResumesFromJSONInANewJob() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: nil)
            parameters.layerOptions = parameters.layerOptions.filter { $0.layerId == 2 }.map {
                var o = $0
                o.queryOption = .all
                return o
            }
            let path = "\(device)/paused.gpkg"
            let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: path))
            #expect(job.status == .notStarted)
            job.pollInterval = .milliseconds(10)
            job.downloadChunkSize = 2048
            job.start()
            #expect(job.status == .started)
            // Pause once the download is under way.
            var state = JSONValue.null
            // Polled until then, however long a loaded machine takes to get there.
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                state = try jobState(job)
                if state["step"] == "download", (state["receivedBytes"]?.int64Value ?? 0) > 4096 { break }
                try await Task.sleep(for: .milliseconds(2))
            }
            job.pause()
            while job.status != .paused, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(job.status == .paused)
            let json = try job.toJSON()
            state = try JSONParser.parse(String(decoding: json, as: UTF8.self))
            let received = state["receivedBytes"]?.int64Value ?? 0
            let total = state["totalBytes"]?.int64Value ?? 0
            #expect(state["step"] == "download" && received > 0 && received < total)
            let progress = job.progress.fractionCompleted
            #expect(progress > 0.3 && progress < 0.95)
            #expect(!FileManager.default.fileExists(atPath: path))

            // Another process: the job from its JSON continues the download where it stopped.
            let restored = try GenerateGeodatabaseJob.fromJSON(json)
            #expect(restored.id == job.id)
            #expect(restored.status == .paused)
            restored.pollInterval = .milliseconds(10)
            restored.start()
            #expect(try await restored.output.path == path)
            #expect(restored.messages.contains { $0.text.contains("resumed") })
            let geodatabase = try Geodatabase.open(path)
            defer { geodatabase.close() }
            let count = try await task.connection.getJSON(task.connection.url("2/query"), [("where", "1=1"), ("returnCountOnly", "true")])["count"]?
                .int64Value
            #expect(try geodatabase.count(try geodatabase.featureTable(layerId: 2)) == Int(count ?? -1))
            #expect(try FileManager.default.contentsOfDirectory(atPath: device).filter { $0.hasSuffix(".partial") }.isEmpty)
        }
    }

    @Test func aCancelledJobFailsWithCancellationAndLeavesNothingHalfDone() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: nil)
            parameters.layerOptions = parameters.layerOptions.filter { $0.layerId == 2 }
            let path = "\(device)/cancelled.gpkg"
            let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: path))
            job.downloadChunkSize = 1024
            job.pollInterval = .milliseconds(10)
            job.start()
            try await Task.sleep(for: .milliseconds(30))
            job.cancel()
            await #expect(throws: ClientError.cancelled) { try await job.output }
            #expect(job.status == .failed)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: device).isEmpty)
            // A job cancelled before it started never starts.
            let unstarted = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: path))
            unstarted.cancel()
            unstarted.start()
            #expect(unstarted.status == .failed)

            // A sync cancelled midway leaves the geodatabase as it was: the edit is still pending,
            // and the next sync uploads it exactly once.
            let geodatabase = try await generateTrees(task, to: "\(device)/edited.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            let added = try geodatabase.add(
                LocalFeature(attributes: ["species": "Once only", "height_m": 2], geometry: .point(Point(x: 13.21, y: 52.41))), to: trees)
            let syncing = task.makeSyncGeodatabaseJob(geodatabase: geodatabase)
            syncing.pollInterval = .milliseconds(10)
            syncing.start()
            syncing.cancel()
            await #expect(throws: ClientError.cancelled) { try await syncing.output }
            #expect(try geodatabase.localEditCount == 1)
            try await sync(task, geodatabase)
            try await sync(task, geodatabase)
            let onServer = try await serverTrees(task.connection).values.filter { $0["species"] == "Once only" }
            #expect(onServer.count == 1)
            #expect(onServer.first?["GlobalID"] == added["GlobalID"])
            #expect(try !geodatabase.hasLocalEdits)
        }
    }

    @Test func aSubmissionRefusedWith429IsRetriedAfterRetryAfter() async throws {
        try await withLiveServer { url, store, device in
            let gateway = LossyGateway(failOn: "/createReplica", failures: 2, refuseWithRetryAfter: 1)
            try await gateway.run(backend: url) { gatewayURL in
                let task = GeodatabaseSyncTask(url: gatewayURL)
                let started = ContinuousClock.now
                let geodatabase = try await generateTrees(task, to: "\(device)/busy.gpkg")
                defer { geodatabase.close() }
                #expect(gateway.lost.withLock { $0 } == 2)
                // It waited as told (1 s each time), then got its replica: one, registered once.
                #expect(ContinuousClock.now - started >= .seconds(2))
                #expect(try store.replicas.replicas(service: "Demo").count == 1)
                #expect(try geodatabase.featureTable(layerId: 2).layerId == 2)
            }
        }
    }

    @Test func answersLostOnTheWayAreRetriedAndNothingIsLostOrDuplicated() async throws {
        try await withLiveServer { url, store, device in
            let gateway = LossyGateway(failOn: "/synchronizeReplica", failures: 2)
            try await gateway.run(backend: url) { gatewayURL in
                let task = GeodatabaseSyncTask(url: gatewayURL)
                let geodatabase = try await generateTrees(task, to: "\(device)/lossy.gpkg")
                defer { geodatabase.close() }
                let trees = try geodatabase.featureTable(layerId: 2)
                let before = try await serverTrees(task.connection)
                let ids = before.keys.sorted()
                try geodatabase.add(
                    LocalFeature(attributes: ["species": "Through a bad link", "height_m": 5], geometry: .point(Point(x: 13.22, y: 52.43))), to: trees
                )
                try geodatabase.update(LocalFeature(attributes: ["GlobalID": .string(ids[0]), "height_m": 66.5]), in: trees)
                try geodatabase.delete(globalId: ids[1], from: trees)
                let generationBefore = try store.edits.currentGeneration()
                let result = try await sync(task, geodatabase)
                #expect(gateway.lost.withLock { $0 } == 2)
                #expect(result.editsUploaded == 3 && result.failedEdits.isEmpty)
                // Applied once: one new generation, one new tree, and the device equals the server.
                #expect(try store.edits.currentGeneration() == generationBefore + 1)
                let after = try await serverTrees(task.connection)
                #expect(after.values.filter { $0["species"] == "Through a bad link" }.count == 1)
                #expect(after.count == before.count)
                #expect(sameTrees(try localTrees(geodatabase), after))
                #expect(try !geodatabase.hasLocalEdits)
            }
        }
    }
}
