import Foundation
import Logging
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

/// The one job runner every job kind submits through (issue 45): admission, the record saved
/// before the job is queued, the run through `JobRun` on the injected blocking pool, a failure
/// logged.
@Suite struct JobRunnerTests {
    @Test func theRecordIsSavedBeforeTheWorkRunsOnTheBlockingPoolAndEveryStepAfter() async throws {
        let store = try makeTemporaryStore()
        let executor = TestExecutor()
        let runner = JobRunner(limits: JobLimits(running: 1, queued: 0, perUser: 1), executor: executor, logger: Logger(label: "test"))
        let job = Self.job(store)
        let gate = AsyncStream<Void>.makeStream()
        let seen = StatusBox()
        try await runner.submit(job, for: "user:ada", in: store) { steps in
            seen.status.withLock { $0 = try? store.jobs.job(id: job.id)?.status }
            steps.phase(.exportingData)
            executor.wait(for: gate.stream)
            return .succeeded(resultFile: "result.json")
        }
        // Saved when `submit` returns, before any work: a status request finds it.
        #expect(try store.jobs.job(id: job.id) != nil)
        // The caller's one place is taken while it runs.
        await #expect(throws: ArcGISError.self) {
            try await runner.submit(Self.job(store), for: "user:ada", in: store) { _ in .answered(.null) }
        }
        gate.continuation.yield(())
        let done = try await Self.finished(job.id, in: store)
        #expect(done.status == .completed && done.resultFile == "result.json")
        #expect(seen.status.withLock { $0 } == .inProgress, "started and saved before the work ran")
        #expect(executor.calls.withLock { $0 } == 2, "the save and the run, both on the executor")
        // Its place is given back once the run returns, just after the last record is saved.
        let deadline = ContinuousClock.now + .seconds(120)
        while runner.load.running > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(runner.load.running == 0 && runner.load.queued == 0)
    }

    @Test func aJobWhoseRecordCannotBeSavedIsNotQueuedAndGivesItsPlaceBack() async throws {
        let store = try makeTemporaryStore()
        let executor = TestExecutor()
        let runner = JobRunner(limits: JobLimits(running: 1, queued: 0, perUser: 1), executor: executor, logger: Logger(label: "test"))
        executor.failNext.withLock { $0 = true }
        let refused = Self.job(store)
        await #expect(throws: TestExecutor.Refusal.self) {
            try await runner.submit(refused, for: "user:ada", in: store) { _ in .answered(.null) }
        }
        #expect(try store.jobs.job(id: refused.id) == nil)
        #expect(runner.load.running == 0 && runner.load.queued == 0)
        // Its place was given back: the caller's one job is admitted.
        let next = Self.job(store)
        try await runner.submit(next, for: "user:ada", in: store) { _ in .answered(.string("ok")) }
        #expect(try await Self.finished(next.id, in: store).output == .string("ok"))
    }

    @Test func aFailedJobIsRecordedAndLogged() async throws {
        let store = try makeTemporaryStore()
        let messages = LogCollector()
        let runner = JobRunner(
            limits: JobLimits(), executor: TestExecutor(), logger: Logger(label: "test", factory: { _ in messages.handler }))
        let job = Self.job(store)
        try await runner.submit(job, for: "address:10.0.0.1", in: store) { _ in throw ArcGISError.internalError("disk on fire") }
        let failed = try await Self.finished(job.id, in: store)
        #expect(failed.status == .failed && failed.error?.code == 500)
        try await Task.sleep(for: .milliseconds(20))
        let logged = messages.lines.withLock { $0 }
        #expect(logged.contains { $0.contains("server fault") && $0.contains("disk on fire") }, "\(logged)")
        #expect(logged.contains { $0.contains("job \(job.id) (exportTiles) failed") }, "\(logged)")
    }

    @Test func aHeldJobTakesNoRunningSlotWhileItWaits() async throws {
        let store = try makeTemporaryStore()
        let (held, other) = (Self.job(store), Self.job(store))
        let gate = HoldingJobGate(holding: [held.id])
        let runner = JobRunner(
            limits: JobLimits(running: 1, queued: 1, perUser: 2), executor: TestExecutor(), logger: Logger(label: "test"), gate: gate)
        try await runner.submit(held, for: "user:ada", in: store) { _ in .answered(.null) }
        try await runner.submit(other, for: "user:bob", in: store) { _ in .answered(.null) }
        // The one slot is free for the other job while the first is held (its record executing).
        #expect(try await Self.finished(other.id, in: store).status == .completed)
        #expect(try store.jobs.job(id: held.id)?.status == .inProgress, "started, held")
        gate.release(held.id)
        #expect(try await Self.finished(held.id, in: store).status == .completed)
    }

    @Test func newJobIdsAreUniqueAndShapedAsBefore() {
        let ids = (0..<100).map { _ in JobRunner.newJobId() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.count == 33 && $0.hasPrefix("j") && $0.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase } })
    }

    static func job(_ store: some OutpostBackend) -> JobRecord {
        JobRecord(
            id: JobRunner.newJobId(), serviceName: "Demo", kind: .exportTiles, replicaId: "", replicaName: "",
            submittedAt: store.clock.milliseconds())
    }

    /// The job's record once it has finished (completed or failed), waiting up to ten seconds.
    static func finished(_ id: String, in store: some OutpostBackend) async throws -> JobRecord {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let job = try store.jobs.job(id: id), job.status.isTerminal { return job }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ArcGISError.internalError("job \(id) did not finish")
    }
}

/// A blocking pool of dedicated threads that counts its calls and can refuse the next one.
private final class TestExecutor: BlockingExecutor {
    struct Refusal: Error {}
    let calls = Mutex(0)
    let failNext = Mutex(false)

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        calls.withLock { $0 += 1 }
        if failNext.withLock({ failing in
            defer { failing = false }
            return failing
        }) {
            throw Refusal()
        }
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Blocks this (dedicated) thread until `stream` yields.
    func wait(for stream: AsyncStream<Void>) {
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            for await _ in stream { break }
            semaphore.signal()
        }
        semaphore.wait()
    }
}

/// What the work saw of its own record.
private final class StatusBox: Sendable {
    let status = Mutex<ServerJobStatus?>(nil)
}

/// Every message logged through its handlers.
private final class LogCollector: Sendable {
    let lines = Mutex<[String]>([])

    var handler: some LogHandler { Handler(collector: self) }

    struct Handler: LogHandler {
        let collector: LogCollector
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            collector.lines.withLock { $0.append(event.message.description) }
        }
    }
}
