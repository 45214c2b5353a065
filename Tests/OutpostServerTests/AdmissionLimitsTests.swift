import Foundation
import OutpostWire
import Testing

@testable import OutpostServer
@testable import OutpostService

/// The bounded job queue and sign-in throttling as values, without HTTP.
@Suite struct AdmissionLimitsTests {
    @Test func theJobQueueIsBoundedInTotalAndPerCaller() async throws {
        let runner = JobQueue(limits: JobLimits(running: 1, queued: 2, perUser: 2))
        let a1 = try runner.admit(caller: "a")
        _ = try runner.admit(caller: "a")
        // A caller at their share is refused, others are not.
        #expect(throws: ArcGISError.self) { try runner.admit(caller: "a") }
        let b1 = try runner.admit(caller: "b")
        // Three admitted = one running + two waiting: the queue is full for everyone.
        do {
            _ = try runner.admit(caller: "c")
            Issue.record("a full queue admitted a job")
        } catch {
            #expect(error.kind == .tooManyRequests && error.code == 429 && (error.retryAfterSeconds ?? 0) > 0)
        }
        // A ticket given back frees its place.
        runner.cancel(b1)
        _ = try runner.admit(caller: "c")
        // A job that runs and ends frees its place too.
        let ended = AsyncStream<Void>.makeStream()
        runner.cancel(a1)
        let a3 = try runner.admit(caller: "a")
        runner.submit(a3) { ended.continuation.yield(()) }
        for await _ in ended.stream { break }
        try await Task.sleep(for: .milliseconds(20))
        _ = try runner.admit(caller: "a")
    }

    @Test func jobsBeyondTheRunningLimitWaitInOrder() async throws {
        let runner = JobQueue(limits: JobLimits(running: 1, queued: 10, perUser: 10))
        let order = OrderBox()
        let gate = AsyncStream<Void>.makeStream()
        let done = AsyncStream<Int>.makeStream()
        runner.submit(try runner.admit(caller: "x")) {
            for await _ in gate.stream { break }
            order.append(0)
            done.continuation.yield(0)
        }
        try await Task.sleep(for: .milliseconds(20))
        for index in 1...3 {
            runner.submit(try runner.admit(caller: "x")) {
                order.append(index)
                done.continuation.yield(index)
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(runner.load.running == 1 && runner.load.queued == 3)
        gate.continuation.yield(())
        var finished = 0
        for await _ in done.stream {
            finished += 1
            if finished == 4 { break }
        }
        #expect(order.values == [0, 1, 2, 3])
    }

    @Test func wrongPasswordsDoubleTheWaitAndASuccessClearsIt() {
        var throttle = LoginThrottle()
        var now = 1_000.0
        for _ in 0..<LoginThrottle.freeFailures {
            #expect(throttle.wait(user: "eve", address: "10.0.0.1", now: now) == 0)
            throttle.failed(user: "eve", address: "10.0.0.1", now: now)
        }
        #expect(throttle.wait(user: "eve", address: "10.0.0.1", now: now) == LoginThrottle.firstWait)
        // Per user from any address, and per address for any user.
        #expect(throttle.wait(user: "EVE", address: "10.0.0.2", now: now) == LoginThrottle.firstWait)
        #expect(throttle.wait(user: "ada", address: "10.0.0.1", now: now) == LoginThrottle.firstWait)
        #expect(throttle.wait(user: "ada", address: "10.0.0.2", now: now) == 0)
        var waits: [Double] = []
        for _ in 0..<12 {
            now += throttle.wait(user: "eve", address: "10.0.0.1", now: now)
            throttle.failed(user: "eve", address: "10.0.0.1", now: now)
            waits.append(throttle.wait(user: "eve", address: "10.0.0.1", now: now))
        }
        #expect(Array(waits.prefix(4)) == [2, 4, 8, 16])
        #expect(waits.last == LoginThrottle.longestWait)
        throttle.succeeded(user: "eve", address: "10.0.0.1")
        #expect(throttle.wait(user: "eve", address: "10.0.0.1", now: now) == 0)
        // An hour later the record is forgotten.
        for _ in 0...LoginThrottle.freeFailures { throttle.failed(user: "bob", address: "10.0.0.9", now: now) }
        throttle.failed(user: "bob", address: "10.0.0.9", now: now + LoginThrottle.forgetAfter)
        #expect(throttle.wait(user: "bob", address: "10.0.0.9", now: now + LoginThrottle.forgetAfter) == 0)
    }
}

private final class OrderBox: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []
    func append(_ value: Int) { lock.withLock { storage.append(value) } }
    var values: [Int] { lock.withLock { storage } }
}
