import OutpostPostgres
import OutpostService
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// A backend the store contract suite runs against: made fresh for each test, with the
/// contract's one point service (`Points`, layer 0) and a clock the test moves.
struct ContractBackend: Sendable, CustomTestStringConvertible {
    var name: String
    var make: @Sendable (ManualClock) throws -> any OutpostBackend

    var testDescription: String { name }

    /// Every backend. A second backend passes the whole suite by adding one line here.
    static let all: [ContractBackend] = [
        ContractBackend(name: "SpatiaLite") { clock in try makeTemporaryStore(clock: clock) },
        ContractBackend(name: "PostgreSQL") { clock in try TestPostgres.makeBackend(clock: clock) },
    ]

    /// A fresh backend holding the contract's service, and its clock.
    func fresh() throws -> (any OutpostBackend, ManualClock) {
        let clock = ManualClock()
        let backend = try make(clock)
        _ = try backend.schema.createService(pointLayerService(name: "Points"))
        return (backend, clock)
    }
}

/// A backend the sync half of the contract runs against (`SyncBackend`: services, features,
/// edits, the registry, sync and conflicts): every backend, PostgreSQL included.
struct SyncContractBackend: Sendable, CustomTestStringConvertible {
    var name: String
    var make: @Sendable (ManualClock) throws -> any SyncBackend

    var testDescription: String { name }

    static let all: [SyncContractBackend] = ContractBackend.all.map { full in SyncContractBackend(name: full.name) { try full.make($0) } }

    func fresh() throws -> (any SyncBackend, ManualClock) {
        let clock = ManualClock()
        let backend = try make(clock)
        _ = try backend.schema.createService(pointLayerService(name: "Points"))
        return (backend, clock)
    }
}

/// A backend the records half of the contract runs against (`ServerRecords`: users, job
/// records, result file owners), opened as a first process; `restart` stops that process and
/// opens the same data as the next one.
struct RecordsContractBackend: Sendable, CustomTestStringConvertible {
    struct Opened: Sendable {
        var records: any ServerRecords
        var restart: @Sendable () throws -> any ServerRecords
    }

    var name: String
    var open: @Sendable (ManualClock) throws -> Opened

    var testDescription: String { name }

    static let all: [RecordsContractBackend] = [
        RecordsContractBackend(name: "SpatiaLite") { clock in
            let store = try makeTemporaryStore(clock: clock)
            return Opened(records: store) { try FeatureStore(path: store.path, clock: clock) }
        },
        RecordsContractBackend(name: "PostgreSQL") { clock in
            let backend = try TestPostgres.makeBackend(clock: clock)
            return Opened(records: backend) {
                backend.close()
                return try PostgresBackend(backend.pool.location, maximumConnections: 4, clock: clock)
            }
        },
    ]
}

/// What the contract's tests share: building replicas and syncs through the pure planners, as
/// the server does.
enum Contract {
    static let service = "Points"

    static func point(_ label: String, x: Double = 1, y: Double = 1, globalId: String? = nil) -> EditFeature {
        var attributes: JSONObject = ["label": .string(label), "value": .int(1)]
        if let globalId { attributes["GlobalID"] = .string(globalId) }
        return EditFeature(attributes: attributes, geometry: ["x": .double(x), "y": .double(y)])
    }

    /// Online edits of layer 0 by GlobalID (another writer than the replica), committed.
    static func edit(_ backend: some SyncBackend, _ edits: LayerEdits) throws {
        _ = try backend.edits.applyEdits(service: service, edits: [edits], options: EditOptions(useGlobalIds: true))
    }

    /// Creates (a JSON snapshot) and registers a per-layer bidirectional replica of layer 0.
    static func createReplica(
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
    static func syncPlan(_ replica: ReplicaDefinition, edits: LayerEdits?) throws -> SyncPlan {
        let request = try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)]))
        return try SyncPlanner.plan(request, replica: replica, edits: edits.map { [$0] })
    }

    /// The JSON answer of a sync, parsed.
    static func answer(_ backend: some SyncBackend, _ plan: SyncPlan, upload: SyncUploadOutcome?) throws -> (JSONValue, SyncAnswerSummary) {
        var bytes: [UInt8] = []
        let summary = try backend.sync.writeSyncAnswer(plan, upload: upload, write: { bytes += $0 }, attachmentURL: nil)
        return (try JSONParser.parse(String(decoding: bytes, as: UTF8.self)), summary)
    }

    /// The GlobalIDs of layer 0's `adds` and `updates`, and its `deleteIds`, in an answer.
    static func changes(_ answer: JSONValue) -> (adds: Set<String>, updates: Set<String>, deletes: Set<String>) {
        let layer = answer["edits"]?.arrayValue?.first { $0["id"]?.int64Value == 0 }
        func ids(_ key: String) -> Set<String> {
            Set(layer?["features"]?[key]?.arrayValue?.compactMap { $0["attributes"]?["GlobalID"]?.stringValue } ?? [])
        }
        return (ids("adds"), ids("updates"), Set(layer?["features"]?["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? []))
    }
}
