import Foundation
import GRDB
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// A download delta (`dataFormat=sqlite`, docs/replica-format.md "Deltas") carries exactly the
/// changes of the JSON answer of the same sync, on every backend. (PostgreSQL's delta once
/// listed none: its change reader was used before it had decided any row.)
@Suite struct DeltaContractTests {
    @Test(arguments: SyncContractBackend.all)
    func aDeltaListsTheChangesTheJSONAnswerSends(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        let (updated, deleted) = (GlobalID.make(), GlobalID.make())
        try Contract.edit(
            store, LayerEdits(layerId: 0, adds: [Contract.point("u", globalId: updated), Contract.point("d", globalId: deleted)]))
        let replica = try Contract.createReplica(store)
        let added = GlobalID.make()
        try Contract.edit(
            store,
            LayerEdits(
                layerId: 0, adds: [Contract.point("new", globalId: added)],
                updates: [EditFeature(attributes: ["GlobalID": .string(updated), "label": .string("changed")])],
                deletes: [.globalId(deleted)]))
        let plan = try Contract.syncPlan(replica, edits: nil)
        let (answer, _) = try Contract.answer(store, plan, upload: nil)
        let json = Contract.changes(answer)
        #expect(json.adds == [added] && json.updates == [updated] && json.deletes == [deleted], "\(answer)")

        let path = NSTemporaryDirectory() + "delta-contract-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let summary = try store.sync.writeSyncDelta(plan, upload: nil, to: path, serviceURL: "", serviceJSON: .null, layerJSON: [:])
        #expect(summary.responseType == .edits)
        let listed = try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT operation, global_id FROM outpost_sync_changes WHERE item = 'feature' AND layer_id = 0").map {
                "\($0["operation"] as String) \($0["global_id"] as String)"
            }
        }
        #expect(Set(listed) == ["insert \(added)", "update \(updated)", "delete \(deleted)"], "\(listed)")
    }

    /// A replica file records the generation its rows were read at, per layer as for the
    /// replica (PostgreSQL's files once recorded 0, so a device's next sync sent every row again).
    @Test(arguments: SyncContractBackend.all)
    func anExportedFileRecordsTheGenerationOfItsRows(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        try Contract.edit(store, LayerEdits(layerId: 0, adds: [Contract.point("before", globalId: GlobalID.make())]))
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", "file")]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.service(named: Contract.service).definition, replicaId: GlobalID.make(), owner: "ada",
            takenNames: [], now: store.clock.milliseconds())
        let path = NSTemporaryDirectory() + "export-contract-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (definition, counts) = try store.sync.exportReplica(
            plan, to: .geoPackage(path: path), serviceURL: "", serviceJSON: .null, layerJSON: [:], phase: { _ in })
        #expect(counts.features == 1 && definition.replicaServerGen > 0)
        let recorded = try DatabaseQueue(path: path).read { db in
            (
                try Int64.fetchOne(db, sql: "SELECT replica_server_gen FROM outpost_sync_replica"),
                try Int64.fetchAll(db, sql: "SELECT server_gen FROM outpost_sync_layers")
            )
        }
        #expect(recorded.0 == definition.replicaServerGen && recorded.1 == [definition.layers[0].serverGen], "\(recorded)")
        #expect(definition.layers[0].serverGen == definition.replicaServerGen)
    }
}
