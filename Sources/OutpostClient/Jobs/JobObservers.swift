import Foundation

/// The `statuses` and `messageStream` of a job: each subscriber gets the status now (or the
/// messages so far), then every change once, and its stream ends with the job. The job calls
/// `publish` after each step with its whole state; what is new is worked out here.
final class JobObservers: Sendable {
    private struct State {
        var statusObservers: [UUID: AsyncStream<JobStatus>.Continuation] = [:]
        var messageObservers: [UUID: AsyncStream<JobMessage>.Continuation] = [:]
        var status: JobStatus?
        var messages: [JobMessage] = []
        var ended = false
    }

    private let state = Locked(State())

    /// The status now (`current` until the first publish), then each change.
    func statuses(current: JobStatus) -> AsyncStream<JobStatus> {
        let (stream, continuation) = AsyncStream<JobStatus>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let (status, ended) = state.withLock { state in
            let status = state.status ?? current
            let ended = state.ended || status == .succeeded || status == .failed
            if !ended { state.statusObservers[key] = continuation }
            return (status, ended)
        }
        continuation.yield(status)
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.statusObservers.removeValue(forKey: key) } }
        return stream
    }

    /// The messages published so far, then each new one.
    func messages() -> AsyncStream<JobMessage> {
        let (stream, continuation) = AsyncStream<JobMessage>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let (past, ended) = state.withLock { state in
            if !state.ended { state.messageObservers[key] = continuation }
            return (state.messages, state.ended)
        }
        for message in past { continuation.yield(message) }
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.messageObservers.removeValue(forKey: key) } }
        return stream
    }

    /// Tells observers what changed since the last call: the status if it moved, the
    /// messages past those already told (a job's messages only grow). A status that ends the
    /// job (`succeeded`, `failed`) ends every stream.
    func publish(status: JobStatus, messages: [JobMessage]) {
        let (changed, fresh, statusObservers, messageObservers, ends) = state.withLock { state in
            let fresh = Array(messages.dropFirst(state.messages.count))
            state.messages.append(contentsOf: fresh)
            let changed = state.status != status
            state.status = status
            let ends = !state.ended && (status == .succeeded || status == .failed)
            let observers = (Array(state.statusObservers.values), Array(state.messageObservers.values))
            if ends {
                state.ended = true
                state.statusObservers = [:]
                state.messageObservers = [:]
            }
            return (changed, fresh, observers.0, observers.1, ends)
        }
        if changed {
            for observer in statusObservers { observer.yield(status) }
        }
        for message in fresh {
            for observer in messageObservers { observer.yield(message) }
        }
        guard ends else { return }
        for observer in statusObservers { observer.finish() }
        for observer in messageObservers { observer.finish() }
    }
}
