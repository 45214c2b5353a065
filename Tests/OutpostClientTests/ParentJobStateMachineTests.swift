import Foundation
import Testing

@testable import OutpostClient

/// The steps of a job made of child jobs with no I/O (docs/client.md, "Jobs"): each test
/// feeds events and checks the actions asked for — children started side by side, progress
/// weighted, a failure with and without `continueOnErrors`, pause and resume, cancel at each
/// stage, events that change nothing.
@Suite struct ParentJobStateMachineTests {
    typealias Machine = ParentJobStateMachine<ParentJobTests.Document>
    static let date = Date(timeIntervalSince1970: 1_795_000_000)
    static let broke = ClientError.server(code: 500, message: "b broke", details: [])
    static let synced = ChildOutput(
        syncResult: SyncResult(editsUploaded: 1, changesApplied: 2, changesDeferred: 0, objectIdsAssigned: 0, failedEdits: []))

    /// A job of children `a`, `b`, `c` and 100 units of its own.
    static func machine(continueOnErrors: Bool = false) -> Machine {
        let children = ["a", "b", "c"].map { ChildJobRecord(kind: .sync, serviceURL: "http://h/\($0)", mapLayerIds: [], file: $0) }
        return Machine(document: .init(children: children, continueOnErrors: continueOnErrors), extraUnits: 100)
    }

    static let made: [Int: String] = [0: "child a", 1: "child b", 2: "child c"]

    /// Feeds events in order; returns the actions.
    static func feed(_ machine: inout Machine, _ events: [Machine.Event]) -> [Machine.Action] {
        events.map { machine.handle($0, at: date) }
    }

    @Test func childrenStartSideBySideProgressIsWeightedAndTheJobEndsAfterThem() {
        var machine = Self.machine()
        #expect(machine.totalUnits == 3100 && machine.completedUnits == 0)
        #expect(Self.feed(&machine, [.start, .childrenMade(Self.made)]) == [.run, .startChildren([0, 1, 2])])
        #expect(machine.document.children.allSatisfy { $0.state == .running })
        #expect(Self.feed(&machine, [.childProgressed(0, fraction: 0.5), .childSucceeded(1, Self.synced)]) == [.none, .none])
        #expect(machine.completedUnits == 1500)
        #expect(Self.feed(&machine, [.childSucceeded(0, Self.synced)]) == [.none], "c still runs")
        #expect(Self.feed(&machine, [.childSucceeded(2, Self.synced)]) == [.childrenEnded(.finished)])
        #expect(machine.document.children.allSatisfy { $0.state == .done && $0.output == Self.synced })
        #expect(machine.completedUnits == 3000 && machine.document.status == .started, "the job's own end is still to come")
        #expect(Self.feed(&machine, [.jobSucceeded]) == [.succeed])
        #expect(machine.completedUnits == 3100)
        #expect(machine.document.messages.map(\.text) == ["started", "child a", "child b", "child c", "succeeded"])
        #expect(Self.feed(&machine, [.start, .cancelRequested, .jobFailed(Self.broke)]) == [.none, .none, .none], "succeeded is final")
    }

    @Test func aFailureCancelsTheOthersWithoutContinueOnErrors() {
        var machine = Self.machine()
        _ = Self.feed(&machine, [.start, .childrenMade(Self.made)])
        #expect(Self.feed(&machine, [.childFailed(1, Self.broke)]) == [.cancelChildren([0, 2])])
        // The others end as the cancel finds them: one had succeeded, one fails cancelled.
        #expect(Self.feed(&machine, [.childSucceeded(0, Self.synced), .childFailed(2, .cancelled)]) == [.none, .childrenEnded(.failed(Self.broke))])
        #expect(machine.document.children.map(\.state) == [.done, .failed, .failed])
        #expect(machine.document.messages.contains { $0.text == "b failed: \(Self.broke.description)" })
        #expect(Self.feed(&machine, [.jobFailed(Self.broke)]) == [.fail(Self.broke)])
        #expect(machine.document.status == .failed && machine.document.error == Self.broke)
    }

    @Test func aFailureIsRecordedAndTheOthersGoOnWithContinueOnErrors() {
        var machine = Self.machine(continueOnErrors: true)
        _ = Self.feed(&machine, [.start, .childrenMade(Self.made)])
        let actions = Self.feed(&machine, [.childFailed(1, Self.broke), .childSucceeded(0, Self.synced), .childSucceeded(2, Self.synced)])
        #expect(actions == [.none, .none, .childrenEnded(.finished)])
        #expect(machine.document.children.map(\.state) == [.done, .failed, .done] && machine.document.children[1].error == Self.broke)
        #expect(machine.completedUnits == 3000, "a failed child counts as ended")
    }

