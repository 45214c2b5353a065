import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// What the contract's tests share: building replicas and syncs through the pure planners, as
/// the server does.
public enum Contract {
    public static let service = "Points"

    public static func point(_ label: String, x: Double = 1, y: Double = 1, globalId: String? = nil) -> EditFeature {
        var attributes: JSONObject = ["label": .string(label), "value": .int(1)]
        if let globalId { attributes["GlobalID"] = .string(globalId) }
        return EditFeature(attributes: attributes, geometry: ["x": .double(x), "y": .double(y)])
    }

    /// Online edits of layer 0 by GlobalID (another writer than the replica), committed.
    public static func edit(_ backend: some SyncBackend, _ edits: LayerEdits) throws {
        _ = try backend.edits.applyEdits(service: service, edits: [edits], options: EditOptions(useGlobalIds: true))
    }

    /// Creates (a JSON snapshot) and registers a per-layer bidirectional replica of layer 0.
    public static func createReplica(
        _ backend: some SyncBackend, name: String = "device", owner: String = "ada", of service: String = Contract.service
    ) throws -> ReplicaDefinition {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", name)]))
        let plan = try ReplicaPlanner.plan(
            request, service: try backend.service(named: service).definition, replicaId: GlobalID.make(), owner: owner,
            takenNames: [], now: backend.clock.milliseconds())
        let (definition, _) = try backend.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null,
            layerJSON: [:], phase: { _ in })
        return try backend.replicas.registerReplica(definition)
    }

    /// A bidirectional sync of layer 0 from the replica's generation, carrying `edits`.
    public static func syncPlan(_ replica: ReplicaDefinition, edits: LayerEdits?) throws -> SyncPlan {
        let request = try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)]))
        return try SyncPlanner.plan(request, replica: replica, edits: edits.map { [$0] })
    }

    /// The JSON answer of a sync, parsed.
    public static func answer(_ backend: some SyncBackend, _ plan: SyncPlan, upload: SyncUploadOutcome?) throws -> (JSONValue, SyncAnswerSummary) {
        var bytes: [UInt8] = []
        let summary = try backend.sync.writeSyncAnswer(plan, upload: upload, write: { bytes += $0 }, attachmentURL: nil)
        return (try JSONParser.parse(String(decoding: bytes, as: UTF8.self)), summary)
    }

    /// The GlobalIDs of layer 0's `adds` and `updates`, and its `deleteIds`, in an answer.
    public static func changes(_ answer: JSONValue) -> (adds: Set<String>, updates: Set<String>, deletes: Set<String>) {
        let layer = answer["edits"]?.arrayValue?.first { $0["id"]?.int64Value == 0 }
        func ids(_ key: String) -> Set<String> {
            Set(layer?["features"]?[key]?.arrayValue?.compactMap { $0["attributes"]?["GlobalID"]?.stringValue } ?? [])
        }
        return (ids("adds"), ids("updates"), Set(layer?["features"]?["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? []))
    }
}
