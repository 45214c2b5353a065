import Logging
import OutpostService

extension JobRunner {
    /// The server's runner: its jobs' blocking work on `StoreCall.run`'s pool.
    convenience init(limits: JobLimits = JobLimits(), logger: Logger = .outpostDefault, gate: (any JobGate)? = nil) {
        self.init(limits: limits, executor: StoreCallExecutor(), logger: logger, gate: gate)
    }
}
