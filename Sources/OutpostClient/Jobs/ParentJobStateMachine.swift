import Foundation

/// The steps of a job made of child jobs (`GenerateOfflineMapJob`, `OfflineMapSyncJob`) as a
/// pure state machine, as `JobStateMachine` is for one job: events in (started, children
/// made, a child's progress, pause, end or failure, a pause or cancel asked, the job's own
/// end), actions out (run, start, pause or cancel children, the children's outcome, pause,
/// succeed, fail). It does no I/O and reads no clock: `ParentJob` makes, starts and follows
/// the children and reports what happened, so the rules are tested without children or a
/// server (`ParentJobStateMachineTests`).
struct ParentJobStateMachine<Document: ParentJobDocument>: Sendable {
    private(set) var document: Document
    /// Units of work besides the children (1,000 each), such as writing the map.
    let extraUnits: Int64
    private(set) var pauseRequested = false
    private(set) var cancelRequested = false
    /// The children started and not yet ended or paused, by index.
    private(set) var running: Set<Int> = []
    /// How far each child has come (0…1).
    private(set) var fractions: [Int: Double] = [:]
    /// The first failure, which stops the others (without `continueOnErrors`).
    private(set) var fatal: ClientError?

    init(document: Document, extraUnits: Int64 = 0) {
        self.document = document
        self.extraUnits = extraUnits
    }

    /// How a run of the children ended.
    enum ChildrenOutcome: Equatable, Sendable {
        /// Every child is done or failed (with `continueOnErrors`).
        case finished
        /// Paused (each running child's state saved) or cancelled.
        case stopped
        case failed(ClientError)
    }

    enum Action: Equatable, Sendable {
        /// Run the job: its children, then its own end.
        case run
        case startChildren([Int])
        case pauseChildren([Int])
        case cancelChildren([Int])
        /// The children are all settled: the job goes on with this.
        case childrenEnded(ChildrenOutcome)
        case pause
        case succeed
        case fail(ClientError)
        /// Nothing to do (an event that changes nothing, or not yet).
        case none
    }

    enum Event: Equatable, Sendable {
        case start
        case pauseRequested
        case cancelRequested
        /// The children not yet done were made, each with what the messages call it.
        case childrenMade([Int: String])
        case childrenNotMade(ClientError)
        case childProgressed(Int, fraction: Double)
        /// A child paused, with its state to resume from.
        case childPaused(Int, saved: Data?)
        case childSucceeded(Int, ChildOutput)
        case childFailed(Int, ClientError)
        /// The job stopped on `ChildrenOutcome.stopped`.
        case stopped
        /// The job's own end after its children (the map written, say) succeeded, or failed.
        case jobSucceeded
        case jobFailed(ClientError)
    }

    /// The children a run makes: those neither done nor failed (a paused one resumes).
    var pendingChildren: [Int] {
        document.children.indices.filter { [.pending, .running].contains(document.children[$0].state) }
    }

    /// 1,000 units per child, as far as each has come, and the extra units once succeeded.
    var totalUnits: Int64 { Int64(document.children.count * 1000) + extraUnits }

    var completedUnits: Int64 {
        if document.status == .succeeded { return totalUnits }
        return document.children.indices.reduce(Int64(0)) { sum, index in
            let ended = [.done, .failed].contains(document.children[index].state)
            return sum + Int64((ended ? 1 : fractions[index] ?? 0) * 1000)
        }
    }

    private var isFinal: Bool { document.status == .succeeded || document.status == .failed }

    mutating func handle(_ event: Event, at date: Date) -> Action {
        switch event {
        case .start:
            guard document.status == .notStarted || document.status == .paused else { return .none }
            pauseRequested = false
            document.status = .started
            note(document.messages.isEmpty ? "started" : "resumed", at: date)
            return .run
        case .pauseRequested:
            guard document.status == .started else { return .none }
            pauseRequested = true
            return .pauseChildren(running.sorted())
        case .cancelRequested:
            guard !isFinal else { return .none }
            cancelRequested = true
            return document.status == .started ? .cancelChildren(running.sorted()) : fail(.cancelled, date)
        case .childrenMade(let made):
            guard document.status == .started else { return .none }
            // Asked to stop while they were made: none starts.
            if cancelRequested || pauseRequested { return .childrenEnded(.stopped) }
            for (index, description) in made.sorted(by: { $0.key < $1.key }) {
                document.children[index].state = .running
                running.insert(index)
                note(description, at: date)
            }
            return running.isEmpty ? settled() : .startChildren(running.sorted())
        case .childrenNotMade(let error):
            guard document.status == .started else { return .none }
            return .childrenEnded(.failed(error))
        case .childProgressed(let index, let fraction):
            if running.contains(index) { fractions[index] = fraction }
            return .none
        case .childPaused(let index, let saved):
            guard running.remove(index) != nil else { return .none }
            document.children[index].saved = saved
            return settled()
        case .childSucceeded(let index, let output):
            guard running.remove(index) != nil else { return .none }
            document.children[index].state = .done
            document.children[index].saved = nil
            document.children[index].output = output
            fractions[index] = 1
            return settled()
        case .childFailed(let index, let error):
            guard running.remove(index) != nil else { return .none }
            // Cancelled: the children fail with the job, nothing of theirs is recorded.
            if cancelRequested { return settled() }
            document.children[index].state = .failed
            document.children[index].error = error
            fractions[index] = 1
            note("\(document.children[index].file) failed: \(error.description)", at: date)
            if !document.continueOnErrors, fatal == nil {
                fatal = error
                if !running.isEmpty { return .cancelChildren(running.sorted()) }
            }
            return settled()
        case .stopped:
            guard document.status == .started else { return .none }
            if cancelRequested { return fail(.cancelled, date) }
            document.status = .paused
            pauseRequested = false
            note("paused", at: date)
            return .pause
        case .jobSucceeded:
            guard !isFinal else { return .none }
            document.status = .succeeded
            note("succeeded", at: date)
            return .succeed
        case .jobFailed(let error):
            guard !isFinal else { return .none }
            return fail(error, date)
        }
    }

    /// Once no child runs, how the run of the children ended.
    private mutating func settled() -> Action {
        guard running.isEmpty else { return .none }
        defer { fatal = nil }
        if cancelRequested { return .childrenEnded(.failed(.cancelled)) }
        if let fatal { return .childrenEnded(.failed(fatal)) }
        return .childrenEnded(document.children.contains { $0.state == .running } ? .stopped : .finished)
    }

    private mutating func fail(_ error: ClientError, _ date: Date) -> Action {
        document.status = .failed
        document.error = error
        running = []
        note("failed: \(error.description)", at: date)
        return .fail(error)
    }

    /// A message of the job's own (its end's steps: a copy registered, say).
    mutating func note(_ text: String, at date: Date) {
        document.messages.append(JobMessage(date: date, text: text))
    }

    /// A change the job's own end makes to its document (a child failing to register, say).
    mutating func amend(_ change: (inout Document) -> Void) { change(&document) }

    /// A restored job never resumes mid-run: a running job is kept as paused.
    var serialized: Document {
        var copy = document
        if copy.status == .started { copy.status = .paused }
        return copy
    }
}
