/// What operations ask of a backend: whether it answers, how large its registry is, and the
/// clean-ups an operator runs. The server asks these instead of reading tables.
public protocol StoreMaintenance: Sendable {
    /// Whether the database answers a read (readiness, ArcGIS's `healthCheck`).
    func health() -> StoreHealth
    /// Replicas registered, and conflicts ever recorded (the conflict log is kept for good).
    func counts() throws -> StoreCounts
    /// Removes attachment files no committed row refers to and every spooled temporary file.
    ///
    /// Contract: call it before serving (at start-up), while no edit is in flight; an edit
    /// writes its attachment files before its transaction commits, and a sweep between the
    /// two would take them.
    @discardableResult func removeOrphanFiles() throws -> OrphanFileSweep
    /// Purges change tracking no registered replica still needs (per service, below the
    /// oldest generation its replicas sync from) and receipts of unregistered replicas; the
    /// conflict log is kept. Contract: a copy of a replica unregistered before the purge can
    /// no longer be registered to sync deletes it never received.
    @discardableResult func compact() throws -> CompactReport
    /// The bytes each of `tables` takes on disk with its indexes (and SpatiaLite's R*Tree of
    /// its geometry), by the name given; a table that does not exist is left out. Storage per
    /// service (`rest/admin/storage`) sums its layers' `StoredLayer.storageTables`.
    func tableBytes(_ tables: [String]) throws -> [String: Int64]
    /// Whether `flag` was ever set on this store (stores that held services or tile sets
    /// before flags existed have `demoSeeded`).
    func isSet(_ flag: StoreFlag) throws -> Bool
    /// Sets `flag` for good; setting it again is no error.
    func set(_ flag: StoreFlag) throws
    /// The value last kept for `setting`; nil when none is.
    func setting(_ setting: StoreSetting) throws -> String?
    /// Keeps `value` for `setting` in place of any before; nil forgets it.
    func setSetting(_ setting: StoreSetting, to value: String?) throws
}

public enum StoreHealth: Sendable, Equatable {
    case healthy
    case unavailable(String)

    public var isHealthy: Bool { self == .healthy }
}

public struct StoreCounts: Sendable, Equatable {
    public var replicas: Int
    public var conflicts: Int
    /// What the database takes on disk (SpatiaLite: the file with its WAL; PostgreSQL: the database).
    public var databaseBytes: Int

    public init(replicas: Int, conflicts: Int, databaseBytes: Int = 0) {
        self.replicas = replicas
        self.conflicts = conflicts
        self.databaseBytes = databaseBytes
    }
}

/// Files a previous run left behind.
public struct OrphanFileSweep: Sendable, Equatable {
    /// Attachment files no attachment row names (written before an edit transaction that
    /// never committed: the process died in between).
    public var attachmentFiles = 0
    /// Spooled request bodies and inline attachment data of requests that never finished.
    public var temporaryFiles = 0
    /// Folders of portal items whose deletion committed before their files went.
    public var itemFolders = 0

    public init(attachmentFiles: Int = 0, temporaryFiles: Int = 0, itemFolders: Int = 0) {
        self.attachmentFiles = attachmentFiles
        self.temporaryFiles = temporaryFiles
        self.itemFolders = itemFolders
    }
}

/// What `compact` removed.
public struct CompactReport: Sendable, Equatable {
    public init() {}

    /// Tombstones at or below the oldest generation any registered replica syncs from.
    public var tombstones = 0
    /// Retry receipts of replicas no longer registered.
    public var receipts = 0
}

extension CompactReport {
    public init(tombstones: Int, receipts: Int) {
        self.tombstones = tombstones
        self.receipts = receipts
    }
}
