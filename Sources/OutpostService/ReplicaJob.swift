import OutpostStorage
import OutpostSync
import OutpostWire

/// An asynchronous job's run (createReplica, synchronizeReplica), whatever runs it: every step
/// saved as it happens — started, each phase the work reports, then completed with its result
/// file or failed with its error — by the backend's clock, so a status request and a restart
/// always see where it is (`JobRecord` decides the transitions).
public struct ReplicaJob<Backend: OutpostBackend>: Sendable {
    public let backend: Backend

    public init(backend: Backend) {
        self.backend = backend
    }

    /// Runs `work` (synchronous: call it off the cooperative threads) and returns the last
    /// record. `saveFailed` hears of a step that could not be saved.
    @discardableResult
    public func run(
        _ job: JobRecord, saveFailed: @escaping (JobRecord, any Error) -> Void = { _, _ in },
        work: (_ phase: (JobStatus) -> Void) throws -> String
    ) -> JobRecord {
        var record = job
        func advance(_ event: JobEvent) {
            guard let next = try? record.applying(event, at: backend.clock.milliseconds()) else { return }
            record = next
            do { try backend.jobs.saveJob(next) } catch { saveFailed(next, error) }
        }
        advance(.started)
        do {
            let name = try work { phase in advance(.phase(phase)) }
            advance(.succeeded(resultFile: name))
        } catch {
            advance(.failed(ArcGISError(answering: error)))
        }
        return record
    }
}
