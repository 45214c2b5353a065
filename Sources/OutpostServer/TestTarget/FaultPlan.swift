import Foundation
import OutpostWire

/// What a fault rule that fired does to one request: drawn once (the latency too), then
/// applied by `FaultMiddleware`.
struct FaultDecision: Sendable, Equatable {
    var ruleId: String
    var error: FaultRule.InjectedError?
    /// Milliseconds to wait before the route runs (0: none).
    var latencyMilliseconds: Double = 0
    var bandwidth: Int?
    var cutAfterBytes: Int?
    var cutAfterFraction: Double?
    var reset = false
    var job: FaultRule.JobFault?
}

/// The rules of a test target, in the order added, how often each fired, and the generator
/// probabilities and latencies are drawn from (seeded by `--seed`: the same requests see the
/// same faults). A value: the board keeps it behind a lock.
struct FaultPlan: Sendable {
    /// At most this many rules at once.
    static let maximumRules = 1000

    private(set) var rules: [FaultRule] = []
    private(set) var fired: [String: Int] = [:]
    private var random: SeededGenerator
    private var nextNumber = 1

    init(seed: UInt64?) {
        random = SeededGenerator(seed: seed ?? UInt64.random(in: .min ... .max))
    }

    /// Adds `rule` under a new id (`f1`, `f2`, …, never reused); refused past the maximum.
    mutating func add(_ rule: FaultRule) throws(ArcGISError) -> FaultRule {
        guard rules.count < Self.maximumRules else {
            throw ArcGISError.invalidParameter("rule", "at most \(Self.maximumRules) rules; delete or clear some first.")
        }
        var rule = rule
        rule.id = "f\(nextNumber)"
        nextNumber += 1
        rules.append(rule)
        fired[rule.id] = 0
        return rule
    }

    /// Removes the rule `id`; whether there was one.
    mutating func remove(_ id: String) -> Bool {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return false }
        rules.remove(at: index)
        fired[id] = nil
        return true
    }

    mutating func clear() {
        rules = []
        fired = [:]
    }

    /// The first live rule that matches `facts` and whose probability draw succeeds fires: its
    /// count is spent by one and what it does is drawn. Nil: nothing fires.
    mutating func decide(for facts: RequestFacts) -> FaultDecision? {
        for rule in rules where rule.matches(facts) {
            let times = fired[rule.id] ?? 0
            if let count = rule.count, times >= count { continue }
            if let probability = rule.probability, unitDraw() >= probability { continue }
            fired[rule.id] = times + 1
            let latency = rule.latency.map { draw($0) } ?? 0
            return FaultDecision(
                ruleId: rule.id, error: rule.error, latencyMilliseconds: latency, bandwidth: rule.bandwidth,
                cutAfterBytes: rule.cutAfterBytes, cutAfterFraction: rule.cutAfterFraction, reset: rule.reset, job: rule.job)
        }
        return nil
    }

    /// A number in [0, 1) from the plan's generator.
    private mutating func unitDraw() -> Double { Double(random.next() >> 11) / Double(1 << 53) }

    /// A latency in milliseconds, within the five minutes a rule may add.
    private mutating func draw(_ latency: FaultRule.Latency) -> Double {
        switch latency {
        case .fixed(let milliseconds): return milliseconds
        case .uniform(let low, let high): return low + (high - low) * unitDraw()
        case .lognormal(let median, let sigma):
            // Box–Muller: a standard normal from two uniform draws.
            let (u1, u2) = (max(unitDraw(), .leastNonzeroMagnitude), unitDraw())
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            return min(median * exp(sigma * normal), FaultRule.maximumLatency)
        }
    }
}
