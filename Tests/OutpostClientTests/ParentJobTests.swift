import Foundation
import Testing

@testable import OutpostClient

/// The core of jobs made of child jobs (`GenerateOfflineMapJob`, `OfflineMapSyncJob`) with
/// scripted children, no I/O: side by side, progress weighted, `continueOnErrors` on and off,
/// pause down to the children and resume from JSON, cancel (docs/client.md, "Jobs").
@Suite struct ParentJobTests {
    struct Document: ParentJobDocument {
        var id = "job"
        var status = JobStatus.notStarted
        var messages: [JobMessage] = []
        var error: ClientError?
        var children: [ChildJobRecord]
        var continueOnErrors: Bool
    }

    /// A child that does what the test says, when it says.
    final class ScriptedChild: ChildJob {
        let name: String
        let state = Locked<(status: JobStatus, fraction: Double, error: ClientError?)>((.notStarted, 0, nil))
        init(_ name: String) { self.name = name }

        var status: JobStatus { state.withLock { $0.status } }
        var fraction: Double { state.withLock { $0.fraction } }
        var pollInterval: Duration {
            get { .zero }
            set {}
        }
        func start() { state.withLock { $0.status = .started } }
        func pause() { state.withLock { $0.status = $0.status == .started ? .paused : $0.status } }
        func cancel() { state.withLock { ($0.status, $0.error) = (.failed, .cancelled) } }
        func toJSON() throws -> Data { Data("saved \(name) at \(fraction)".utf8) }
        func waitForEnd() async throws -> ChildOutput {
            if let error = state.withLock({ $0.error }) { throw error }
            return ChildOutput(syncResult: SyncResult(editsUploaded: 1, changesApplied: 0, changesDeferred: 0, objectIdsAssigned: 0, failedEdits: []))
        }
        func advance(to fraction: Double) { state.withLock { $0.fraction = fraction } }
        func succeed() { state.withLock { ($0.status, $0.fraction) = (.succeeded, 1) } }
        func fail(_ error: ClientError) { state.withLock { ($0.status, $0.error) = (.failed, error) } }
    }

    /// A parent of children `a`, `b`, `c`; `made` collects the children each run made, with the record they were made from.
    static func parent(continueOnErrors: Bool, cleaned: Locked<Int>) -> ParentJob<Document> {
        let children = ["a", "b", "c"].map { ChildJobRecord(kind: .sync, serviceURL: "http://h/\($0)", mapLayerIds: [], file: $0) }
        return ParentJob(document: Document(children: children, continueOnErrors: continueOnErrors), extraUnits: 0) { _ in
            cleaned.withLock { $0 += 1 }
        }
    }

