import Foundation
import OutpostWire
import Testing

@testable import OutpostClient

/// The job's steps with no I/O (docs/client.md, "Jobs"): each test feeds events and checks
/// the actions asked for — the path of a generate and of a sync, pause and resume, a crash
/// mid-download, cancel, a failed server job, large edits uploaded, the polling back-off.
@Suite struct JobStateMachineTests {
    static let date = Date(timeIntervalSince1970: 1_795_000_000)

    static func generate() -> JobStateMachine {
        var machine = JobStateMachine(
            document: JobDocument(
                id: "j1", kind: .generate, serviceURL: "http://h/arcgis/rest/services/Demo/FeatureServer", path: "/d/field.gpkg",
                generate: GenerateGeodatabaseParameters(extent: nil, layerOptions: [GenerateLayerOption(layerId: 2)])))
        machine.chunkSize = 4
        machine.pollInterval = .milliseconds(100)
        return machine
    }

    static func status(_ status: ServerJobStatus, result: String? = nil) -> JobStateMachine.ServerProgress {
        .init(replica(status, result: result))
    }

    static func replica(_ status: ServerJobStatus, result: String? = nil) -> ReplicaJobStatus {
        ReplicaJobStatus(
            replicaName: "r", replicaId: "{R}", transportType: .url, responseType: .data, submissionTime: 0, lastUpdatedTime: 0, status: status,
            resultURL: result)
    }

    /// Feeds events in order; returns the actions.
    static func feed(_ machine: inout JobStateMachine, _ events: [JobStateMachine.Event]) -> [JobStateMachine.Action] {
        events.map { machine.handle($0, at: date) }
    }

    static let submittedThenCompleted: [JobStateMachine.Event] = [
        .start, .prepared(nil), .submitted(statusURL: "http://h/s", note: "requested"), .polled(status(.inProgress)),
        .polled(status(.completed, result: "http://h/r")),
    ]

    @Test func aGenerateJobSubmitsPollsDownloadsInRangesAndFinishes() {
        var machine = Self.generate()
        var actions = Self.feed(&machine, Self.submittedThenCompleted)
        guard case .submit("createReplica", _, nil) = actions[1] else { return #expect(Bool(false), "\(actions[1])") }
        #expect(actions[0] == .prepare)
        #expect(actions[2] == .poll(statusURL: "http://h/s", after: .zero), "the first poll at once")
        #expect(actions[3] == .poll(statusURL: "http://h/s", after: .microseconds(37_500)))
        #expect(actions[4] == .download(resultURL: "http://h/r", offset: 0, length: 4))
        actions = Self.feed(&machine, [.received(bytes: 4, total: 10), .received(bytes: 4, total: 10), .received(bytes: 2, total: 10)])
        #expect(
            actions == [.download(resultURL: "http://h/r", offset: 4, length: 4), .download(resultURL: "http://h/r", offset: 8, length: 4), .finish])
        #expect(machine.document.progress == 0.95)
        #expect(Self.feed(&machine, [.finished(nil)]) == [.succeed])
        #expect(machine.document.status == .succeeded && machine.document.progress == 1 && machine.document.partialPath == nil)
        #expect(machine.document.messages.map(\.text) == ["started", "requested", "server job completed", "downloaded 10 bytes", "succeeded"])
        #expect(Self.feed(&machine, [.start, .cancelRequested, .received(bytes: 1, total: 1)]) == [.none, .none, .none], "finished is final")
    }

    @Test func aPauseStopsAfterTheActionUnderWayAndResumesWhereItStopped() throws {
        var machine = Self.generate()
        _ = Self.feed(&machine, Self.submittedThenCompleted + [.received(bytes: 4, total: 10)])
        #expect(Self.feed(&machine, [.pauseRequested]) == [.interrupt])
        // The range under way arrived before the interruption took: it is counted, not lost.
        #expect(Self.feed(&machine, [.received(bytes: 4, total: 10)]) == [.pause])
        #expect(machine.document.status == .paused && machine.document.receivedBytes == 8)
        // Serialized and restored (another process): resumed from byte 8.
        let json = try JSONEncoder().encode(machine.serialized)
        var restored = JobStateMachine(document: try JSONDecoder().decode(JobDocument.self, from: json))
        restored.chunkSize = 4
        #expect(Self.feed(&restored, [.start]) == [.download(resultURL: "http://h/r", offset: 8, length: 4)])
        #expect(restored.document.messages.last?.text == "resumed")
    }

    @Test func aRunningJobIsSavedAsPausedAndAPauseCutShortIsAPause() throws {
        var machine = Self.generate()
        _ = Self.feed(&machine, [.start, .prepared(nil)])
        #expect(machine.serialized.status == .paused && machine.document.status == .started)
        #expect(Self.feed(&machine, [.pauseRequested, .interrupted]) == [.interrupt, .pause])
        #expect(machine.document.messages.last?.text == "paused at submit")
    }

    @Test func aCrashMidDownloadResumesFromWhatTheFileHolds() {
        var machine = Self.generate()
        _ = Self.feed(&machine, Self.submittedThenCompleted + [.received(bytes: 4, total: 10), .received(bytes: 4, total: 10)])
        // The file holds 5 bytes though 8 were counted (the process died before they reached the disk).
        let action = machine.handle(.partialFileHolds(bytes: 5, path: "/d/field.gpkg.j1.partial"), at: Self.date)
        #expect(action == .download(resultURL: "http://h/r", offset: 5, length: 4))
    }

