import Logging
import OutpostStorage
import OutpostSync
import OutpostWire

/// Every asynchronous job's one way in (createReplica, synchronizeReplica, exportTiles,
/// estimateExportTilesSize, the OfflinePackaging tasks): `submit` admits it (`JobLimits`; a
/// full queue or a caller at their share is refused with 429 and `Retry-After`), saves its
/// record before anything runs (the place given back when saving fails), queues it, and runs
/// it through `JobRun` on the blocking pool — every step saved, a failure logged.
public final class JobRunner: Sendable {
    private let queue: JobQueue
    private let executor: any BlockingExecutor
    private let logger: Logger
    /// What may hold or fail a job between its steps (a test target's faults).
    private let gate: (any JobGate)?

    public var limits: JobLimits { queue.limits }

    /// The queue now (metrics, the organisation page's "Jobs", `rest/admin/jobs`).
    public var load: JobLoad {
        let (running, queued) = queue.load
        return JobLoad(running: running, queued: queued, perCaller: queue.callers, limits: queue.limits)
    }

    /// `executor` runs the jobs' blocking work (saving records, the work itself).
    public init(limits: JobLimits, executor: any BlockingExecutor, logger: Logger, gate: (any JobGate)? = nil) {
        queue = JobQueue(limits: limits)
        self.executor = executor
        self.logger = logger
        self.gate = gate
    }

    /// A new job's id: `j` and 32 lowercase hex digits.
    public static func newJobId() -> String {
        "j" + GlobalID.make().filter(\.isHexDigit).lowercased()
    }

    /// Submits `job` (a `Pending` record, `newJobId()`) of `caller` (whose share of the queue
    /// it takes): admitted or refused (429), its record saved in `backend`, then queued; returns
    /// once it is queued. `work` runs later on the blocking pool, reporting through the steps
    /// and returning how the job ends; each step is saved.
    public func submit<Backend: OutpostBackend>(
        _ job: JobRecord, for caller: String, in backend: Backend,
        work: @escaping @Sendable (JobRun<Backend>.Steps) throws -> JobEvent
    ) async throws {
        let ticket = try queue.admit(caller: caller)
        gate?.submitted(job)
        do {
            try await executor.run { try backend.jobs.saveJob(job) }
        } catch {
            queue.cancel(ticket)
            throw error
        }
        let (executor, logger, gate) = (self.executor, self.logger, self.gate)
        // A held job waits before it takes a running slot: other jobs run meanwhile.
        queue.submit(
            ticket, beforeSlot: { await Self.hold(job, in: backend, executor: executor, gate: gate) },
            { held in
                await Self.run(held.job, failure: held.failure, in: backend, executor: executor, logger: logger, gate: gate, work: work)
            })
    }

    /// A held job is started (its record executing) and waits here, suspended, outside the
    /// running slots: the job as it then is, and the failure to apply instead of its work.
    private static func hold<Backend: OutpostBackend>(
        _ job: JobRecord, in backend: Backend, executor: any BlockingExecutor, gate: (any JobGate)?
    ) async -> (job: JobRecord, failure: ArcGISError?) {
        guard let gate, gate.holds(job), let started = try? job.applying(.started, at: backend.clock.milliseconds()) else {
            return (job, nil)
        }
        _ = try? await executor.run { try backend.jobs.saveJob(started) }
        return (started, await gate.hold(started))
    }

    /// Runs a job's work on the blocking pool through `JobRun`; a server fault is logged whole,
    /// and every failure by the job's id.
    private static func run<Backend: OutpostBackend>(
        _ job: JobRecord, failure: ArcGISError?, in backend: Backend, executor: any BlockingExecutor, logger: Logger, gate: (any JobGate)?,
        work: @escaping @Sendable (JobRun<Backend>.Steps) throws -> JobEvent
    ) async {
        let last = try? await executor.run { [job, failure] in
            JobRun(backend: backend, gate: gate).perform(
                job, saveFailed: { record, error in logger.error("job \(record.id): cannot save status: \(error)") }
            ) { steps in
                do {
                    if let failure { throw failure }
                    return try work(steps)
                } catch {
                    if ArcGISError(answering: error).code >= 500 { logger.error("server fault: \(String(reflecting: error))") }
                    throw error
                }
            }
        }
        guard let last, last.status == .failed else { return }
        let reason = last.error.map(String.init(describing:)) ?? ""
        if (last.error?.code ?? 500) >= 500 {
            logger.error("job \(job.id) (\(job.kind.rawValue)) failed: \(reason)")
        } else {
            logger.warning("job \(job.id) (\(job.kind.rawValue)) failed: \(reason)")
        }
    }
}
