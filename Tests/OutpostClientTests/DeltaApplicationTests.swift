import Foundation
import OutpostGeometry
import OutpostWire
import Testing

@testable import OutpostClient

@Suite struct DeltaApplicationTests {
    /// Edits made after the upload was taken: a server change to such a feature is held back
    /// (the local edit is later), and a local add whose provisional OBJECTID the server gave
    /// to another feature moves out of its way. Nothing is lost, nothing logged twice.
    @Test func editsMadeWhileASyncRunsWinAndMoveOutOfTheWay() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/during.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            let info = try geodatabase.info()
            let held = try localTrees(geodatabase).keys.sorted()
            // The upload is taken (nothing to send), then the device edits on.
            let (_, through) = try geodatabase.pendingUpload()
            try geodatabase.update(LocalFeature(attributes: ["GlobalID": .string(held[0]), "height_m": 11.5]), in: trees)
            // Meanwhile online: the same tree changes, and a new tree takes the next OBJECTID.
            let online = try await task.connection.postForm(
                task.connection.url("2/applyEdits"),
                [
                    ("updates", #"[{"attributes":{"GlobalID":"\#(held[0])","height_m":99}}]"#), ("useGlobalIds", "true"),
                    (
                        "adds",
                        #"[{"attributes":{"GlobalID":"{00000000-0000-4000-8000-0000000000AD}","species":"Online"},"geometry":{"x":13.22,"y":52.42}}]"#
                    ),
                ])
            let onlineObjectId = try #require(online["addResults"]?[0]?["objectId"]?.int64Value)
            // Local adds up to that same OBJECTID: the case under test.
            let localMax = try geodatabase.query(trees).compactMap { $0["OBJECTID"]?.int64Value }.max() ?? 0
            let addedLocally = try geodatabase.addAll(
                (localMax..<onlineObjectId).map { i in
                    LocalFeature(attributes: ["species": .string("Added meanwhile \(i)")], geometry: .point(Point(x: 13.21, y: 52.41)))
                }, to: trees)
            let local = try #require(addedLocally.last)
            #expect(local["OBJECTID"]?.int64Value == onlineObjectId)
            // The download the sync would get.
            let answer = try await task.connection.postForm(
                task.connection.url("synchronizeReplica"),
                [
                    ("replicaID", info.replicaId), ("dataFormat", "sqlite"),
                    ("syncLayers", #"[{"id":2,"serverGen":\#(trees.serverGen),"syncDirection":"download"}]"#),
                ])
            let deltaURL = try #require(answer["URL"]?.stringValue.flatMap(URL.init(string:)))
            let (bytes, _) = try await task.connection.download(deltaURL, offset: 0, length: 1 << 24)
            let deltaPath = "\(device)/download.gpkg"
            try bytes.write(to: URL(fileURLWithPath: deltaPath))

            let applied = try geodatabase.applyDelta(at: deltaPath, throughChangeId: through, uploadedLayers: [2])
            #expect(applied.changesDeferred == 1 && applied.changesApplied == 1)
            #expect(try geodatabase.feature(globalId: held[0], in: trees)?["height_m"] == 11.5)
            let serverRow = try #require(try geodatabase.feature(globalId: "{00000000-0000-4000-8000-0000000000AD}", in: trees))
            #expect(serverRow["OBJECTID"]?.int64Value == onlineObjectId)
            let localId = try #require(local["GlobalID"]?.stringValue)
            let moved = try #require(try geodatabase.feature(globalId: localId, in: trees))
            #expect(moved["OBJECTID"]?.int64Value ?? 0 > onlineObjectId)
            // Every local edit still pending, nothing else.
            #expect(try geodatabase.localEditCount == 1 + addedLocally.count)
            #expect(try geodatabase.info().layers.first?.serverGen ?? 0 > trees.serverGen)
        }
    }

    @Test func largeEditsGoUpAsAnUploadedFile() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/large.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            try geodatabase.addAll(
                (0..<50).map { i in
                    LocalFeature(attributes: ["species": .string("Batch \(i)")], geometry: .point(Point(x: 13.2 + Double(i) / 1000, y: 52.41)))
                }, to: trees)
            let job = task.makeSyncGeodatabaseJob(geodatabase: geodatabase)
            job.inlineEditsLimit = 100
            job.pollInterval = .milliseconds(20)
            job.start()
            let result = try await job.output
            #expect(result.editsUploaded == 50)
            let state = try JSONParser.parse(String(decoding: try job.toJSON(), as: UTF8.self))
            #expect(state["editsUploadID"]?.stringValue?.hasPrefix("i") == true)
            let batch = try await serverTrees(task.connection).values.filter { $0["species"]?.stringValue?.hasPrefix("Batch ") == true }
            #expect(batch.count == 50)
            #expect(sameTrees(try localTrees(geodatabase), try await serverTrees(task.connection)))
            #expect(try !geodatabase.hasLocalEdits)
        }
    }
}