    @Test func aPauseSavesEachRunningChildAndTheResumeMakesOnlyThose() throws {
        var machine = Self.machine()
        _ = Self.feed(&machine, [.start, .childrenMade(Self.made), .childSucceeded(0, Self.synced), .childProgressed(1, fraction: 0.25)])
        #expect(Self.feed(&machine, [.pauseRequested]) == [.pauseChildren([1, 2])])
        let saved = Data("b at 0.25".utf8)
        #expect(Self.feed(&machine, [.childPaused(1, saved: saved), .childPaused(2, saved: nil)]) == [.none, .childrenEnded(.stopped)])
        #expect(Self.feed(&machine, [.stopped]) == [.pause])
        #expect(machine.document.status == .paused && machine.document.children.map(\.state) == [.done, .running, .running])
        #expect(machine.document.children[1].saved == saved && machine.completedUnits == 1250)

        let json = try JSONEncoder().encode(machine.serialized)
        var restored = Machine(document: try JSONDecoder().decode(ParentJobTests.Document.self, from: json), extraUnits: 100)
        #expect(restored.pendingChildren == [1, 2] && restored.completedUnits == 1000, "the child done counts at once")
        #expect(Self.feed(&restored, [.start, .childrenMade([1: "child b", 2: "child c"])]) == [.run, .startChildren([1, 2])])
        #expect(restored.document.messages.last?.text == "child c" && restored.document.messages.contains { $0.text == "resumed" })
    }

    @Test func aRunningJobIsSavedAsPausedAndAPauseOfAnIdleJobDoesNothing() {
        var machine = Self.machine()
        #expect(Self.feed(&machine, [.pauseRequested]) == [.none])
        _ = Self.feed(&machine, [.start])
        #expect(machine.serialized.status == .paused && machine.document.status == .started)
    }

    @Test func cancellingEndsAnIdleJobAtOnceAndARunningOneOnceItsChildrenStop() {
        let pausing: [Machine.Event] = [
            .start, .childrenMade(Self.made), .pauseRequested, .childPaused(0, saved: nil), .childPaused(1, saved: nil),
            .childPaused(2, saved: nil), .stopped,
        ]
        for idle in [[], pausing] {
            var machine = Self.machine()
            _ = Self.feed(&machine, idle)
            #expect(machine.document.status == (idle.isEmpty ? .notStarted : .paused))
            #expect(Self.feed(&machine, [.cancelRequested]) == [.fail(.cancelled)])
            #expect(machine.document.status == .failed && machine.document.error == .cancelled)
        }
        var running = Self.machine()
        _ = Self.feed(&running, [.start, .childrenMade(Self.made), .childSucceeded(0, Self.synced)])
        #expect(Self.feed(&running, [.cancelRequested]) == [.cancelChildren([1, 2])])
        // Children failing with the job are not recorded as failed children.
        #expect(Self.feed(&running, [.childFailed(1, .cancelled), .childFailed(2, .cancelled)]) == [.none, .childrenEnded(.failed(.cancelled))])
        #expect(running.document.children.map(\.state) == [.done, .running, .running])
        #expect(Self.feed(&running, [.jobFailed(.cancelled)]) == [.fail(.cancelled)])
    }

    @Test func aPauseOrCancelAskedWhileTheChildrenWereMadeStartsNone() {
        var paused = Self.machine()
        #expect(
            Self.feed(&paused, [.start, .pauseRequested, .childrenMade(Self.made), .stopped]) == [
                .run, .pauseChildren([]), .childrenEnded(.stopped), .pause,
            ])
        #expect(paused.document.children.allSatisfy { $0.state == .pending } && paused.running.isEmpty)
        var cancelled = Self.machine()
        let actions = Self.feed(&cancelled, [.start, .cancelRequested, .childrenMade(Self.made), .stopped])
        #expect(actions == [.run, .cancelChildren([]), .childrenEnded(.stopped), .fail(.cancelled)])
    }

    @Test func aChildThatCannotBeMadeFailsTheRunAndAJobWithNothingLeftFinishes() {
        var machine = Self.machine()
        #expect(Self.feed(&machine, [.start, .childrenNotMade(Self.broke)]) == [.run, .childrenEnded(.failed(Self.broke))])
        #expect(machine.document.children.allSatisfy { $0.state == .pending }, "the document unchanged")
        var done = Self.machine()
        done.amend { document in
            for index in document.children.indices { document.children[index].state = .done }
        }
        #expect(done.pendingChildren.isEmpty)
        #expect(Self.feed(&done, [.start, .childrenMade([:])]) == [.run, .childrenEnded(.finished)])
    }

    @Test func eventsForChildrenNotRunningChangeNothing() {
        var machine = Self.machine()
        _ = Self.feed(&machine, [.start, .childrenMade(Self.made), .childSucceeded(0, Self.synced)])
        let before = machine.document.children
        let actions = Self.feed(
            &machine,
            [.childSucceeded(0, Self.synced), .childFailed(0, Self.broke), .childPaused(0, saved: Data()), .childProgressed(0, fraction: 0.1)])
        #expect(actions == [.none, .none, .none, .none])
        #expect(machine.document.children == before && machine.completedUnits == 1000)
    }
}
