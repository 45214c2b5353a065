import NIOCore
import NIOPosix
import OutpostWire

/// The server's one way to blocking work: every call into the backend (the store, its users,
/// jobs and result files), and file I/O and password hashing, made from an `async` function
/// or closure runs here, on NIO's blocking thread pool, never on the few cooperative threads
/// that every request's task shares (issue 45). Routes registered with `store:` run their
/// whole handler so (`ArcGISRoutes`); `SourceRulesTests` holds the rest of the server to it.
enum StoreCall {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        // A seeded test target's request draws its ids from its service's stream, on whichever
        // thread its work runs (`IdentifierSeed`); nil everywhere else.
        if let stream = IdentifierSeed.stream {
            return try await NIOThreadPool.singleton.runIfActive { try IdentifierSeed.drawing(in: stream, work) }
        }
        return try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// Threads of heavy reads' own (route solves and network downloads, geocoding batches):
    /// two, apart from the store's pool, so those reads never hold the threads every other
    /// request's store calls need.
    static let heavyPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    /// A heavy read: admitted by its gate first, on the request's task before any thread is
    /// taken (one past the gate's limit is answered 429 at once), then run on `heavyPool`.
    static func runHeavy<T: Sendable>(_ gate: BusyGate, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await gate.admit { try await heavyPool.runIfActive(work) }
    }

    /// A heavy read of the server's own, run once its gate has a place (nil when none came
    /// free within `patience`).
    static func runHeavyWhenFree<T: Sendable>(
        _ gate: BusyGate, patience: Duration, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T? {
        try await gate.admitWhenFree(patience: patience) { try await heavyPool.runIfActive(work) }
    }
}
