import OutpostPostgres
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
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
            return Opened(records: store) { try SpatiaLiteBackend(path: store.path, clock: clock) }
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
