import Logging
import OutpostStorage
import OutpostSync
import ServiceLifecycle

/// Fails, every `interval` while the server runs, the unfinished jobs of server processes that
/// stopped while this one serves on (several processes on one PostgreSQL database): a job
/// whose process was killed says so within `interval` instead of staying "executing" until
/// some process restarts. On SpatiaLite, one process per data folder, there are none.
struct StoppedProcessJobReaper<Jobs: JobStore>: Service {
    let jobs: Jobs
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await runEvery(interval) { _ = try? await StoreCall.run { reap() } }
    }

    func reap() {
        do {
            let failed = try jobs.failJobsOfStoppedProcesses(now: clock.milliseconds())
            if failed > 0 { logger.warning("\(failed) unfinished jobs of a stopped server process marked Failed") }
        } catch {
            logger.warning("Could not check for jobs of stopped processes: \(error)")
        }
    }
}
