import Logging
import OutpostService

extension JobRunner {
    /// The server's runner: its jobs' blocking work on `JobThreads`, apart from requests' store calls.
    convenience init(limits: JobLimits = JobLimits(), logger: Logger = .outpostDefault, gate: (any JobGate)? = nil) {
        self.init(limits: limits, executor: JobThreadsExecutor(), logger: logger, gate: gate)
    }
}
