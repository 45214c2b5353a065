import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

@testable import OutpostServer

/// Fault rules on a live test target (docs/testing-your-app.md, Faults), on both backends:
/// errors, latency, cuts, resets, held and failed jobs, matching and seeded probability.
@Suite struct TestTargetFaultTests {
    static let demo = "/arcgis/rest/services/Demo/FeatureServer"

    static func withTarget(
        _ backend: DemoBackend, seed: UInt64? = nil, _ body: @Sendable (any TestClientProtocol, TestTarget) async throws -> Void
    ) async throws {
        let store = try backend.make()
        var options = ServerOptions()
        let target = TestTarget(seed: seed)
        options.testTarget = target
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in try await body(client, target) }
    }

    /// Adds a rule; its id.
    static func addRule(_ client: any TestClientProtocol, _ rule: String) async throws -> String {
        let answer = try await post(client, "/_outpost/faults", [("f", "json"), ("rule", rule)])
        return try #require(answer["rule"]?["id"]?.stringValue, "\(answer)")
    }

    static func fired(_ client: any TestClientProtocol, _ id: String) async throws -> Int64? {
        try await get(client, "/_outpost/faults?f=json")["rules"]?.arrayValue?.first { $0["id"] == .string(id) }?["fired"]?.int64Value
    }

    static func query(_ client: any TestClientProtocol, layer: Int = 2, where clause: String = "1=1") async throws -> JSONValue {
        try await get(client, "\(demo)/\(layer)/query?where=\(FormURLEncoding.percentEncode(clause))&returnCountOnly=true&f=json")
    }

    /// Submits an asynchronous createReplica of the trees; its status path.
    static func createReplicaJob(_ client: any TestClientProtocol, name: String) async throws -> String {
        let answer = try await post(
            client, "\(demo)/createReplica", [("f", "json"), ("layers", "2"), ("dataFormat", "json"), ("async", "true"), ("replicaName", name)])
        return path(of: try #require(answer["statusUrl"]?.stringValue, "\(answer)"))
    }

    static func finished(_ client: any TestClientProtocol, _ status: String) async throws -> JSONValue {
        var answer = JSONValue.null
        for _ in 0..<400 {
            answer = try await get(client, "\(status)?f=json")
            if answer["status"] == "Completed" || answer["status"] == "Failed" { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        return answer
    }

    @Test(arguments: DemoBackend.all)
    func theNextSyncFailsWithTheInjectedCodeThenSucceeds(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            var device = try DeviceReplica(created: try await createTreeReplica(client, name: "faulty"), layer: 2)
            let id = try await Self.addRule(
                client,
                #"{"operation":"synchronizeReplica","service":"Demo","error":{"code":503,"message":"Injected outage","details":["try later"]},"count":1}"#
            )
            let failed = try await device.sync(client)
            #expect(failed["error"]?["code"] == 503 && failed["error"]?["message"] == "Injected outage", "\(failed)")
            #expect(failed["error"]?["details"] == ["try later"])
            let again = try await device.sync(client)
            #expect(again["error"] == nil && again["responseType"] == "esriReplicaResponseTypeNoEdits", "\(again)")
            #expect(try await Self.fired(client, id) == 1)
        }
    }

    @Test(arguments: DemoBackend.all)
    func anHTTPStatusIsAnsweredWhenTheRuleGivesOne(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            _ = try await Self.addRule(client, #"{"operation":"query","error":{"code":502,"message":"Bad gateway","httpStatus":502}}"#)
            try await client.execute(uri: "\(Self.demo)/2/query?where=1%3D1&f=json", method: .get) { response in
                #expect(response.status.code == 502)
                #expect(json(response)["error"]?["code"] == 502)
            }
        }
    }

    @Test(arguments: DemoBackend.all)
    func aQueryIsDelayedByTheLatencyAndAnotherServiceIsNot(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            let slow = try await Self.addRule(client, #"{"operation":"query","layer":2,"latency":{"ms":400}}"#)
            let other = try await Self.addRule(client, #"{"service":"Elsewhere","error":{"code":500}}"#)
            let clock = ContinuousClock()
            let started = clock.now
            let answer = try await Self.query(client)
            #expect(clock.now - started >= .milliseconds(400))
            #expect(answer["count"]?.int64Value ?? 0 > 0, "\(answer)")
            // Another layer's query is not the rule's (no upper time bound: the machine is shared).
            #expect(try await Self.query(client, layer: 0)["count"] != nil)
            #expect(try await Self.fired(client, slow) == 1)
            #expect(try await Self.fired(client, other) == 0)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aRuleMatchesOnItsParameters(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            _ = try await Self.addRule(client, #"{"parameters":{"where":"height_m > 25"},"error":{"code":400,"message":"Picked"}}"#)
            #expect(try await Self.query(client, where: "height_m > 25")["error"]?["message"] == "Picked")
            #expect(try await Self.query(client, where: "height_m > 26")["count"] != nil)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aReplicaDownloadIsCutAtTheFraction(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            let status = try await Self.finished(client, try await Self.createReplicaJob(client, name: "cut"))
            let result = path(of: try #require(status["resultUrl"]?.stringValue, "\(status)"))
            let port = try #require(client.port)
            let whole = try await RawHTTPExchange.get(port: port, path: result)
            let length = try #require(whole.contentLength, "\(whole.head)")
            #expect(whole.body.count == length)
            _ = try await Self.addRule(client, #"{"operation":"replicaFile","cutAfterFraction":0.6}"#)
            let cut = try await RawHTTPExchange.get(port: port, path: result)
            #expect(cut.contentLength == length, "\(cut.head)")
            #expect(cut.body.count == Int(Double(length) * 0.6), "\(cut.body.count) of \(length)")
            #expect(cut.body[...] == whole.body[0..<cut.body.count])
        }
    }

    @Test(arguments: DemoBackend.all)
    func anAnswerIsSentAtTheBandwidth(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            let uri = "\(Self.demo)/0/query?where=1%3D1&outFields=*&f=json"
            let whole = try await client.execute(uri: uri, method: .get) { Array(buffer: $0.body) }
            #expect(whole.count > 1000)
            // A second's worth of bytes per second: the answer takes about a second, unchanged.
            _ = try await Self.addRule(client, #"{"operation":"query","bandwidth":\#(whole.count)}"#)
            let clock = ContinuousClock()
            let started = clock.now
            let slowed = try await client.execute(uri: uri, method: .get) { Array(buffer: $0.body) }
            #expect(clock.now - started >= .milliseconds(900))
            #expect(slowed == whole)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aResetClosesTheConnectionUnanswered(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            _ = try await Self.addRule(client, #"{"operation":"query","reset":true,"count":1}"#)
            let port = try #require(client.port)
            let path = "\(Self.demo)/2/query?where=1%3D1&returnCountOnly=true&f=json"
            let reset = try await RawHTTPExchange.get(port: port, path: path)
            #expect(reset.head.isEmpty && reset.body.isEmpty, "\(reset.head)")
            let answered = try await RawHTTPExchange.get(port: port, path: path)
            #expect(answered.head.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test(arguments: DemoBackend.all)
    func aHeldCreateReplicaJobExecutesUntilReleased(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            _ = try await Self.addRule(client, #"{"operation":"createReplica","job":{"hold":true},"count":1}"#)
            let status = try await Self.createReplicaJob(client, name: "held")
            let jobId = String(status.split(separator: "/").last ?? "")
            var held: [JSONValue] = []
            let deadline = ContinuousClock.now + .seconds(120)
            while held.isEmpty, ContinuousClock.now < deadline {
                held = try await get(client, "/_outpost/jobs?f=json")["held"]?.arrayValue ?? []
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(held == [["jobId": .string(jobId), "operation": "createReplica", "service": "Demo", "step": "InProgress"]])
            try await Task.sleep(for: .milliseconds(300))
            let waiting = try await get(client, "\(status)?f=json")
            #expect(waiting["status"] == "InProgress", "\(waiting)")
            #expect(try await post(client, "/_outpost/jobs/\(jobId)/release", [("f", "json")])["success"] == true)
            #expect(try await Self.finished(client, status)["status"] == "Completed")
            #expect(try await get(client, "/_outpost/jobs?f=json")["held"] == [])
            #expect(try await post(client, "/_outpost/jobs/\(jobId)/release", [("f", "json")])["error"]?["code"] == 404)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aJobFailsAtTheStepOrWhenAHeldJobIsFailed(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            _ = try await Self.addRule(
                client, #"{"operation":"createReplica","job":{"failAtStep":"ExportingData","error":{"code":500,"message":"Disk full"}},"count":1}"#)
            let failed = try await Self.finished(client, try await Self.createReplicaJob(client, name: "step"))
            #expect(failed["status"] == "Failed" && "\(failed)".contains("Disk full"), "\(failed)")
            #expect(try await Self.finished(client, try await Self.createReplicaJob(client, name: "fine"))["status"] == "Completed")

            _ = try await Self.addRule(client, #"{"operation":"createReplica","job":{"hold":true},"count":1}"#)
            let status = try await Self.createReplicaJob(client, name: "dropped")
            let jobId = String(status.split(separator: "/").last ?? "")
            var answer = JSONValue.null
            let deadline = ContinuousClock.now + .seconds(120)
            while answer["success"] != true, ContinuousClock.now < deadline {
                answer = try await post(
                    client, "/_outpost/jobs/\(jobId)/fail", [("f", "json"), ("error", #"{"code":400,"message":"Dropped by the test"}"#)])
                try await Task.sleep(for: .milliseconds(10))
            }
            let dropped = try await Self.finished(client, status)
            #expect(dropped["status"] == "Failed" && "\(dropped)".contains("Dropped by the test"), "\(dropped)")
        }
    }

    @Test func aSeededProbabilityFiresTheSameSequenceTwice() async throws {
        func sequence() async throws -> [Bool] {
            let fired = Mutex<[Bool]>([])
            try await Self.withTarget(DemoBackend.all[0], seed: 2027) { client, _ in
                _ = try await Self.addRule(client, #"{"operation":"query","probability":0.5,"error":{"code":503}}"#)
                for _ in 0..<24 {
                    let failed = try await Self.query(client, layer: 0)["error"] != nil
                    fired.withLock { $0.append(failed) }
                }
            }
            return fired.withLock { $0 }
        }
        let first = try await sequence()
        #expect(first.contains(true) && first.contains(false))
        #expect(try await sequence() == first)
    }

    @Test func badRulesAndUnknownIdsAreRefused() async throws {
        try await Self.withTarget(DemoBackend.all[0]) { client, _ in
            let bad = try await post(client, "/_outpost/faults", [("f", "json"), ("rule", #"{"latency":{"ms":900000}}"#)])
            #expect(bad["error"]?["code"] == 400, "\(bad)")
            #expect(try await post(client, "/_outpost/faults", [("f", "json")])["error"]?["code"] == 400)
            #expect(try await post(client, "/_outpost/faults/f9/delete", [("f", "json")])["error"]?["code"] == 404)
            let id = try await Self.addRule(client, #"{"reset":true}"#)
            #expect(try await get(client, "/_outpost/faults?f=json")["rules"]?.arrayValue?.count == 1)
            #expect(try await post(client, "/_outpost/faults/\(id)/delete", [("f", "json")])["success"] == true)
            _ = try await Self.addRule(client, #"{"reset":true}"#)
            #expect(try await post(client, "/_outpost/faults/clear", [("f", "json")])["success"] == true)
            #expect(try await get(client, "/_outpost/faults?f=json")["rules"] == [])
        }
    }
}
