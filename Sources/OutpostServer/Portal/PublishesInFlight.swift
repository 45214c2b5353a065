import OutpostStorage
import OutpostSync
import OutpostWire
import Synchronization

/// The publishes this process has submitted and not yet seen end: which file items they read
/// and which service names they will take. Until its job ends, a publish's file item keeps its
/// file (deleting it mid-publish made a service no quota counted) and its name is taken (two
/// publishes of different kinds could each pass the other's check). An entry is dropped when
/// its job's record reads finished, so no hook on the job's end is needed and a job that fails
/// before its work runs releases its entry too. A change that takes a file item's file away
/// (its deletion, a new file) holds the item while it runs, so a publish cannot claim it between
/// the change's check and its write. Other processes' publishes are not known here.
final class PublishesInFlight: Sendable {
    private struct Entry: Sendable {
        let jobId: String
        let itemId: String
        let name: String
        let claimed = ContinuousClock.now
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        /// Items a change is taking the file of, with how many such changes run.
        var held: [String: Int] = [:]
    }

    /// What a claim found.
    enum Claim: Equatable, Sendable {
        case claimed
        case nameTaken
        /// The file item is being deleted or given a new file.
        case itemChanging
    }

    private let state = Mutex(State())

    /// Claims the name for the job, unless a running publish takes it or `isTaken` (asked
    /// under the claim's lock, so two publishes never both pass) says a service has it, or a
    /// change holds the file item.
    func claim(jobId: String, itemId: String, name: String, isTaken: () throws -> Bool, jobs: some JobStore) throws -> Claim {
        try state.withLock { state in
            guard state.held[itemId] == nil else { return .itemChanging }
            state.entries = try Self.running(state.entries, jobs)
            guard !state.entries.contains(where: { $0.name == Self.key(name) }), try !isTaken() else { return .nameTaken }
            state.entries.append(Entry(jobId: jobId, itemId: itemId, name: Self.key(name)))
            return .claimed
        }
    }

    func remove(jobId: String) {
        state.withLock { $0.entries.removeAll { $0.jobId == jobId } }
    }

    /// Whether a running publish will take the name.
    func claimed(_ name: String, jobs: some JobStore) throws -> Bool {
        try state.withLock { state in
            state.entries = try Self.running(state.entries, jobs)
            return state.entries.contains { $0.name == Self.key(name) }
        }
    }

    /// Holds the item for a change that takes its file away, unless a running publish reads
    /// it: then that publish's job, and nothing is held. `release(item:)` ends the hold.
    func hold(item itemId: String, jobs: some JobStore) throws -> String? {
        try state.withLock { state in
            state.entries = try Self.running(state.entries, jobs)
            if let reading = state.entries.first(where: { $0.itemId == itemId }) { return reading.jobId }
            state.held[itemId, default: 0] += 1
            return nil
        }
    }

    func release(item itemId: String) {
        state.withLock { state in
            guard let count = state.held[itemId] else { return }
            state.held[itemId] = count > 1 ? count - 1 : nil
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