    static func run(_ job: ParentJob<Document>, made: Locked<[String: (ScriptedChild, ChildJobRecord)]>) {
        job.start {
            let outcome = await job.runChildren(
                make: { _, record in
                    let child = ScriptedChild(record.file)
                    made.withLock { $0[record.file] = (child, record) }
                    return child
                }, describe: { "child \($0.file)" })
            switch outcome {
            case .stopped: job.stopped()
            case .failed(let error): job.finish(.failure(error))
            case .finished: job.finish(.success(()))
            }
        }
    }

    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(2)) }
        #expect(condition())
    }

    @Test func childrenRunSideBySideWithProgressWeightedAndTheirOutputsKept() async throws {
        let cleaned = Locked(0)
        let job = Self.parent(continueOnErrors: false, cleaned: cleaned)
        let made = Locked<[String: (ScriptedChild, ChildJobRecord)]>([:])
        let statuses = job.statuses
        let seen = Task { await Array(statuses) }
        Self.run(job, made: made)
        try await Self.until { made.withLock { $0.count } == 3 && job.document.children.allSatisfy { $0.state == .running } }
        let children = made.withLock { $0.mapValues(\.0) }
        children["a"]!.advance(to: 0.5)
        children["b"]!.succeed()
        try await Self.until { job.progress.completedUnitCount == 1500 }
        children["a"]!.succeed()
        children["c"]!.succeed()
        let document = try await job.finalDocument()
        #expect(document.children.allSatisfy { $0.state == .done && $0.output?.syncResult?.editsUploaded == 1 })
        #expect(job.progress.fractionCompleted == 1 && cleaned.withLock { $0 } == 0)
        #expect(await seen.value == [.notStarted, .started, .succeeded])
        #expect(document.messages.map(\.text).filter { $0.hasPrefix("child") }.sorted() == ["child a", "child b", "child c"])
    }

    @Test func aFailureStopsTheOthersUnlessErrorsAreContinuedPast() async throws {
        for continuing in [false, true] {
            let cleaned = Locked(0)
            let job = Self.parent(continueOnErrors: continuing, cleaned: cleaned)
            let made = Locked<[String: (ScriptedChild, ChildJobRecord)]>([:])
            Self.run(job, made: made)
            try await Self.until { made.withLock { $0.count } == 3 }
            let children = made.withLock { $0.mapValues(\.0) }
            children["b"]!.fail(.server(code: 500, message: "b broke", details: []))
            if continuing {
                children["a"]!.succeed()
                children["c"]!.succeed()
                let document = try await job.finalDocument()
                #expect(
                    document.children.map(\.state) == [.done, .failed, .done] && document.children[1].error?.description.contains("b broke") == true)
                #expect(cleaned.withLock { $0 } == 0)
            } else {
                await #expect(throws: ClientError.self) { try await job.finalDocument() }
                #expect(children["a"]!.status == .failed && children["c"]!.status == .failed, "the others cancelled")
                #expect(job.document.error?.description.contains("b broke") == true && cleaned.withLock { $0 } == 1, "what it wrote removed")
            }
        }
    }

    @Test func aPauseSavesEachRunningChildAndTheJobResumesFromJSON() async throws {
        let cleaned = Locked(0)
        let job = Self.parent(continueOnErrors: false, cleaned: cleaned)
        let made = Locked<[String: (ScriptedChild, ChildJobRecord)]>([:])
        Self.run(job, made: made)
        try await Self.until { made.withLock { $0.count } == 3 }
        let children = made.withLock { $0.mapValues(\.0) }
        children["a"]!.succeed()
        children["b"]!.advance(to: 0.25)
        try await Self.until { job.document.children[0].state == .done }
        job.pause()
        try await Self.until { job.document.status == .paused }
        let saved = try job.toJSON()

        let restored = try JSONDecoder().decode(Document.self, from: saved)
        #expect(restored.status == .paused && restored.children.map(\.state) == [.done, .running, .running])
        #expect(restored.children[1].saved == Data("saved b at 0.25".utf8))
        let again = ParentJob<Document>(document: restored, extraUnits: 0) { _ in }
        #expect(again.progress.completedUnitCount == 1000, "the child done counts at once")
        let remade = Locked<[String: (ScriptedChild, ChildJobRecord)]>([:])
        Self.run(again, made: remade)
        try await Self.until { remade.withLock { $0.count } == 2 }
        #expect(remade.withLock { $0["a"] } == nil, "a done child is not made again")
        #expect(remade.withLock { $0["b"]?.1.saved } == Data("saved b at 0.25".utf8), "each child resumes from its own state")
        for child in remade.withLock({ $0.values.map(\.0) }) { child.succeed() }
        #expect(try await again.finalDocument().messages.contains { $0.text == "resumed" })
    }

    @Test func cancellingEndsTheJobRunningOrPausedAndRemovesWhatItWrote() async throws {
        let cleaned = Locked(0)
        let running = Self.parent(continueOnErrors: true, cleaned: cleaned)
        let made = Locked<[String: (ScriptedChild, ChildJobRecord)]>([:])
        Self.run(running, made: made)
        try await Self.until { made.withLock { $0.count } == 3 }
        running.cancel()
        await #expect(throws: ClientError.cancelled) { try await running.finalDocument() }
        #expect(made.withLock { $0.values.allSatisfy { $0.0.status == .failed } } && cleaned.withLock { $0 } == 1)

        let paused = Self.parent(continueOnErrors: true, cleaned: cleaned)
        let pausedChildren = Locked<[String: (ScriptedChild, ChildJobRecord)]>([:])
        Self.run(paused, made: pausedChildren)
        try await Self.until { pausedChildren.withLock { $0.count } == 3 }
        paused.pause()
        try await Self.until { paused.document.status == .paused }
        paused.cancel()
        #expect(paused.document.status == .failed && paused.document.error == .cancelled && cleaned.withLock { $0 } == 2)

        let unstarted = Self.parent(continueOnErrors: true, cleaned: cleaned)
        unstarted.cancel()
        #expect(unstarted.document.status == .failed && cleaned.withLock { $0 } == 3)
    }
}
