import NIOPosix

/// Runs asynchronous jobs a few at a time; the rest wait as `Pending`.
///
/// Exports are CPU- and disk-bound: more of them at once than there are cores only makes
/// each slower. Blocking store calls inside a job go through `blocking`, so they run on
/// NIO's thread pool instead of an event loop or the cooperative pool.
public actor JobRunner {
    public let maximumConcurrentJobs: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(maximumConcurrentJobs: Int = 2) {
        self.maximumConcurrentJobs = max(1, maximumConcurrentJobs)
    }

    /// Starts `work` once a slot is free and returns at once.
    public nonisolated func submit(_ work: @escaping @Sendable () async -> Void) {
        Task {
            await self.acquire()
            await work()
            await self.release()
        }
    }

    private func acquire() async {
        if running < maximumConcurrentJobs {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Jobs running and jobs waiting for a slot (metrics).
    public var load: (running: Int, queued: Int) { (running, waiting.count) }

    /// Runs blocking work (SQLite, files) on NIO's blocking thread pool.
    public static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
