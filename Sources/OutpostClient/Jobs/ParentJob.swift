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

/// The machinery shared by jobs made of child jobs (`GenerateOfflineMapJob`,
/// `OfflineMapSyncJob`): status, messages and their streams, pause, resume, cancel, the
/// JSON document, progress weighted 1,000 units per child, and the children run side by
/// side. The job itself says how to make each child and what to do once they are done.
final class ParentJob<Document: ParentJobDocument>: Sendable {
    struct State {
        var document: Document
        var task: Task<Void, Never>?
        var pauseRequested = false
        var cancelRequested = false
        /// The children under way, by index, and how far each has come.
        var running: [Int: any ChildJob] = [:]
        var fractions: [Int: Double] = [:]
        var waiters: [CheckedContinuation<Document, any Error>] = []
        var pollInterval = Duration.seconds(1)
    }

    enum ChildrenOutcome: Equatable {
        /// Every child is done or failed (with `continueOnErrors`).
        case finished
        /// Paused (each running child's state saved) or cancelled.
        case stopped
        case failed(ClientError)
    }

    let state: Locked<State>
    let observers = JobObservers()
    let progress: Progress
    /// Removes what a failed job wrote.
    private let cleanUp: @Sendable (Document) -> Void

    init(document: Document, extraUnits: Int64, cleanUp: @escaping @Sendable (Document) -> Void) {
        state = Locked(State(document: document))
        self.cleanUp = cleanUp
        progress = Progress(totalUnitCount: Int64(document.children.count * 1000) + extraUnits)
        progress.completedUnitCount = Int64(document.children.filter { $0.state == .done || $0.state == .failed }.count * 1000)
    }

    var document: Document { state.withLock { $0.document } }
    func update(_ change: (inout Document) -> Void) { state.withLock { change(&$0.document) } }
    var isCancelled: Bool { state.withLock { $0.cancelRequested } }

    // MARK: Control

    /// Starts `run`, or resumes the job when paused; its status is `started` on return.
    func start(_ run: @escaping @Sendable () async -> Void) {
        let started = state.withLock { state -> Bool in
            guard state.task == nil, state.document.status == .notStarted || state.document.status == .paused else { return false }
            state.pauseRequested = false
            state.document.status = .started
            state.document.messages.append(JobMessage(date: Date(), text: state.document.messages.isEmpty ? "started" : "resumed"))
            return true
        }
        guard started else { return }
        publish()
        let task = Task { await run() }
        state.withLock { if $0.document.status == .started, $0.task == nil { $0.task = task } }
    }

    func pause() {
        let children = state.withLock { state -> [any ChildJob] in
            guard state.document.status == .started else { return [] }
            state.pauseRequested = true
            return Array(state.running.values)
        }
        for child in children { child.pause() }
    }

    func cancel() {
        let (children, idle) = state.withLock { state -> ([any ChildJob], Bool) in
            state.cancelRequested = true
            return (Array(state.running.values), state.document.status == .notStarted || state.document.status == .paused)
        }
        for child in children { child.cancel() }
        if idle { finish(.failure(.cancelled)) }
    }

    /// Waits for the end: the final document, or the job's error.
    func finalDocument() async throws -> Document {
        try await withCheckedThrowingContinuation { continuation in
            let done: Result<Document, ClientError>? = state.withLock { state in
                switch state.document.status {
                case .succeeded: return .success(state.document)
                case .failed: return .failure(state.document.error ?? .cancelled)
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
        var document = self.document
        if document.status == .started { document.status = .paused }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(document)
    }

    // MARK: Observers

    var statuses: AsyncStream<JobStatus> { observers.statuses(current: document.status) }
    var messageStream: AsyncStream<JobMessage> { observers.messages() }

    private func publish() { state.withLock { observers.publish(status: $0.document.status, messages: $0.document.messages) } }

    func note(_ text: String) {
        state.withLock { $0.document.messages.append(JobMessage(date: Date(), text: text)) }
        publish()
    }

    // MARK: Ending

    func finish(_ outcome: Result<Void, ClientError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Document, any Error>] in
            switch outcome {
            case .success:
                // Complete before succeeded: whoever sees the status sees the progress with it.
                progress.completedUnitCount = progress.totalUnitCount
                state.document.status = .succeeded
                state.document.messages.append(JobMessage(date: Date(), text: "succeeded"))
            case .failure(let error):
                state.document.status = .failed
                state.document.error = error
                state.document.messages.append(JobMessage(date: Date(), text: "failed: \(error.description)"))
            }
            state.task = nil
            state.running = [:]
            defer { state.waiters = [] }
            return state.waiters
        }
        let document = self.document
        if case .failure = outcome { cleanUp(document) }
        publish()
        for waiter in waiters {
            switch outcome {
            case .success: waiter.resume(returning: document)
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
    }

    /// Paused (or cancelled) with children under way: each one's state is kept.
    func stopped() {
        if isCancelled { return finish(.failure(.cancelled)) }
        state.withLock { state in
            state.document.status = .paused
            state.pauseRequested = false
            state.task = nil
            state.running = [:]
            state.document.messages.append(JobMessage(date: Date(), text: "paused"))
        }
        publish()
    }
}
