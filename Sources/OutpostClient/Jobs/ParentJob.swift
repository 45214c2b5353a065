import Foundation

/// What a job made of child jobs serializes: its own status and messages, and its children.
protocol ParentJobDocument: Codable, Sendable {
    var id: String { get }
    var status: JobStatus { get set }
    var messages: [JobMessage] { get set }
    var error: ClientError? { get set }
    var children: [ChildJobRecord] { get set }
    /// A child's failure is reported and the others go on (else it stops them all).
    var continueOnErrors: Bool { get }
}

/// Runs a `ParentJobStateMachine` for the jobs made of child jobs (`GenerateOfflineMapJob`,
/// `OfflineMapSyncJob`): carries out each action it asks for (the children made, started,
/// paused, cancelled and followed, the job's waiters told) and reports back what happened.
/// Status, messages and their streams, the JSON document and progress (1,000 units per child)
/// come from the machine; the job itself says how to make each child and what to do once
/// they are done. State and observers sit behind one lock.
final class ParentJob<Document: ParentJobDocument>: Sendable {
    typealias Machine = ParentJobStateMachine<Document>
    typealias ChildrenOutcome = Machine.ChildrenOutcome

    struct State {
        var machine: Machine
        var task: Task<Void, Never>?
        /// The children made by this run, by index (the machine knows which still run).
        var children: [Int: any ChildJob] = [:]
        var waiters: [CheckedContinuation<Document, any Error>] = []
        var pollInterval = Duration.seconds(1)
    }

    let state: Locked<State>
    let observers = JobObservers()
    let progress: Progress
    /// Removes what a failed job wrote.
    private let cleanUp: @Sendable (Document) -> Void

    init(document: Document, extraUnits: Int64, cleanUp: @escaping @Sendable (Document) -> Void) {
        let machine = Machine(document: document, extraUnits: extraUnits)
        state = Locked(State(machine: machine))
        self.cleanUp = cleanUp
        progress = Progress(totalUnitCount: machine.totalUnits)
        progress.completedUnitCount = machine.completedUnits
    }

    var document: Document { state.withLock { $0.machine.document } }
    func update(_ change: (inout Document) -> Void) { state.withLock { $0.machine.amend(change) } }
    var isCancelled: Bool { state.withLock { $0.machine.cancelRequested } }

    /// Feeds the machine, under the lock; `progress` moves with it, so whoever sees the new
    /// status sees the progress that goes with it.
    func handle(_ event: Machine.Event, in state: inout State) -> Machine.Action {
        let action = state.machine.handle(event, at: Date())
        progress.completedUnitCount = state.machine.completedUnits
        return action
    }

    /// Feeds the machine and carries out what it asks; the children's outcome, once they are settled.
    @discardableResult
    func report(_ event: Machine.Event) -> ChildrenOutcome? {
        let (action, children, pollInterval) = state.withLock { state in
            (handle(event, in: &state), state.children, state.pollInterval)
        }
        switch action {
        case .startChildren(let indices):
            for child in indices.compactMap({ children[$0] }) {
                child.pollInterval = pollInterval
                child.start()
            }
        case .pauseChildren(let indices):
            for index in indices { children[index]?.pause() }
        case .cancelChildren(let indices):
            for index in indices { children[index]?.cancel() }
        case .pause:
            state.withLock { state in
                state.task = nil
                state.children = [:]
            }
        case .succeed, .fail:
            ended()
            return nil
        case .childrenEnded(let outcome):
            publish()
            return outcome
        case .run, .none:
            break
        }
        publish()
        return nil
    }

    // MARK: Control

    /// Starts `run`, or resumes the job when paused; its status is `started` on return.
    func start(_ run: @escaping @Sendable () async -> Void) {
        let action = state.withLock { state -> Machine.Action in
            guard state.task == nil else { return .none }
            return handle(.start, in: &state)
        }
        guard action == .run else { return }
        publish()
        let task = Task { await run() }
        state.withLock { if $0.machine.document.status == .started, $0.task == nil { $0.task = task } }
    }

    func pause() { report(.pauseRequested) }
    func cancel() { report(.cancelRequested) }

    /// Waits for the end: the final document, or the job's error.
    func finalDocument() async throws -> Document {
        try await withCheckedThrowingContinuation { continuation in
            let done: Result<Document, ClientError>? = state.withLock { state in
                switch state.machine.document.status {
                case .succeeded: return .success(state.machine.document)
                case .failed: return .failure(state.machine.document.error ?? .cancelled)
                default:
                    state.waiters.append(continuation)
                    return nil
                }
            }
            if let done { continuation.resume(with: done) }
        }
    }

    /// The document as JSON (no credentials); a running job is written as paused.
    func toJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(state.withLock { $0.machine.serialized })
    }

    // MARK: Observers

    var statuses: AsyncStream<JobStatus> { observers.statuses(current: document.status) }
    var messageStream: AsyncStream<JobMessage> { observers.messages() }

    private func publish() {
        state.withLock { observers.publish(status: $0.machine.document.status, messages: $0.machine.document.messages) }
    }

    func note(_ text: String) {
        state.withLock { $0.machine.note(text, at: Date()) }
        publish()
    }

    // MARK: Ending

    /// The job's own end, after its children.
    func finish(_ outcome: Result<Void, ClientError>) {
        switch outcome {
        case .success: report(.jobSucceeded)
        case .failure(let error): report(.jobFailed(error))
        }
    }

    /// Paused (or cancelled) with children under way: each one's state is kept.
    func stopped() { report(.stopped) }

    /// Succeeded or failed: what a failed job wrote removed, its waiters told.
    private func ended() {
        let (document, waiters) = state.withLock { state in
            defer {
                state.waiters = []
                state.task = nil
                state.children = [:]
            }
            return (state.machine.document, state.waiters)
        }
        if document.status == .failed { cleanUp(document) }
        publish()
        for waiter in waiters {
            if document.status == .succeeded { waiter.resume(returning: document) } else { waiter.resume(throwing: document.error ?? .cancelled) }
        }
    }
}
