/// Where blocking work runs: backend calls, file I/O, an export. The use cases are synchronous
/// and know no thread pool; whoever hosts them injects one (the server: NIO's thread pool,
/// through `StoreCall.run`), so a job never holds one of the few cooperative threads every
/// request's task shares.
public protocol BlockingExecutor: Sendable {
    /// Runs `work` on a thread that may block and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}
