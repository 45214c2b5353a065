import Foundation
import GRDB
import OutpostClient
import OutpostGeometry
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@Suite struct SyncWorkflowTests {
    @Test func twoReplicasEditOfflineSyncAndConvergeWithTheServer() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let a = try await generateTrees(task, to: "\(device)/a.gpkg")
            let b = try await generateTrees(task, to: "\(device)/b.gpkg")
            defer {
                a.close()
                b.close()
            }
            let server = try await serverTrees(task.connection)
            #expect(sameTrees(try localTrees(a), server))
            #expect(try !a.hasLocalEdits)

            // Offline: A adds, updates and deletes; B updates another tree and the one A deletes.
            let trees = try a.featureTable(layerId: 2)
            let ids = server.keys.sorted()
            let added = try a.add(
                LocalFeature(attributes: ["species": "Offline oak", "height_m": 3.5], geometry: .point(Point(x: 13.21, y: 52.41))), to: trees)
            try a.update(LocalFeature(attributes: ["GlobalID": .string(ids[0]), "height_m": 40.5]), in: trees)
            try a.delete(globalId: ids[1], from: trees)
            try b.update(LocalFeature(attributes: ["GlobalID": .string(ids[2]), "species": "Renamed by B"]), in: trees)
            #expect(try a.localEditCount == 3 && b.localEditCount == 1)

            let first = try await sync(task, a)
            #expect(first.editsUploaded == 3 && first.failedEdits.isEmpty)
            #expect(first.objectIdsAssigned == 1)
            let second = try await sync(task, b)
            #expect(second.changesApplied == 3)  // A's add, update and delete
            try await sync(task, a)  // B's update
            let now = try await serverTrees(task.connection)
            #expect(sameTrees(try localTrees(a), now))
            #expect(sameTrees(try localTrees(b), now))
            #expect(now[ids[2]]?["species"] == "Renamed by B" && now[ids[1]] == nil)
            // The local add carries the OBJECTID the server gave it.
            let addedId = try #require(added["GlobalID"]?.stringValue)
            #expect(try a.feature(globalId: addedId, in: trees)?["OBJECTID"] == now[addedId]?["OBJECTID"])
            #expect(try !a.hasLocalEdits && !b.hasLocalEdits)
        }
    }

    @Test func aRegisteredCopySyncsIndependentlyAndUnregisterEndsIt() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let original = try await generateTrees(task, to: "\(device)/original.gpkg")
            defer { original.close() }
            try FileManager.default.copyItem(atPath: "\(device)/original.gpkg", toPath: "\(device)/copy.gpkg")
            let copy = try Geodatabase.open("\(device)/copy.gpkg")
            defer { copy.close() }
            let copyId = try await task.registerSyncEnabledGeodatabase(copy)
            #expect(copyId != (try original.info().replicaId))
            let trees = try copy.featureTable(layerId: 2)
            let added = try copy.add(
                LocalFeature(attributes: ["species": "From the copy", "height_m": 1.5], geometry: .point(Point(x: 13.22, y: 52.42))), to: trees)
            try await sync(task, copy)
            let received = try await sync(task, original)
            #expect(received.changesApplied == 1)
            let addedId = try #require(added["GlobalID"]?.stringValue)
            #expect(try original.feature(globalId: addedId, in: trees)?["species"] == "From the copy")

            try await task.unregisterGeodatabase(copy)
            let job = task.makeSyncGeodatabaseJob(geodatabase: copy)
            job.pollInterval = .milliseconds(20)
            job.start()
            await #expect(throws: ClientError.self) { try await job.output }
            #expect(job.status == .failed)
        }
    }

    @Test func aSyncWaitsForTheOpenTransactionAndViceVersa() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/t.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            try geodatabase.beginTransaction()
            try geodatabase.add(LocalFeature(attributes: ["species": "In a transaction"], geometry: .point(Point(x: 13.21, y: 52.41))), to: trees)
            let refused = task.makeSyncGeodatabaseJob(geodatabase: geodatabase)
            refused.start()
            await #expect(throws: ClientError.transactionInProgress) { try await refused.output }
            try geodatabase.rollbackTransaction()
            #expect(try !geodatabase.hasLocalEdits)
            #expect(throws: ClientError.noTransaction) { try geodatabase.commitTransaction() }
        }
    }

    @Test func localQueriesFilterByAttributesAndEnvelopeAndRefuseInjection() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/q.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            let all = try geodatabase.query(trees)
            let tall = try geodatabase.query(trees, where: "height_m > 20")
            #expect(!tall.isEmpty && tall.count < all.count)
            #expect(tall.allSatisfy { ($0["height_m"]?.doubleValue ?? 0) > 20 })
            let box = Envelope(xmin: 13.2, ymin: 52.4, xmax: 13.23, ymax: 52.43)
            let inBox = try geodatabase.query(trees, envelope: box)
            #expect(
                inBox.allSatisfy { feature in
                    guard case .point(let p)? = feature.geometry else { return false }
                    return p.x >= 13.2 && p.x <= 13.23 && p.y >= 52.4 && p.y <= 52.43
                })
            #expect(inBox.count < all.count)
            #expect(throws: (any Error).self) { try geodatabase.query(trees, where: "1=1; DROP TABLE Trees") }
            #expect(try geodatabase.count(trees) == all.count)
        }
    }
}

/// The replica's layer definitions carry the fields' domains, so edits made offline are
/// checked as the server checks them (docs/decisions.md, "Field domains").
@Suite struct OfflineDomainTests {
    @Test func anOfflineEditOutsideADomainIsRefusedOnTheDevice() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/domains.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            #expect(trees.field(named: "healthy")?.fieldDomain?.name == "YesNo")
            #expect(throws: ClientError.self) {
                try geodatabase.add(LocalFeature(attributes: ["healthy": 2], geometry: .point(Point(x: 13.21, y: 52.41))), to: trees)
            }
            #expect(throws: ClientError.self) {
                try geodatabase.add(LocalFeature(attributes: ["height_m": 151], geometry: .point(Point(x: 13.21, y: 52.41))), to: trees)
            }
            let kept = try geodatabase.add(
                LocalFeature(attributes: ["healthy": 1, "height_m": 150], geometry: .point(Point(x: 13.21, y: 52.41))), to: trees)
            let edits = try geodatabase.localEditCount
            #expect(kept["GlobalID"] != nil && edits == 1)
        }
    }
}
