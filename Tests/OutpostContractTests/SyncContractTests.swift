import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The sync side of the store contract: edits and their generations, the sync upload with its
/// decisions, conflicts and receipts, and the change feed — at store level, no HTTP.
@Suite struct SyncContractTests {
    @Test(arguments: SyncContractBackend.all)
    func editsCommitWithANewGenerationOrNotAtAll(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        let before = try store.edits.currentGeneration()
        let replica = try Contract.createReplica(store)
        let outcome = try store.edits.applyEdits(
            service: Contract.service, edits: [LayerEdits(layerId: 0, adds: [Contract.point("a"), Contract.point("b")])],
            options: EditOptions())
        // A new generation, later than any before (SpatiaLite: the next counter value;
        // PostgreSQL: the writing transaction, and a later tick).
        let after = try store.edits.currentGeneration()
        #expect(outcome.generation != nil && after > before)
        #expect(try outcome.layers[0].addResults.allSatisfy(\.success) && store.features.count(service: Contract.service, layer: 0) == 2)
        // rollbackOnFailure: one bad edit (an update of a missing feature) and nothing commits.
        let failed = try store.edits.applyEdits(
            service: Contract.service,
            edits: [
                LayerEdits(
                    layerId: 0, adds: [Contract.point("c")],
                    updates: [EditFeature(attributes: ["OBJECTID": .int(999)])])
            ],
            options: EditOptions(rollbackOnFailure: true))
        #expect(try failed.generation == nil && store.features.count(service: Contract.service, layer: 0) == 2)
        // What committed reaches a replica from before, exactly: the two adds, not the rolled-back one.
        let (answer, _) = try Contract.answer(store, try Contract.syncPlan(replica, edits: nil), upload: nil)
        #expect(Contract.changes(answer).adds.count == 2 && Contract.changes(answer).updates.isEmpty, "\(answer)")
    }

    @Test(arguments: SyncContractBackend.all)
    func anUploadIsDecidedByTheRulesAndKeepsWhatItOverwrites(_ backend: SyncContractBackend) throws {
        let (store, clock) = try backend.fresh()
        let kept = GlobalID.make()
        let contested = GlobalID.make()
        try Contract.edit(
            store,
            LayerEdits(
                layerId: 0,
                adds: [
                    Contract.point("kept", globalId: kept), Contract.point("contested", globalId: contested),
                ]))
        let replica = try Contract.createReplica(store)
        // Another writer changes the contested feature after the replica's generation.
        try Contract.edit(
            store,
            LayerEdits(
                layerId: 0,
                updates: [
                    EditFeature(attributes: ["GlobalID": .string(contested), "label": .string("online")])
                ]))
        clock.advance(milliseconds: 60_000)
        let added = GlobalID.make()
        let edits = LayerEdits(
            layerId: 0, adds: [Contract.point("from the device", globalId: added)],
            updates: [EditFeature(attributes: ["GlobalID": .string(contested), "label": .string("device")])],
            deletes: [.globalId(kept)])
        let plan = try Contract.syncPlan(replica, edits: edits)
        let outcome = try store.sync.applySyncUpload(plan, fingerprint: [1, 2, 3])
        #expect(!outcome.replayed && outcome.generation != nil)
        #expect(
            outcome.results[0].addResults.allSatisfy(\.success) && outcome.results[0].updateResults.allSatisfy(\.success)
                && outcome.results[0].deleteResults.allSatisfy(\.success))
        // Last in wins, and the overwritten online value is in the conflict log, stamped by the clock.
        #expect(outcome.conflictsRecorded == 1)
        let conflicts = try store.conflicts.conflicts(service: Contract.service, replicaId: replica.id)
        #expect(conflicts.count == 1 && conflicts[0].globalId == contested && conflicts[0].overwrittenBy == nil)
        #expect(conflicts[0].recordedAt == clock.milliseconds() && conflicts[0].feature?["attributes"]?["label"]?.stringValue == "online")
        #expect(try store.replicas.allReplicas().count == 1)
        // The same upload again (a retry after a lost answer) is answered from its receipt and
        // commits nothing: the next download from before the retry finds no change.
        let marker = try Contract.createReplica(store, name: "marker")
        let retry = try store.sync.applySyncUpload(plan, fingerprint: [1, 2, 3])
        #expect(retry.replayed && retry.results == outcome.results && retry.generation == nil)
        #expect(try store.features.count(service: Contract.service, layer: 0) == 2)
        let (quiet, _) = try Contract.answer(store, try Contract.syncPlan(marker, edits: nil), upload: nil)
        let none = Contract.changes(quiet)
        #expect(none.adds.isEmpty && none.updates.isEmpty && none.deletes.isEmpty, "\(quiet)")
    }

    @Test(arguments: SyncContractBackend.all)
    func theChangeFeedSendsWhatTheRulesDecideAndNeverTheReplicasOwnUpload(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        let updated = GlobalID.make()
        let deleted = GlobalID.make()
        let untouched = GlobalID.make()
        try Contract.edit(
            store,
            LayerEdits(
                layerId: 0,
                adds: [
                    Contract.point("updated", globalId: updated), Contract.point("deleted", globalId: deleted),
                    Contract.point("untouched", globalId: untouched),
                ]))
        let replica = try Contract.createReplica(store)
        let addedOnline = GlobalID.make()
        try Contract.edit(
            store,
            LayerEdits(
                layerId: 0,
                adds: [Contract.point("online", globalId: addedOnline)],
                updates: [EditFeature(attributes: ["GlobalID": .string(updated), "label": .string("changed")])],
                deletes: [.globalId(deleted)]))
        let fromDevice = GlobalID.make()
        let plan = try Contract.syncPlan(replica, edits: LayerEdits(layerId: 0, adds: [Contract.point("device", globalId: fromDevice)]))
        let upload = try store.sync.applySyncUpload(plan, fingerprint: [9])
        let (answer, summary) = try Contract.answer(store, plan, upload: upload)
        let changes = Contract.changes(answer)
        #expect(changes.adds == [addedOnline], "\(answer)")
        #expect(changes.updates == [updated], "\(answer)")
        #expect(changes.deletes == [deleted], "\(answer)")
        // The generation handed out covers everything committed, and is recorded for the next sync.
        #expect(try summary.generation <= store.edits.currentGeneration())
        try store.sync.recordSync(plan, generations: summary.generations, close: false)
        let next = try #require(try store.replicas.replica(service: Contract.service, id: replica.id))
        #expect(next.layers[0].serverGen == summary.generation)
        let (quiet, _) = try Contract.answer(store, try Contract.syncPlan(next, edits: nil), upload: nil)
        let none = Contract.changes(quiet)
        #expect(none.adds.isEmpty && none.updates.isEmpty && none.deletes.isEmpty, "\(quiet)")
    }
}
