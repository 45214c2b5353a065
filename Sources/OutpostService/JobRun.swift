import OutpostStorage
import OutpostSync
import OutpostWire

/// An asynchronous job's run (createReplica, synchronizeReplica, exportTiles), whatever runs
/// it: every step saved as it happens — started, each phase or progress the work reports,
/// then completed with its result or failed with its error — by the backend's clock, so a
/// status request and a restart always see where it is (`JobRecord` decides the transitions).
public struct JobRun<Backend: OutpostBackend>: Sendable {
    public let backend: Backend
    /// What may fail the job after a step (a test target's faults); nil: nothing does.
    public let gate: (any JobGate)?

    public init(backend: Backend, gate: (any JobGate)? = nil) {
        self.backend = backend
        self.gate = gate
    }

    /// What the work reports while it runs.
    public struct Steps {
        let advance: (JobEvent) -> Void

        public func phase(_ phase: ServerJobStatus) { advance(.phase(phase)) }
        public func progress(_ progress: JobProgress) { advance(.progress(progress)) }
    }

    /// Runs `work` (synchronous: call it off the cooperative threads), which returns how the
    /// job ends (`.succeeded` with its file or `.answered` with its value), and returns the last
    /// record. `saveFailed` hears of a step that could not be saved.
    @discardableResult
    public func perform(
        _ job: JobRecord, saveFailed: @escaping (JobRecord, any Error) -> Void = { _, _ in }, work: (Steps) throws -> JobEvent
    ) -> JobRecord {
        var record = job
        func save(_ event: JobEvent) -> Bool {
            guard let next = try? record.applying(event, at: backend.clock.milliseconds()) else { return false }
            record = next
            do { try backend.jobs.saveJob(next) } catch { saveFailed(next, error) }
            return true
        }
        // A failure the gate gives is applied at once; the failed record ignores later events.
        func advance(_ event: JobEvent) {
            guard save(event), let failure = gate?.check(record) else { return }
            _ = save(.failed(failure))
        }
        advance(.started)
        do {
            advance(try work(Steps(advance: advance)))
        } catch {
            advance(.failed(ArcGISError(answering: error)))
        }
        return record
    }

    /// A job whose work reports phases and ends with a result file's name.
    @discardableResult
    public func run(
        _ job: JobRecord, saveFailed: @escaping (JobRecord, any Error) -> Void = { _, _ in },
        work: (_ phase: (ServerJobStatus) -> Void) throws -> String
    ) -> JobRecord {
        perform(job, saveFailed: saveFailed) { steps in .succeeded(resultFile: try work(steps.phase)) }
    }
}
