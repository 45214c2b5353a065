import OutpostSync

/// Asynchronous jobs' records (`JobRecord`, whose transitions are pure).
///
/// Contract: a saved record replaces the one with its id; records outlive restarts, and
/// `failUnfinishedJobs` (run at start-up, before serving) turns every job a dead process left
/// submitted or running into a failure that says so. `failJobsOfStoppedProcesses`, run while
/// serving, does so only for processes known to be gone, never for a live one's.
public protocol JobStore: Sendable {
    func saveJob(_ job: JobRecord) throws
    func job(id: String) throws -> JobRecord?
    /// Returns how many were failed.
    @discardableResult func failUnfinishedJobs(now: Int64) throws -> Int
    /// The unfinished jobs of processes that stopped while others serve on (several processes
    /// on one database); returns how many were failed.
    @discardableResult func failJobsOfStoppedProcesses(now: Int64) throws -> Int
}
