import OutpostSync
import OutpostWire

/// What may stop a job between its steps (a test target's faults, docs/testing-your-app.md):
/// hold it while it is executing, or fail it at a step. `JobRunner` consults it; a server
/// without one runs every job straight through.
public protocol JobGate: Sendable {
    /// `job` is being submitted, in the submitting request's task (where a fault that fired on
    /// the request can arm the gate for it).
    func submitted(_ job: JobRecord)
    /// Whether `job` is to be held once it has started.
    func holds(_ job: JobRecord) -> Bool
    /// Waits (suspended, no thread blocked) while the started job is held; a failure to apply
    /// instead of running its work, or nil to run it.
    func hold(_ record: JobRecord) async -> ArcGISError?
    /// After each step of the job is saved (on the blocking pool): a failure to apply instead
    /// of the next step, or nil.
    func check(_ record: JobRecord) -> ArcGISError?
}
