import CSpatiaLite
import Dispatch
import GRDB
import OutpostStorage
import Synchronization

/// Copies the write-ahead log back into the database off the request path.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, so the
/// request whose commit it is waits for the copy (a quarter of a 20,000-edit sync). Here the
/// writer's WAL hook only signals, and a passive checkpoint runs on a connection of its own:
/// checkpoints take no writer lock, so the next write proceeds meanwhile. Durability is
/// unchanged: a transaction is durable once its WAL frames are synced (`synchronous=FULL`),
/// checkpointed or not.
final class WALCheckpointer: Sendable {
    /// WAL pages after which a checkpoint is due: SQLite's own default.
    static let threshold: Int32 = 1000

    private let path: String
    private let queue = DispatchQueue(label: "outpost.wal-checkpoint")
    private let state = Mutex<(scheduled: Bool, connection: DatabaseQueue?, closed: Bool)>((false, nil, false))

    init(path: String) {
        self.path = path
    }

    /// Installs the WAL hook on a connection (it replaces SQLite's automatic checkpoint).
    func install(on db: Database) {
        guard let handle = db.sqliteConnection else { return }
        // Retained for the process: connections may outlive the store that made them by a
        // moment, and a checkpointer is a few bytes.
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_wal_hook(
            handle,
            { context, _, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: pages)
                return SQLITE_OK
            }, context)
    }

    private func committed(walPages: Int32) {
        guard walPages >= Self.threshold else { return }
        let due = state.withLock { state -> Bool in
            guard !state.scheduled, !state.closed else { return false }
            state.scheduled = true
            return true
        }
        if due { queue.async { self.checkpoint() } }
    }

    private func checkpoint() {
        let connection = state.withLock { state -> DatabaseQueue? in
            state.scheduled = false
            if state.closed { return nil }
            if state.connection == nil { state.connection = try? DatabaseQueue(path: path) }
            return state.connection
        }
        // A passive checkpoint copies what no reader still needs and never waits; what it
        // leaves is copied by a later one.
        _ = try? connection?.writeWithoutTransaction { db in try db.checkpoint(.passive) }
    }

    /// Stops checkpointing and closes its connection (the store is closing).
    func close() {
        queue.sync {
            let connection = state.withLock { state -> DatabaseQueue? in
                state.closed = true
                defer { state.connection = nil }
                return state.connection
            }
            try? connection?.close()
        }
    }
}
