import OutpostService
import OutpostSync
import OutpostWire
import Synchronization

/// A job gate holding the jobs named until `release` (JobRunnerTests): what a test target's
/// `job: {hold: true}` fault does, without a server.
final class HoldingJobGate: JobGate {
    private let held: Mutex<Set<String>>
    private let released = Mutex<Set<String>>([])

    init(holding ids: Set<String>) { held = Mutex(ids) }

    func release(_ id: String) { _ = released.withLock { $0.insert(id) } }

    func submitted(_ job: JobRecord) {}
    func holds(_ job: JobRecord) -> Bool { held.withLock { $0.contains(job.id) } }
    func hold(_ record: JobRecord) async -> ArcGISError? {
        while !released.withLock({ $0.contains(record.id) }) { try? await Task.sleep(for: .milliseconds(5)) }
        return nil
    }
    func check(_ record: JobRecord) -> ArcGISError? { nil }
}
