import OutpostWire
import Testing

@testable import OutpostServer

/// Fault rules as values: parsed and refused, matched, spent, drawn (docs/testing-your-app.md, Faults).
@Suite struct FaultPlanTests {
    static let query = RequestFacts(
        method: "GET", path: "/arcgis/rest/services/Demo/FeatureServer/2/query", parameters: ["where": "1=1", "f": "json"])
    static let sync = RequestFacts(method: "POST", path: "/arcgis/rest/services/Demo/FeatureServer/synchronizeReplica", parameters: ["f": "json"])

    static func plan(_ rules: String..., seed: UInt64 = 7) throws -> FaultPlan {
        var plan = FaultPlan(seed: seed)
        for text in rules { _ = try plan.add(try FaultRule(json: text)) }
        return plan
    }

    @Test func aRuleIsParsedWithEveryFieldAndListedBack() throws {
        let text = #"""
            {"service":"Demo","layer":2,"operation":"query","method":"get","parameters":{"where":"1=1","n":3},
             "error":{"code":503,"message":"Down","details":["a"],"httpStatus":503},"latency":{"uniform":[10,20]},
             "bandwidth":1000,"cutAfterFraction":0.5,"job":{"failAtStep":"exportingData","error":{"code":400}},"count":2,"probability":0.5}
            """#
        let rule = try FaultRule(json: text)
        #expect(rule.service == "Demo" && rule.layer == 2 && rule.operation == "query" && rule.parameters == ["where": "1=1", "n": "3"])
        #expect(rule.error == FaultRule.InjectedError(code: 503, message: "Down", details: ["a"], httpStatus: 503))
        #expect(rule.latency == .uniform(10, 20) && rule.bandwidth == 1000 && rule.cutAfterFraction == 0.5)
        #expect(rule.job == .failAtStep("ExportingData", FaultRule.InjectedError(code: 400, message: "Unable to complete operation.")))
        #expect(rule.count == 2 && rule.probability == 0.5)
        let listed = rule.json(fired: 1)
        #expect(listed["fired"] == 1 && listed["latency"]?["uniform"] == [10.0, 20.0] && listed["error"]?["httpStatus"] == 503)
        // What is listed parses back to the same rule.
        var object = try #require(listed.objectValue)
        object["id"] = nil
        object["fired"] = nil
        var again = try FaultRule(object: object)
        again.id = rule.id
        #expect(again == rule)
    }

    @Test(arguments: [
        (#"{"error":{"code":500},"colour":"red"}"#, "'colour'"),
        (#"{"latency":{"ms":300001}}"#, "latency.ms"),
        (#"{"latency":{"ms":-1}}"#, "latency.ms"),
        (#"{"latency":{"uniform":[20,10]}}"#, "latency.uniform"),
        (#"{"latency":{"lognormal":{"median":10,"sigma":9}}}"#, "sigma"),
        (#"{"latency":{"gamma":3}}"#, "gamma"),
        (#"{"error":{"code":500},"count":0}"#, "'count'"),
        (#"{"error":{"code":500},"probability":1.5}"#, "'probability'"),
        (#"{"error":{"code":99}}"#, "error.code"),
        (#"{"error":{"code":600}}"#, "error.code"),
        (#"{"error":{"message":"no code"}}"#, "error.code"),
        (#"{"error":{"code":500,"httpStatus":100}}"#, "httpStatus"),
        (#"{"error":{"code":500,"why":1}}"#, "error.why"),
        (#"{"cutAfterFraction":2}"#, "cutAfterFraction"),
        (#"{"cutAfterBytes":-3}"#, "cutAfterBytes"),
        (#"{"cutAfterBytes":3,"cutAfterFraction":0.5}"#, "not both"),
        (#"{"bandwidth":0}"#, "bandwidth"),
        (#"{"job":{"hold":false}}"#, "'job'"),
        (#"{"job":{"failAtStep":"Completed"}}"#, "job.failAtStep"),
        (#"{"service":"Demo"}"#, "give an action"),
        (#"{"layer":"two","reset":true}"#, "'layer'"),
        (#"{"parameters":{"a":[1]},"reset":true}"#, "'parameters'"),
        (#"[1]"#, "JSON object"),
        (#"{"#, "JSON object"),
    ])
    func badRulesAreRefusedNamingTheField(text: String, named: String) {
        #expect {
            try FaultRule(json: text)
        } throws: { error in
            let error = error as? ArcGISError
            return error?.code == 400 && (error?.details.joined().contains(named) ?? false)
        }
    }

    @Test func atMostAThousandRules() throws {
        var plan = FaultPlan(seed: 1)
        let rule = try FaultRule(json: #"{"reset":true}"#)
        for _ in 0..<FaultPlan.maximumRules { _ = try plan.add(rule) }
        #expect(throws: ArcGISError.self) {
            var full = plan
            _ = try full.add(rule)
        }
        #expect(plan.rules.last?.id == "f1000")
    }

    @Test func theRequestsPathNamesItsOperationServiceAndLayer() {
        #expect(Self.query.operation == "query" && Self.query.service == "Demo" && Self.query.layer == 2)
        #expect(Self.sync.operation == "synchronizeReplica" && Self.sync.layer == nil)
        let folder = RequestFacts(method: "GET", path: "/arcgis/rest/services/Parks/Trees/FeatureServer/0/query", parameters: [:])
        #expect(folder.service == "Parks/Trees" && folder.layer == 0)
        let packaging = RequestFacts(
            method: "POST", path: "/arcgis/rest/services/System/OfflinePackaging/GPServer/SetupMapArea/submitJob", parameters: [:])
        #expect(packaging.operation == "packaging")
        #expect(RequestFacts(method: "POST", path: "/arcgis/sharing/rest/oauth2/token", parameters: [:]).operation == "generateToken")
        #expect(RequestFacts(method: "POST", path: "/arcgis/tokens/generateToken", parameters: [:]).operation == "generateToken")
    }

    @Test(arguments: [
        (#"{"service":"Demo","reset":true}"#, true, true),
        (#"{"service":"demo","reset":true}"#, true, true),
        (#"{"service":"Other","reset":true}"#, false, false),
        (#"{"layer":2,"reset":true}"#, true, false),
        (#"{"layer":0,"reset":true}"#, false, false),
        (#"{"operation":"query","reset":true}"#, true, false),
        (#"{"operation":"synchronizeReplica","reset":true}"#, false, true),
        (#"{"method":"post","reset":true}"#, false, true),
        (#"{"parameters":{"where":"1=1"},"reset":true}"#, true, false),
        (#"{"parameters":{"where":"1=1","f":"json"},"reset":true}"#, true, false),
        (#"{"parameters":{"where":"2=2"},"reset":true}"#, false, false),
        (#"{"parameters":{"f":"json"},"reset":true}"#, true, true),
        (#"{"reset":true}"#, true, true),
    ])
    func aRuleMatchesByEachField(text: String, query: Bool, sync: Bool) throws {
        let rule = try FaultRule(json: text)
        #expect(rule.matches(Self.query) == query)
        #expect(rule.matches(Self.sync) == sync)
    }

    @Test func theFirstMatchingLiveRuleFiresAndItsCountIsSpent() throws {
        var plan = try Self.plan(
            #"{"operation":"synchronizeReplica","error":{"code":503,"message":"Busy"},"count":1}"#,
            #"{"operation":"synchronizeReplica","latency":{"ms":5},"count":2}"#)
        let none = plan.decide(for: Self.query)
        #expect(none == nil)
        let decided = plan.decide(for: Self.sync)
        let first = try #require(decided)
        #expect(first.ruleId == "f1" && first.error?.code == 503 && first.latencyMilliseconds == 0)
        let next = plan.decide(for: Self.sync)
        let second = try #require(next)
        #expect(second.ruleId == "f2" && second.error == nil && second.latencyMilliseconds == 5)
        let third = plan.decide(for: Self.sync)
        #expect(third?.ruleId == "f2")
        let spent = plan.decide(for: Self.sync)
        #expect(spent == nil)
        #expect(plan.fired == ["f1": 1, "f2": 2])
        let removed = (plan.remove("f1"), plan.remove("f1"))
        #expect(removed == (true, false))
        plan.clear()
        #expect(plan.rules.isEmpty)
    }

    @Test func probabilityIsReproducibleUnderASeedAndRoughlyP() throws {
        func firings(seed: UInt64) throws -> [Bool] {
            var plan = try Self.plan(#"{"probability":0.3,"reset":true}"#, seed: seed)
            return (0..<1000).map { _ in plan.decide(for: Self.query) != nil }
        }
        let once = try firings(seed: 42)
        #expect(once == (try firings(seed: 42)))
        #expect(once != (try firings(seed: 43)))
        let fired = once.filter { $0 }.count
        #expect((240...360).contains(fired), "fired \(fired) of 1000 at p = 0.3")
    }

    @Test func latenciesAreDrawnWithinTheirForms() throws {
        var plan = try Self.plan(#"{"latency":{"uniform":[100,200]},"count":500}"#, #"{"latency":{"lognormal":{"median":50,"sigma":0.5}}}"#)
        let uniform = (0..<500).compactMap { _ in plan.decide(for: Self.query)?.latencyMilliseconds }
        #expect(uniform.count == 500 && uniform.allSatisfy { (100...200).contains($0) })
        let lognormal = (0..<1001).compactMap { _ in plan.decide(for: Self.query)?.latencyMilliseconds }.sorted()
        #expect((40...60).contains(lognormal[500]), "median \(lognormal[500])")
        #expect(lognormal.allSatisfy { $0 > 0 && $0 <= FaultRule.maximumLatency })
    }
}
