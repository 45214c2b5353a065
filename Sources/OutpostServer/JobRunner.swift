import NIOConcurrencyHelpers
import NIOPosix
import OutpostWire

/// How many asynchronous jobs run, wait, and belong to one caller at once.
public struct JobLimits: Sendable, Equatable {
    /// Jobs running at once: exports are CPU- and disk-bound, more than the cores only slows each.
    public var running: Int
    /// Jobs waiting for a slot; past it a new job is refused (429).
    public var queued: Int
    /// Jobs one caller (a user, or an address without token security) may have running or waiting.
    public var perUser: Int

    public init(running: Int = 2, queued: Int = 32, perUser: Int = 4) {
        self.running = max(1, running)
        self.queued = max(0, queued)
        self.perUser = max(1, perUser)
    }
}

/// Runs asynchronous jobs a few at a time; the rest wait as `Pending`, up to a bound.
///
/// Admission is decided when a job is submitted, before anything of it is saved: a full
/// queue or a caller at their limit gets a 429 with `Retry-After`, never an unbounded wait.
/// Blocking store calls inside a job go through `blocking`, so they run on NIO's thread pool
/// instead of an event loop or the cooperative pool.
public final class JobRunner: Sendable {
    public let limits: JobLimits
    public var maximumConcurrentJobs: Int { limits.running }

    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Admitted jobs (running or waiting) per caller.
        var perCaller: [String: Int] = [:]
        var admitted: Int { perCaller.values.reduce(0, +) }
    }

    private let state = NIOLockedValueBox(State())

    public init(limits: JobLimits = JobLimits()) {
        self.limits = limits
    }

    public convenience init(maximumConcurrentJobs: Int) {
        self.init(limits: JobLimits(running: maximumConcurrentJobs))
    }

    /// A place for one job of `caller`, held until the job ends.
    public struct Ticket: Sendable {
        let caller: String
    }

    /// Admits a job of `caller` or refuses it: the queue is full, or the caller has their share.
    public func admit(caller: String) throws(ArcGISError) -> Ticket {
        let refusal: ArcGISError? = state.withLockedValue { state in
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
    public func submit(_ ticket: Ticket, _ work: @escaping @Sendable () async -> Void) {
        Task {
            await self.acquire()
            await work()
            self.release(ticket)
        }
    }

    /// Gives a ticket back without running its job (its submission failed).
    public func cancel(_ ticket: Ticket) {
        state.withLockedValue { Self.forget(ticket, in: &$0) }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let start: Bool = state.withLockedValue { state in
                if state.running < limits.running {
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
        let next: CheckedContinuation<Void, Never>? = state.withLockedValue { state in
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

    /// Jobs running and jobs waiting for a slot (metrics).
    public var load: (running: Int, queued: Int) {
        state.withLockedValue { state in (state.running, state.admitted - state.running) }
    }

    /// Runs blocking work (SQLite, files) on NIO's blocking thread pool.
    public static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}
