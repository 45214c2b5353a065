import OutpostWire
import Synchronization

/// The job runner's admission and concurrency: jobs run a few at a time, the rest wait as
/// `Pending`, up to a bound.
///
/// Admission is decided when a job is submitted, before anything of it is saved: a full
/// queue or a caller at their limit gets a 429 with `Retry-After`, never an unbounded wait.
/// Only `JobRunner` uses it (tests reach it with `@testable`).
final class JobQueue: Sendable {
    let limits: JobLimits

    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Admitted jobs (running or waiting) per caller.
        var perCaller: [String: Int] = [:]
        var admitted: Int { perCaller.values.reduce(0, +) }
    }

    private let state = Mutex(State())

    init(limits: JobLimits = JobLimits()) {
        self.limits = limits
    }

    /// A place for one job of `caller`, held until the job ends.
    struct Ticket: Sendable {
        let caller: String
    }

    /// Admits a job of `caller` or refuses it: the queue is full, or the caller has their share.
    func admit(caller: String) throws(ArcGISError) -> Ticket {
        let limits = self.limits
        let refusal: ArcGISError? = state.withLock { state in
            if state.perCaller[caller, default: 0] >= limits.perUser {
                return .tooManyRequests("You have \(limits.perUser) jobs running or waiting; submit more when one ends.", retryAfterSeconds: 5)
            }
            if state.admitted >= limits.running + limits.queued {
                return .tooManyRequests(
                    "The server has \(limits.running + limits.queued) jobs running or waiting; try again later.", retryAfterSeconds: 5)
            }
            state.perCaller[caller, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
        return Ticket(caller: caller)
    }

    /// Starts an admitted job once a slot is free and returns at once.
    func submit(_ ticket: Ticket, _ work: @escaping @Sendable () async -> Void) {
        submit(ticket, beforeSlot: {}, { _ in await work() })
    }

    /// Runs `beforeSlot` at once, outside the running slots (a held job's wait: it keeps its
    /// place in the queue's bounds, not a slot), then `work` with its result once a slot is free.
    func submit<Prepared: Sendable>(
        _ ticket: Ticket, beforeSlot: @escaping @Sendable () async -> Prepared, _ work: @escaping @Sendable (Prepared) async -> Void
    ) {
        Task {
            let prepared = await beforeSlot()
            await self.acquire()
            await work(prepared)
            self.release(ticket)
        }
    }

    /// Gives a ticket back without running its job (its submission failed).
    func cancel(_ ticket: Ticket) {
        state.withLock { Self.forget(ticket, in: &$0) }
    }

    private func acquire() async {
        let running = limits.running
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let start: Bool = state.withLock { state in
                if state.running < running {
                    state.running += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if start { continuation.resume() }
        }
    }

    private func release(_ ticket: Ticket) {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            Self.forget(ticket, in: &state)
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    private static func forget(_ ticket: Ticket, in state: inout State) {
        let left = state.perCaller[ticket.caller, default: 1] - 1
        state.perCaller[ticket.caller] = left > 0 ? left : nil
    }

    /// Jobs running and jobs waiting for a slot.
    var load: (running: Int, queued: Int) {
        state.withLock { state in (state.running, state.admitted - state.running) }
    }

    /// The jobs admitted (running or waiting) per caller.
    var callers: [String: Int] { state.withLock { $0.perCaller } }
}
