import OutpostService

/// The use cases' blocking pool in the server: `StoreCall.run`, NIO's thread pool (the jobs
/// of `JobRunner` run there as every request's backend calls do).
struct StoreCallExecutor: BlockingExecutor {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await StoreCall.run(work)
    }
}
