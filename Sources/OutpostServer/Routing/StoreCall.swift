import NIOPosix

/// The server's one way to blocking work: every call into the backend (the store, its users,
/// jobs and result files), and file I/O and password hashing, made from an `async` function
/// or closure runs here, on NIO's blocking thread pool, never on the few cooperative threads
/// that every request's task shares (issue 45). Routes registered with `store:` run their
/// whole handler so (`ArcGISRoutes`); `SourceRulesTests` holds the rest of the server to it.
enum StoreCall {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
