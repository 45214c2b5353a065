import Foundation
import OutpostService
import OutpostSync
import OutpostWire
import Synchronization

/// The fault rules of a test target (`FaultPlan`, behind a lock) and the jobs they hold: the
/// control API edits it, `FaultMiddleware` asks it what to do with each request, and the job
/// runner asks it (as its `JobGate`) whether a job the request started is held or failed.
public final class FaultBoard: Sendable {
    /// The longest a job is held: then it proceeds, released or not.
    static let maximumHold: Duration = .seconds(600)

    /// A job armed by a fault, and where it is.
    struct ArmedJob: Sendable {
        var fault: FaultRule.JobFault
        var record: JobRecord?
        /// Held and waiting: set when the hold begins, cleared when it ends.
        var waiting = false
        /// How the hold ends: nil while held, `.some(nil)` released, `.some(error)` failed.
        var outcome: ArcGISError??
    }

    private let plan: Mutex<FaultPlan>
    private let armed = Mutex<[String: ArmedJob]>([:])

    /// The job fault of the rule that fired on the request being answered: the job the
    /// request submits (in its own task) is armed with it.
    @TaskLocal static var firedJobFault: FaultRule.JobFault?

    public init(seed: UInt64?) {
        plan = Mutex(FaultPlan(seed: seed))
    }

    deinit { releaseAll() }

    // MARK: Rules

    func add(_ rule: FaultRule) throws(ArcGISError) -> JSONValue {
        try plan.withLock { plan throws(ArcGISError) in try plan.add(rule).json(fired: 0) }
    }

    var rulesJSON: [JSONValue] {
        plan.withLock { plan in plan.rules.map { $0.json(fired: plan.fired[$0.id] ?? 0) } }
    }

    func remove(_ id: String) -> Bool { plan.withLock { $0.remove(id) } }

    func clear() { plan.withLock { $0.clear() } }

    /// What to do with the request `facts` describe (nil: nothing).
    func decide(for facts: RequestFacts) -> FaultDecision? {
        plan.withLock { $0.decide(for: facts) }
    }

    // MARK: Held jobs

    /// The jobs being held now, in id order.
    var heldJobs: [JobRecord] {
        armed.withLock { jobs in jobs.values.filter { $0.waiting && $0.outcome == nil }.compactMap(\.record) }
            .sorted { $0.id < $1.id }
    }

    /// Ends the hold of job `id` with `outcome` (nil: it proceeds); whether it was held.
    func endHold(of id: String, failing error: ArcGISError? = nil) -> Bool {
        armed.withLock { jobs in
            guard var job = jobs[id], job.waiting, job.outcome == nil else { return false }
            job.outcome = .some(error)
            jobs[id] = job
            return true
        }
    }

    /// Every held job proceeds (the board goes away, or the server stops).
    func releaseAll() {
        armed.withLock { jobs in
            for (id, job) in jobs where job.waiting && job.outcome == nil { jobs[id]?.outcome = .some(nil) }
        }
    }
}

extension FaultBoard: JobGate {
    public func submitted(_ job: JobRecord) {
        guard let fault = Self.firedJobFault else { return }
        armed.withLock { $0[job.id] = ArmedJob(fault: fault, record: job) }
    }

    public func holds(_ job: JobRecord) -> Bool {
        armed.withLock { $0[job.id]?.fault == .hold }
    }

    public func hold(_ record: JobRecord) async -> ArcGISError? {
        let marked = armed.withLock { jobs in
            guard jobs[record.id]?.fault == .hold else { return false }
            jobs[record.id]?.record = record
            jobs[record.id]?.waiting = true
            return true
        }
        guard marked else { return nil }
        let clock = ContinuousClock()
        let deadline = clock.now + Self.maximumHold
        // Polled rather than awaited on a continuation: a release, a failure, a cancelled task
        // and the deadline all end it the same way, with no resumption to lose.
        while clock.now < deadline, !Task.isCancelled {
            if let outcome = armed.withLock({ $0[record.id]?.outcome }) {
                armed.withLock { $0[record.id] = nil }
                return outcome
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        armed.withLock { $0[record.id] = nil }
        return nil
    }

    public func check(_ record: JobRecord) -> ArcGISError? {
        armed.withLock { jobs in
            guard let job = jobs[record.id] else { return nil }
            if record.status.isTerminal {
                jobs[record.id] = nil
                return nil
            }
            guard case .failAtStep(let step, let error) = job.fault, record.status.rawValue == step else { return nil }
            jobs[record.id] = nil
            return error.arcGISError
        }
    }
}
