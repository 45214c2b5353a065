import Foundation
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Devices and online editors at once, on every backend (`docs/sync-semantics.md`): each
/// device keeps the features it holds, edits them, and syncs (upload, then the answer
/// applied) while editors change the same features online, all on threads of their own. When
/// the edits stop and every device has synced twice, every device holds exactly what the
/// server holds, and the uploads that overwrote unseen changes left them in the conflict log.
@Suite struct ConvergenceContractTests {
    /// One device: the features it holds (GlobalID → label) and its edits not yet sent.
    final class Device: @unchecked Sendable {
        var replica: ReplicaDefinition
        var held: [String: String] = [:]
        var pendingAdds: [String: String] = [:]
        var pendingUpdates: [String: String] = [:]
        var pendingDeletes: Set<String> = []
        var acknowledgedAdds: Set<String> = []
        var random: SeededGenerator

        init(replica: ReplicaDefinition, held: [String: String], seed: UInt64) {
            self.replica = replica
            self.held = held
            random = SeededGenerator(seed: seed)
        }

        func edit(_ step: Int) {
            let existing = held.keys.sorted()
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4 where !existing.isEmpty:
                let id = existing.randomElement(using: &random)!
                held[id] = "d\(step)"
                if pendingAdds[id] != nil { pendingAdds[id] = "d\(step)" } else { pendingUpdates[id] = "d\(step)" }
            case 4 where !existing.isEmpty:
                let id = existing.randomElement(using: &random)!
                held[id] = nil
                if pendingAdds.removeValue(forKey: id) == nil {
                    pendingUpdates[id] = nil
                    pendingDeletes.insert(id)
                }
            default:
                let id = GlobalID.make()
                held[id] = "a\(step)"
                pendingAdds[id] = "a\(step)"
            }
        }

        func sync(_ store: some SyncBackend) throws {
            let edits = LayerEdits(
                layerId: 0, adds: pendingAdds.map { Contract.point($0.value, globalId: $0.key) },
                updates: pendingUpdates.map { EditFeature(attributes: ["GlobalID": .string($0.key), "label": .string($0.value)]) },
                deletes: pendingDeletes.map { .globalId($0) })
            let plan = try Contract.syncPlan(replica, edits: edits.adds.isEmpty && edits.updates.isEmpty && edits.deletes.isEmpty ? nil : edits)
            var fingerprint = [UInt8](repeating: 0, count: 16)
            for index in fingerprint.indices { fingerprint[index] = UInt8.random(in: 0...255, using: &random) }
            let upload = try store.sync.applySyncUpload(plan, fingerprint: fingerprint)
            let results = upload.results.first
            #expect(results.map { $0.all.allSatisfy(\.success) } ?? true, "every upload edit is accepted: \(String(describing: results))")
            acknowledgedAdds.formUnion(pendingAdds.keys)
            (pendingAdds, pendingUpdates, pendingDeletes) = ([:], [:], [])
            let (answer, summary) = try Contract.answer(store, plan, upload: upload)
            let layer = answer["edits"]?.arrayValue?.first { $0["id"]?.int64Value == 0 }
            for key in ["adds", "updates"] {
                for feature in layer?["features"]?[key]?.arrayValue ?? [] {
                    guard let id = feature["attributes"]?["GlobalID"]?.stringValue else { continue }
                    held[id] = feature["attributes"]?["label"]?.stringValue ?? ""
                }
            }
            for id in layer?["features"]?["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? [] { held[id] = nil }
            try store.sync.recordSync(plan, generations: summary.generations, close: false)
            replica = try #require(try store.replicas.replica(service: Contract.service, id: replica.id))
        }
    }

    /// The server's features, GlobalID → label.
    static func serverState(_ store: some SyncBackend) throws -> [String: String] {
        var query = LayerQuery()
        query.outFields = ["GlobalID", "label"]
        query.returnGeometry = false
        var state: [String: String] = [:]
        while true {
            query.resultOffset = state.count
            guard case .features(let page) = try store.features.query(query, service: Contract.service, layer: 0) else { break }
            for feature in page.features {
                if let id = feature.attributes[1].stringValue { state[id] = feature.attributes[2].stringValue ?? "" }
            }
            if !page.exceededTransferLimit { break }
        }
        return state
    }

    @Test(arguments: SyncContractBackend.all)
    func devicesAndOnlineEditorsConverge(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        let seeded = (0..<20).map { _ in GlobalID.make() }
        try Contract.edit(store, LayerEdits(layerId: 0, adds: seeded.map { Contract.point("seed", globalId: $0) }))
        let devices = try (0..<5).map { index in
            Device(replica: try Contract.createReplica(store, name: "device\(index)"), held: try Self.serverState(store), seed: UInt64(index + 1))
        }
        let online = Guarded(0)
        // Five devices and two online editors, each on a thread of its own.
        _ = try onThreads(7) { index in
            if index >= 5 {
                var random = SeededGenerator(seed: UInt64(100 + index))
                for step in 0..<30 {
                    let ids = try Self.serverState(store).keys.sorted()
                    guard let target = ids.randomElement(using: &random) else { continue }
                    let edits =
                        step % 5 == 4
                        ? LayerEdits(layerId: 0, deletes: [.globalId(target)])
                        : LayerEdits(
                            layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(target), "label": .string("o\(index)-\(step)")])])
                    _ = try store.edits.applyEdits(service: Contract.service, edits: [edits], options: EditOptions(useGlobalIds: true))
                    online.withLock { $0 += 1 }
                }
                return
            }
            let device = devices[index]
            for step in 0..<12 {
                for _ in 0..<3 { device.edit(step) }
                try device.sync(store)
            }
        }
        // The edits have stopped: everyone sends what is left, then everyone hears the rest.
        for _ in 0..<2 { for device in devices { try device.sync(store) } }
        let server = try Self.serverState(store)
        for (index, device) in devices.enumerated() {
            #expect(device.held == server, "device \(index) converged")
        }
        let acknowledged = devices.reduce(into: Set<String>()) { $0.formUnion($1.acknowledgedAdds) }
        #expect(acknowledged.count > 20 && online.value == 60)
        let conflicts = try devices.flatMap { try store.conflicts.conflicts(service: Contract.service, replicaId: $0.replica.id) }
        #expect(!conflicts.isEmpty, "devices overwrote online changes, and the log kept them")
        for conflict in conflicts where conflict.overwrittenChange == "update" {
            #expect(conflict.feature?["attributes"]?["GlobalID"]?.stringValue == conflict.globalId, "the overwritten feature is kept whole")
        }
        print("convergence (\(backend.name)): \(server.count) features, \(acknowledged.count) device adds, \(conflicts.count) conflicts logged")
    }
}
