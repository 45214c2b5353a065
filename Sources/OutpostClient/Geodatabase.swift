import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostSync
import OutpostWire

/// A replica file on the device (`docs/replica-format.md`): its feature tables, local
/// queries and edits, and the state a sync needs.
///
/// Every edit is recorded by the file's own triggers in `outpost_sync_changes` until a sync
/// has been acknowledged by the server, so nothing done here is lost by a failed sync. One
/// transaction at a time: edits outside a transaction commit one by one; inside
/// `beginTransaction` … `commitTransaction` they commit together. A sync refuses to start
/// while a transaction is open, and a transaction refuses to begin while a sync runs.
public final class Geodatabase: Sendable {
    public let path: String
    /// The time it stamps (`last_sync_date`).
    public let clock: any WallClock
    let queue: DatabaseQueue
    private let state = Locked<(inTransaction: Bool, syncing: Bool)>((false, false))

    /// Opens a replica file. Throws `ClientError.geodatabase` for anything else.
    /// Opens the replica file at a file URL.
    public static func open(_ url: URL, clock: any WallClock = SystemClock()) throws -> Geodatabase {
        guard url.isFileURL else { throw ClientError.geodatabase("\(url) is not a file URL") }
        return try open(url.path, clock: clock)
    }

    /// The file, as a URL.
    public var url: URL { URL(fileURLWithPath: path) }

    /// With `maximumBytes`, the file may not grow past that size (SQLite's `max_page_count`):
    /// a write that would is refused with `SQLITE_FULL`. A server writing into a file a user
    /// gave it sets this, whatever the file's schema does.
    public static func open(_ path: String, clock: any WallClock = SystemClock(), maximumBytes: Int? = nil) throws -> Geodatabase {
        guard FileManager.default.fileExists(atPath: path) else { throw ClientError.geodatabase("\(path) does not exist") }
        return try Geodatabase(path: path, clock: clock, maximumBytes: maximumBytes)
    }

    private init(path: String, clock: any WallClock, maximumBytes: Int? = nil) throws {
        self.path = path
        self.clock = clock
        var configuration = ReplicaFile.editingConfiguration(maximumBytes: maximumBytes)
        // A transaction spans calls (`beginTransaction` … `commitTransaction`).
        configuration.allowsUnsafeTransactions = true
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            _ = try queue.inDatabase { db in try ReplicaFile.info(db, path: path) }
        } catch let error as ReplicaFile.Failure {
            throw ClientError.geodatabase(error.description)
        } catch let error as DatabaseError {
            throw ClientError.geodatabase("\(path): \(error.message ?? error.description)")
        }
    }

    /// Closes the file (rolling back an open transaction).
    public func close() {
        try? queue.inDatabase { db in if db.isInsideTransaction { try db.rollback() } }
        try? queue.close()
    }

    /// What the file says about itself: replica id, service, generations, layers.
    public func info() throws -> ReplicaFileInfo {
        try queue.inDatabase { db in try ReplicaFile.info(db, path: path) }
    }

    public func featureTables() throws -> [GeodatabaseFeatureTable] {
        let layers = try info().layers
        return try queue.inDatabase { db in
            try layers.map { layer in
                var table = GeodatabaseFeatureTable(layer)
                table.geodatabase = self
                table.srsId = Int32(
                    try Int.fetchOne(
                        db, sql: "SELECT srs_id FROM gpkg_geometry_columns WHERE table_name = ?",
                        arguments: [layer.tableName]) ?? 0)
                return table
            }
        }
    }

    public func featureTable(layerId: Int) throws -> GeodatabaseFeatureTable {
        guard let table = try featureTables().first(where: { $0.layerId == layerId }) else {
            throw ClientError.geodatabase("the replica has no layer \(layerId)")
        }
        return table
    }

    /// Features and attachments with changes the server has not acknowledged yet (each
    /// counted once, however often it was edited).
    public var localEditCount: Int {
        get throws {
            try queue.inDatabase { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT DISTINCT layer_id, item, upper(global_id) FROM outpost_sync_changes)") ?? 0
            }
        }
    }

    public var hasLocalEdits: Bool {
        get throws { try localEditCount > 0 }
    }

    // MARK: Transactions

    public var isInTransaction: Bool { state.withLock { $0.inTransaction } }

    public func beginTransaction() throws {
        try state.withLock { state in
            if state.syncing { throw ClientError.syncInProgress }
            if state.inTransaction { throw ClientError.transactionInProgress }
            state.inTransaction = true
        }
        do {
            try queue.inDatabase { db in try db.beginTransaction(.immediate) }
        } catch {
            state.withLock { $0.inTransaction = false }
            throw error
        }
    }

    public func commitTransaction() throws {
        guard isInTransaction else { throw ClientError.noTransaction }
        try queue.inDatabase { db in try db.commit() }
        state.withLock { $0.inTransaction = false }
    }

    public func rollbackTransaction() throws {
        guard isInTransaction else { throw ClientError.noTransaction }
        try queue.inDatabase { db in try db.rollback() }
        state.withLock { $0.inTransaction = false }
    }

    /// Marks a sync as running for its whole length (no transaction may begin meanwhile).
    func beginSync() throws {
        try state.withLock { state in
            if state.inTransaction { throw ClientError.transactionInProgress }
            if state.syncing { throw ClientError.syncInProgress }
            state.syncing = true
        }
    }

    func endSync() {
        state.withLock { $0.syncing = false }
    }

    /// Runs `body` in the open transaction, or in one of its own. Edits made while a sync
    /// runs are fine: they are logged after the upload was taken and go up with the next sync.
    func edit<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.inDatabase { db in
            if db.isInsideTransaction { return try body(db) }
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return .commit
            }
            return result!
        }
    }
}

/// A value behind a lock (NSLock: `Synchronization.Mutex` needs macOS 15 / iOS 18, and the
/// client library supports macOS 14 / iOS 17).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
