import Foundation
import OutpostPostgres
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Sync on PostgreSQL under several processes (docs/postgres.md, "Sync"): each
/// `PostgresBackend` here has its own connection pool, as a server process would.
@Suite(.serialized) struct PostgresSyncRaceTests {
    static func point(_ label: String, globalId: String = GlobalID.make()) -> EditFeature {
        EditFeature(attributes: ["label": .string(label), "GlobalID": .string(globalId)], geometry: ["x": .double(1), "y": .double(2)])
    }

    static func createReplica(_ backend: PostgresBackend, name: String) throws -> ReplicaDefinition {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", name)]))
        let plan = try ReplicaPlanner.plan(
            request, service: try backend.schema.service(named: "Points").definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: backend.clock.milliseconds())
        let (definition, _) = try backend.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        return try backend.replicas.registerReplica(definition)
    }

    static func plan(_ replica: ReplicaDefinition, edits: LayerEdits?) throws -> SyncPlan {
        try SyncPlanner.plan(
            try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)])), replica: replica, edits: edits.map { [$0] })
    }

    @Test func theSameUploadSentToTwoProcessesAtOnceAppliesOnce() throws {
        let location = try TestPostgres.makeDatabase(label: "twice")
        let first = try PostgresBackend(location)
        let second = try PostgresBackend(location)
        try first.schema.createService(pointLayerService(name: "Points"))
        for round in 0..<5 {
            let replica = try Self.createReplica(first, name: "device\(round)")
            let plan = try Self.plan(replica, edits: LayerEdits(layerId: 0, adds: (0..<200).map { Self.point("r\(round)-\($0)") }))
            let outcomes = try onThreads(2) { index in try (index == 0 ? first : second).sync.applySyncUpload(plan, fingerprint: [UInt8(round), 7]) }
            #expect(outcomes.filter(\.replayed).count == 1, "one applied, the other answered from its receipt")
            #expect(outcomes[0].results == outcomes[1].results)
        }
        let count = try first.features.count(service: "Points", layer: 0)
        #expect(count == 5 * 200)
    }

    /// The reference's race at the level of sync: eight writers in their own processes add
    /// features while a device syncs in a loop through a third; every add reaches the device
    /// exactly once, as an add.
    @Test func aDeviceSyncingWhileEightWritersCommitMissesNothingAndGetsNothingTwice() throws {
        let location = try TestPostgres.makeDatabase(label: "race")
        let device = try PostgresBackend(location, maximumConnections: 2)
        try device.schema.createService(pointLayerService(name: "Points"))
        let replicaId = try Self.createReplica(device, name: "device").id
        let committed = Guarded<[String]>([])
        let received = Guarded<[String]>([])
        let stop = Guarded(false)
        _ = try onThreads(9) { index in
            if index < 8 {
                let writer = try PostgresBackend(location, maximumConnections: 1)
                var count = 0
                while !stop.value {
                    let id = GlobalID.make()
                    _ = try writer.edits.applyEdits(
                        service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point("w\(index)", globalId: id)])], options: EditOptions())
                    committed.withLock { $0.append(id) }
                    count += 1
                }
                return
            }
            let until = ContinuousClock.now + .seconds(3)
            let cap = ContinuousClock.now + .seconds(60)
            defer { stop.withLock { $0 = true } }
            while ContinuousClock.now < until || (committed.value.count < 200 && ContinuousClock.now < cap) {
                let replica = try #require(try device.replicas.replica(service: "Points", id: replicaId))
                let plan = try Self.plan(replica, edits: nil)
                var bytes: [UInt8] = []
                let summary = try device.sync.writeSyncAnswer(plan, upload: nil, write: { bytes += $0 }, attachmentURL: nil)
                let answer = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))
                let adds = answer["edits"]?.arrayValue?.first?["features"]?["adds"]?.arrayValue ?? []
                let updates = answer["edits"]?.arrayValue?.first?["features"]?["updates"]?.arrayValue ?? []
                #expect(updates.isEmpty, "nothing was changed, only added")
                received.withLock { $0 += adds.compactMap { $0["attributes"]?["GlobalID"]?.stringValue } }
                try device.sync.recordSync(plan, generations: summary.generations, close: false)
            }
        }
        let plan = try Self.plan(try #require(try device.replicas.replica(service: "Points", id: replicaId)), edits: nil)
        var bytes: [UInt8] = []
        _ = try device.sync.writeSyncAnswer(plan, upload: nil, write: { bytes += $0 }, attachmentURL: nil)
        let last = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))
        let all =
            received.value
            + (last["edits"]?.arrayValue?.first?["features"]?["adds"]?.arrayValue ?? []).compactMap {
                $0["attributes"]?["GlobalID"]?.stringValue
            }
        let written = Set(committed.value)
        print(
            "sync race: \(written.count) adds by 8 writer processes; device missed \(written.subtracting(all).count), got \(all.count - Set(all).count) twice"
        )
        #expect(written.count >= 200)
        #expect(Set(all) == written && all.count == written.count)
    }

    /// A device's update of a feature an online editor is deleting at that moment: the upload
    /// waits for the delete's row lock, then finds the tombstone, undoes the delete (last in
    /// wins, logged) and removes the tombstone, so the device's next download does not delete
    /// the feature it just wrote. The delete is held open by a trigger waiting on an advisory
    /// lock the test holds, so the two interleave the same way every run.
    @Test func anUpdateWaitingOnAConcurrentDeleteUndoesItAndLeavesNoTombstone() throws {
        let location = try TestPostgres.makeDatabase(label: "undelete")
        let backend = try PostgresBackend(location, maximumConnections: 4)
        try backend.schema.createService(pointLayerService(name: "Points"))
        let table = try backend.schema.service(named: "Points").layers[0].tableName
        let globalId = GlobalID.make()
        _ = try backend.edits.applyEdits(
            service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point("online", globalId: globalId)])], options: EditOptions())
        let replica = try Self.createReplica(backend, name: "device")
        let held = try HeldWrite("DELETE", on: table, key: 4242, location: location)
        let (control, waitFor) = (held.control, held.waitFor)
        let update = LayerEdits(
            layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(globalId), "label": .string("device")])])
        let plan = try Self.plan(replica, edits: update)
        // The online delete, held open after its row is gone; the device's upload once the
        // delete holds; and, once the upload waits for the deleted row, the delete let go.
        let outcomes = try onThreads(3) { index -> SyncUploadOutcome? in
            switch index {
            case 0:
                _ = try backend.edits.applyEdits(
                    service: "Points", edits: [LayerEdits(layerId: 0, deletes: [.globalId(globalId)])], options: EditOptions(useGlobalIds: true))
            case 1:
                try waitFor("advisory")
                return try backend.sync.applySyncUpload(plan, fingerprint: [1])
            default:
                try waitFor("advisory")
                try waitFor("transactionid")
                try held.release()
            }
            return nil
        }
        let upload = try #require(outcomes[1])
        #expect(upload.results.first?.updateResults.first?.success == true)
        let tombstones = try control.query("SELECT count(*) FROM outpost_tombstones WHERE global_id = \(globalId)").first?.int(0)
        #expect(tombstones == 0, "the undone delete's tombstone is gone")
        let conflicts = try backend.conflicts.conflicts(service: "Points", replicaId: replica.id)
        #expect(conflicts.map(\.overwrittenChange) == ["delete"], "the undone delete is in the conflict log")
        /// The GlobalIDs an answer tells the device to delete.
        func deleted(_ plan: SyncPlan, upload: SyncUploadOutcome?) throws -> (ids: [JSONValue], summary: SyncAnswerSummary) {
            var bytes: [UInt8] = []
            let summary = try backend.sync.writeSyncAnswer(plan, upload: upload, write: { bytes += $0 }, attachmentURL: nil)
            let answer = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))
            return (answer["edits"]?.arrayValue?.first?["features"]?["deleteIds"]?.arrayValue ?? [], summary)
        }
        // Neither the sync's own answer nor the next one deletes the feature the device wrote.
        let answer = try deleted(plan, upload: upload)
        #expect(answer.ids.isEmpty, "the sync's answer keeps the feature: \(answer.ids)")
        try backend.sync.recordSync(plan, generations: answer.summary.generations, close: false)
        let next = try deleted(try Self.plan(try #require(try backend.replicas.replica(service: "Points", id: replica.id)), edits: nil), upload: nil)
        #expect(next.ids.isEmpty, "the next answer keeps the feature: \(next.ids)")
        let label = try control.query("SELECT label FROM \(unescaped: PostgresQuery.quoted(identifier: table)) WHERE \"GlobalID\" = \(globalId)")
        #expect(label.first?.string(0) == "device")
    }
}