    @Test func cancellingEndsTheJobForGoodBeforeOrWhileItRuns() {
        var unstarted = Self.generate()
        #expect(Self.feed(&unstarted, [.cancelRequested, .start]) == [.fail(.cancelled), .none])
        #expect(unstarted.document.status == .failed && unstarted.document.error == .cancelled)

        var running = Self.generate()
        _ = Self.feed(&running, [.start, .prepared(nil)])
        #expect(Self.feed(&running, [.cancelRequested, .submitted(statusURL: "http://h/s", note: "")]) == [.interrupt, .fail(.cancelled)])
        var paused = Self.generate()
        _ = Self.feed(&paused, [.start, .pauseRequested, .interrupted])
        #expect(Self.feed(&paused, [.cancelRequested]) == [.fail(.cancelled)])
    }

    @Test func aFailedServerJobOrAnErrorFailsTheJobWithIt() {
        var machine = Self.generate()
        _ = Self.feed(&machine, Array(Self.submittedThenCompleted.prefix(3)))
        var failed = Self.replica(.failed)
        failed.error = ArcGISError(kind: .init(code: 400), message: "Unable to create replica.")
        #expect(Self.feed(&machine, [.polled(.init(failed))]) == [.fail(.server(code: 400, message: "Unable to create replica.", details: []))])
        var other = Self.generate()
        #expect(Self.feed(&other, [.start, .failed(.network("gone"))]) == [.prepare, .fail(.network("gone"))])
        #expect(other.document.messages.last?.text == "failed: network: gone")
    }

    @Test func pollsWaitLongerUpToThePollInterval() {
        var machine = Self.generate()
        _ = Self.feed(&machine, Array(Self.submittedThenCompleted.prefix(3)))
        let waits = Self.feed(&machine, Array(repeating: .polled(Self.status(.inProgress)), count: 4)).map { action -> Duration? in
            if case .poll(_, let wait) = action { return wait }
            return nil
        }
        #expect(waits == [.microseconds(37_500), .microseconds(56_250), .microseconds(84_375), .milliseconds(100)])
        #expect(machine.document.progress > 0.05 && machine.document.progress < 0.3)
    }

    @Test func syncEditsGoInTheFormOrAsAnUploadPastTheLimit() {
        func sync(editsSize: Int) -> JobStateMachine {
            var machine = JobStateMachine(
                document: JobDocument(id: "s1", kind: .sync, serviceURL: "http://h/f", path: "/d/field.gpkg", sync: SyncGeodatabaseParameters()))
            machine.inlineEditsLimit = 100
            _ = machine.handle(.start, at: Self.date)
            return machine
        }
        let preparation = JobStateMachine.SyncPreparation(
            fields: [["replicaID", "{R}"]], editsFile: "/d/e.json", editsSize: 50, throughChangeId: 7, uploadedLayers: [2], editsUploaded: 3)
        var small = sync(editsSize: 50)
        #expect(
            small.handle(.prepared(preparation), at: Self.date)
                == .submit(operation: "synchronizeReplica", fields: [["replicaID", "{R}"]], inlineEdits: "/d/e.json"))
        var large = sync(editsSize: 500)
        var big = preparation
        big.editsSize = 500
        #expect(large.handle(.prepared(big), at: Self.date) == .uploadEdits(file: "/d/e.json"))
        #expect(
            large.handle(.editsUploaded(id: "i9"), at: Self.date)
                == .submit(
                    operation: "synchronizeReplica", fields: [["replicaID", "{R}"], ["editsUploadID", "i9"], ["editsUploadFormat", "json"]],
                    inlineEdits: nil))
        var none = sync(editsSize: 0)
        var nothing = preparation
        nothing.editsFile = nil
        #expect(
            none.handle(.prepared(nothing), at: Self.date)
                == .submit(operation: "synchronizeReplica", fields: [["replicaID", "{R}"]], inlineEdits: nil))
    }

    @Test func aSyncMeetingARestoredServerSendsEverythingAgainOnceThenStartsOver() {
        var machine = JobStateMachine(
            document: JobDocument(id: "s2", kind: .sync, serviceURL: "http://h/f", path: "/d/field.gpkg", sync: SyncGeodatabaseParameters()))
        let preparation = JobStateMachine.SyncPreparation(
            fields: [["replicaID", "{R}"]], editsFile: "/d/e.json", editsSize: 50, throughChangeId: 7, uploadedLayers: [2], editsUploaded: 3)
        let ahead = ClientError.server(code: 409, message: ArcGISError.replicaAheadMessage, details: ["restored"])
        _ = Self.feed(&machine, [.start, .prepared(preparation)])
        #expect(machine.handle(.failed(ahead), at: Self.date) == .resendAfterRestore)
        #expect(machine.document.resentAfterRestore == true)
        // Prepared afresh: the file now logs everything it holds.
        #expect(machine.handle(.resendPrepared(note: "sending all 12 again"), at: Self.date) == .prepare)
        #expect(machine.document.step == .prepare && machine.document.editsFile == nil && machine.document.syncFields == nil)
        #expect(
            machine.handle(.prepared(preparation), at: Self.date)
                == .submit(operation: "synchronizeReplica", fields: [["replicaID", "{R}"]], inlineEdits: "/d/e.json"))
        // Once per job: a second refusal fails it, typed.
        #expect(machine.handle(.failed(ahead), at: Self.date) == .fail(ahead))
        #expect(machine.document.messages.map(\.text).contains("sending all 12 again"))
        // Other failures, and other kinds of job, fail as before.
        var other = JobStateMachine(
            document: JobDocument(id: "s3", kind: .sync, serviceURL: "http://h/f", path: "/d/field.gpkg", sync: SyncGeodatabaseParameters()))
        _ = Self.feed(&other, [.start, .prepared(preparation)])
        let notFound = ClientError.server(code: 404, message: "Replica not found.", details: [])
        #expect(other.handle(.failed(notFound), at: Self.date) == .fail(notFound))
    }
}
