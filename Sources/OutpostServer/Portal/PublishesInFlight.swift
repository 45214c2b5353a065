import OutpostStorage
import OutpostSync
import OutpostWire
import Synchronization

/// The publishes this process has submitted and not yet seen end: which file items they read
/// and which service names they will take. Until its job ends, a publish's file item keeps its
/// file (deleting it mid-publish made a service no quota counted) and its name is taken (two
/// publishes of different kinds could each pass the other's check). An entry is dropped when
/// its job's record reads finished, so no hook on the job's end is needed and a job that fails
/// before its work runs releases its entry too. Other processes' publishes are not known here.
final class PublishesInFlight: Sendable {
    private struct Entry: Sendable {
        let jobId: String
        let itemId: String
        let name: String
        let claimed = ContinuousClock.now
    }

    private let entries = Mutex<[Entry]>([])

    /// Claims the name for the job, unless a running publish takes it or `isTaken` (asked
    /// under the claim's lock, so two publishes never both pass) says a service has it.
    func claim(jobId: String, itemId: String, name: String, isTaken: () throws -> Bool, jobs: some JobStore) throws -> Bool {
        try entries.withLock { entries in
            entries = try Self.running(entries, jobs)
            guard !entries.contains(where: { $0.name == Self.key(name) }), try !isTaken() else { return false }
            entries.append(Entry(jobId: jobId, itemId: itemId, name: Self.key(name)))
            return true
        }
    }

    func remove(jobId: String) {
        entries.withLock { $0.removeAll { $0.jobId == jobId } }
    }

    /// Whether a running publish will take the name.
    func claimed(_ name: String, jobs: some JobStore) throws -> Bool {
        try entries.withLock { entries in
            entries = try Self.running(entries, jobs)
            return entries.contains { $0.name == Self.key(name) }
        }
    }

    /// The job of a running publish reading the item, if any.
    func publishing(item itemId: String, jobs: some JobStore) throws -> String? {
        try entries.withLock { entries in
            entries = try Self.running(entries, jobs)
            return entries.first { $0.itemId == itemId }?.jobId
        }
    }

    /// The entries whose jobs have not ended. A job without a record yet is being submitted
    /// (claimed before its record is saved), unless it was claimed long ago.
    private static func running(_ entries: [Entry], _ jobs: some JobStore) throws -> [Entry] {
        try entries.filter { entry in
            try jobs.job(id: entry.jobId).map { !$0.status.isTerminal } ?? (ContinuousClock.now - entry.claimed < .seconds(600))
        }
    }

    /// Names compare as the catalog compares them: without case.
    static func key(_ name: String) -> String { ServiceDefinition.normalizedName(name) }
}
