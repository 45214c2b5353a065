import CSpatiaLite
import Dispatch
import GRDB
import ServiceLifecycle
import Synchronization

/// Copies the write-ahead log back into the database off the request path: a
/// service-lifecycle `Service` of the SpatiaLite backend (`SpatiaLiteBackend.backgroundServices`).
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, so the
/// request whose commit it is waits for the copy (a quarter of a 20,000-edit sync). The
/// connections' WAL hook replaces it: while the service runs, the hook only signals and a
/// passive checkpoint runs on a connection of its own (checkpoints take no writer lock, so the
/// next write proceeds meanwhile). While it does not run (the CLI, tests, an embedding app),
/// the hook checkpoints inline, as SQLite would. At graceful shutdown, after the HTTP server
/// has drained (a service group stops its services in reverse order), a truncating checkpoint
/// leaves the whole database in its main file. Durability is unchanged either way: a
/// transaction is durable once its WAL frames are synced (`synchronous=FULL`).
public final class WALCheckpointer: Service, Sendable {
    /// WAL pages after which a checkpoint is due: SQLite's own default.
    static let threshold: Int32 = 1000

    /// `run()` was called while another `run()` of the same checkpointer was running.
    public struct AlreadyRunning: Error {}

    /// Checkpoints done so far, by where they ran (tests and diagnostics).
    public struct Counts: Equatable, Sendable {
        public var background = 0
        public var inline = 0
        public var atShutdown = 0
    }

    private struct State {
        var signal: AsyncStream<Void>.Continuation?
        var counts = Counts()
    }

    private let path: String
    private let queue = DispatchQueue(label: "outpost.wal-checkpoint")
    private let state = Mutex(State())

    init(path: String) {
        self.path = path
    }

    public var counts: Counts { state.withLock { $0.counts } }

    /// Whether the service is running (commits signal it instead of checkpointing inline).
    public var isRunning: Bool { state.withLock { $0.signal != nil } }

    /// Installs the WAL hook on a connection (it replaces SQLite's automatic checkpoint).
    func install(on db: Database) {
        guard let handle = db.sqliteConnection else { return }
        // Retained for the process: connections may outlive the store that made them by a
        // moment, and a checkpointer is a few bytes.
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_wal_hook(
            handle,
            { context, handle, _, pages in
                guard let context, pages >= WALCheckpointer.threshold else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().due(connection: handle)
                return SQLITE_OK
            }, context)
    }

    /// A commit crossed the threshold on `connection`.
    private func due(connection: OpaquePointer?) {
        let signalled = state.withLock { state -> Bool in
            guard let signal = state.signal else {
                state.counts.inline += 1
                return false
            }
            signal.yield()
            return true
        }
        // What SQLite's automatic checkpoint does, from the same place (its WAL hook).
        if !signalled { sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
    }

    /// Checkpoints whenever a commit crosses the threshold, until graceful shutdown or
    /// cancellation; at graceful shutdown, truncates the WAL.
    public func run() async throws {
        // One pending signal is enough: a checkpoint copies everything committed before it.
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        try state.withLock { state throws(AlreadyRunning) in
            guard state.signal == nil else { throw AlreadyRunning() }
            state.signal = signal
        }
        var configuration = Configuration()
        // The shutdown checkpoint waits a moment for readers to finish (passive ones never wait).
        configuration.busyMode = .timeout(5)
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        defer {
            state.withLock { $0.signal = nil }
            try? connection.close()
        }
        for await _ in signals.cancelOnGracefulShutdown() {
            // A passive checkpoint copies what no reader still needs and never waits; what
            // it leaves is copied by a later one.
            if await checkpoint(.passive, on: connection) { state.withLock { $0.counts.background += 1 } }
        }
        // Signals that arrive from here on checkpoint inline (the `defer` above detaches).
        if !Task.isCancelled, await checkpoint(.truncate, on: connection) { state.withLock { $0.counts.atShutdown += 1 } }
    }

    /// Runs a checkpoint on the service's own thread (blocking I/O stays off the cooperative
    /// pool); whether SQLite completed it.
    private func checkpoint(_ mode: Database.CheckpointMode, on connection: DatabaseQueue) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async {
                let done = (try? connection.writeWithoutTransaction { db in try db.checkpoint(mode) }) != nil
                continuation.resume(returning: done)
            }
        }
    }
}
