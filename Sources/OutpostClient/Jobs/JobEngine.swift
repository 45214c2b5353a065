import Foundation
import OutpostGeoPackage
import OutpostWire

/// Runs a `JobStateMachine`: performs each action it asks for (HTTP through the job's
/// `ServiceConnection`, files, the geodatabase) and reports back what happened. State and
/// observers sit behind one lock, so `start`, `pause` and `cancel` take effect at once.
final class JobEngine: Sendable {
    struct State {
        var machine: JobStateMachine
        var task: Task<Void, Never>?
        var waiters: [CheckedContinuation<JobDocument, any Error>] = []
        var geodatabase: Geodatabase?
        var holdsSync = false
    }

    let state: Locked<State>
    let connection: ServiceConnection
    let observers = JobObservers()
    let id: String
    /// Foundation's progress, for UI bindings (1,000 units).
    let progress: Progress

    init(document: JobDocument, connection: ServiceConnection, geodatabase: Geodatabase? = nil) {
        state = Locked(State(machine: JobStateMachine(document: document), geodatabase: geodatabase))
        self.connection = connection
        id = document.id
        progress = Progress(totalUnitCount: 1000)
        progress.completedUnitCount = Int64(document.progress * 1000)
    }

    var document: JobDocument { state.withLock { $0.machine.document } }

    func configure(_ change: (inout JobStateMachine) -> Void) { state.withLock { change(&$0.machine) } }

    /// Feeds the machine, under the lock; `progress` moves with it, so whoever sees the new
    /// status sees the progress that goes with it.
    private func handle(_ event: JobStateMachine.Event, in state: inout State) -> JobStateMachine.Action {
        let action = state.machine.handle(event, at: Date())
        progress.completedUnitCount = Int64(state.machine.document.progress * 1000)
        return action
    }

    // MARK: Control

    func start() {
        let action: JobStateMachine.Action? = state.withLock { state in
            guard state.task == nil else { return nil }
            return handle(.start, in: &state)
        }
        guard let action, action != .none else { return }
        publish()
        let task = Task { await self.run(from: action) }
        state.withLock { state in
            if state.machine.document.status == .started, state.task == nil { state.task = task }
        }
    }

    func pause() { request(.pauseRequested) }
    func cancel() { request(.cancelRequested) }

    private func request(_ event: JobStateMachine.Event) {
        let (action, task) = state.withLock { (handle(event, in: &$0), $0.task) }
        switch action {
        case .interrupt: task?.cancel()
        case .fail: finished()
        default: break
        }
        publish()
    }

    /// Waits for the end: the final document, or the job's error.
    func finalDocument() async throws -> JobDocument {
        try await withCheckedThrowingContinuation { continuation in
            let done: Result<JobDocument, ClientError>? = state.withLock { state in
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

    // MARK: Observers

    func statuses() -> AsyncStream<JobStatus> { observers.statuses(current: document.status) }
    func messages() -> AsyncStream<JobMessage> { observers.messages() }

    /// Tells observers what changed, in the order the document changed (under its lock).
    private func publish() {
        state.withLock { observers.publish(status: $0.machine.document.status, messages: $0.machine.document.messages) }
    }

    // MARK: Running

    private func run(from first: JobStateMachine.Action) async {
        var action = first
        while true {
            publish()
            switch action {
            case .none, .interrupt:
                return stopped()
            case .pause:
                return stopped()
            case .succeed, .fail:
                return finished()
            default:
                let event: JobStateMachine.Event
                do {
                    event = try await perform(action)
                } catch is CancellationError {
                    event = .interrupted
                } catch let error as ClientError {
                    event = .failed(error)
                } catch {
                    event = .failed(.network(String(describing: error)))
                }
                action = state.withLock { handle(event, in: &$0) }
            }
        }
    }

    private func stopped() {
        releaseSync()
        state.withLock { $0.task = nil }
        publish()
    }

    private func finished() {
        releaseSync()
        let (document, waiters) = state.withLock { state in
            defer {
                state.waiters = []
                state.task = nil
            }
            return (state.machine.document, state.waiters)
        }
        if document.status == .failed {
            for path in [document.partialPath, document.editsFile].compactMap({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        publish()
        for waiter in waiters {
            if document.status == .succeeded { waiter.resume(returning: document) } else { waiter.resume(throwing: document.error ?? .cancelled) }
        }
    }
}
