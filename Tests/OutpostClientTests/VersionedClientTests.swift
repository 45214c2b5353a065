import Foundation
import OutpostClient
import OutpostWire
import Testing

@Suite struct VersionedClientTests {
    /// The Parcels service is versioned: the client syncs it per replica, in each direction.
    @Test func aVersionedReplicaSyncsInEachDirection() async throws {
        try await withLiveServer { url, _, device in
            let parcelsURL = url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Parcels/FeatureServer")
            let task = GeodatabaseSyncTask(url: parcelsURL)
            let parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: nil)
            #expect(parameters.syncModel == .perReplica)
            let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: "\(device)/parcels.gpkg"))
            job.pollInterval = .milliseconds(20)
            job.start()
            _ = try await job.output
            let geodatabase = try Geodatabase.open("\(device)/parcels.gpkg")
            defer { geodatabase.close() }
            let parcels = try geodatabase.featureTable(layerId: 0)
            let ids = try geodatabase.query(parcels).compactMap { $0["GlobalID"]?.stringValue }.sorted()
            #expect(ids.count == 400)
            func server(_ id: String) async throws -> JSONObject? {
                try await task.connection.getJSON(task.connection.url("0/query"), [("where", "GlobalID = '\(id)'"), ("outFields", "*")])["features"]?[
                    0]?["attributes"]?.objectValue
            }
            let generation = try geodatabase.info().replicaServerGen

            // Upload only: the edit is posted, nothing comes down, the generation stays.
            try geodatabase.update(LocalFeature(attributes: ["GlobalID": .string(ids[0]), "owner": "Uploaded"]), in: parcels)
            let up = try await sync(task, geodatabase, SyncGeodatabaseParameters(syncDirection: .upload))
            #expect(up.editsUploaded == 1 && up.changesApplied == 0)
            #expect(try await server(ids[0])?["owner"] == "Uploaded")
            #expect(try geodatabase.info().replicaServerGen == generation && !geodatabase.hasLocalEdits)

            // Download only: DEFAULT's changes come down; local edits stay pending.
            _ = try await task.connection.postForm(
                task.connection.url("0/applyEdits"),
                [
                    ("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(ids[1])","zoning":"Z9"}}]"#),
                ])
            try geodatabase.update(LocalFeature(attributes: ["GlobalID": .string(ids[2]), "owner": "Pending"]), in: parcels)
            let down = try await sync(task, geodatabase, SyncGeodatabaseParameters(syncDirection: .download))
            #expect(down.editsUploaded == 0)
            #expect(try geodatabase.feature(globalId: ids[1], in: parcels)?["zoning"] == "Z9")
            #expect(try geodatabase.info().replicaServerGen > generation)
            #expect(try geodatabase.localEditCount == 1)
            #expect(try await server(ids[2])?["owner"] != "Pending")

            // Bidirectional, with DEFAULT changing another field of the same parcel: merged both ways.
            _ = try await task.connection.postForm(
                task.connection.url("0/applyEdits"),
                [
                    ("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(ids[2])","zoning":"Z7"}}]"#),
                ])
            try await sync(task, geodatabase)
            let merged = try #require(try await server(ids[2]))
            #expect(merged["owner"] == "Pending" && merged["zoning"] == "Z7")
            let local = try #require(try geodatabase.feature(globalId: ids[2], in: parcels))
            #expect(local["owner"] == "Pending" && local["zoning"] == "Z7")
            #expect(try !geodatabase.hasLocalEdits)
        }
    }
}
