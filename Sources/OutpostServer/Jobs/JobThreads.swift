import NIOCore
import NIOPosix
import OutpostService
import OutpostWire
import Synchronization

/// The jobs' own blocking threads, apart from the pool every request's store calls use
/// (`StoreCall`): a running job holds a thread for as long as it runs (an export, a publish
/// waiting for GDAL), and with one pool two jobs on two cores stalled every request that needed
/// the store. Requests keep NIO's pool of a thread per core; jobs wait for each other here.
public enum JobThreads {
    private static let requestedCount = Atomic<Int>(0)
    private static let started = Atomic<Bool>(false)

    /// Sizes the pool, before its first job: `serve` gives `--max-jobs`, as many as its runner
    /// lets run at once. Unsized (a test process hosting many servers' runners), eight. Once
    /// the pool has started its size stays: then this returns false.
    @discardableResult public static func size(runningJobs: Int) -> Bool {
        requestedCount.store(max(1, runningJobs), ordering: .sequentiallyConsistent)
        return !started.load(ordering: .sequentiallyConsistent)
    }

    static let pool: NIOThreadPool = {
        started.store(true, ordering: .sequentiallyConsistent)
        let requested = requestedCount.load(ordering: .sequentiallyConsistent)
        // A thread per running job, and the cores' worth more: a job's record is saved here too
        // (as it is submitted and started), which must not wait for a running job to end.
        let pool = NIOThreadPool(numberOfThreads: (requested > 0 ? requested : 8) + System.coreCount)
        pool.start()
        return pool
    }()
}

/// The use cases' blocking executor in the server: `JobRunner`'s jobs on `JobThreads`, with
/// a seeded test target's identifier stream carried along as `StoreCall.run` carries it.
struct JobThreadsExecutor: BlockingExecutor {
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if let stream = IdentifierSeed.stream {
            return try await JobThreads.pool.runIfActive { try IdentifierSeed.drawing(in: stream, work) }
        }
        return try await JobThreads.pool.runIfActive(work)
    }
}
