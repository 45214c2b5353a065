import Foundation
import OutpostWire

/// The steps of a generate or sync job as a pure state machine, after postgres-nio's
/// connection state machine: events in (started, submitted, polled, bytes received, …),
/// actions out (submit, poll, download a range, finish, pause, fail). It does no I/O and reads
/// no clock: `JobEngine` performs the actions and reports what happened, so pause, resume,
/// retry, network loss and cancellation are tested without a server (`JobStateMachineTests`).
///
/// Every action can be repeated safely: a job resumed after a pause, a crash or a network
/// loss asks for its current step again.
struct JobStateMachine: Sendable, Equatable {
    private(set) var document: JobDocument
    /// The longest wait between status polls (the first come sooner: 25 ms, growing by half).
    var pollInterval: Duration = .seconds(1)
    /// Bytes per ranged download request (the granularity of pause and resume, and the most
    /// held in memory: 16 MiB keeps a 160 MB package to ten requests).
    var chunkSize = 16 << 20
    /// Sync edits larger than this go up as an uploaded file (`editsUploadID`).
    var inlineEditsLimit = 8 << 20
    private(set) var pauseRequested = false
    private(set) var cancelRequested = false

    init(document: JobDocument) { self.document = document }

    enum Action: Equatable, Sendable {
        /// generate: check the file is absent; sync: fix what is sent (`prepared`).
        case prepare
        /// Upload the sync's edits file (`editsUploaded`).
        case uploadEdits(file: String)
        /// Send the operation (`submitted`); `inlineEdits` is a file whose text goes as `edits`.
        case submit(operation: String, fields: [[String]], inlineEdits: String?)
        case poll(statusURL: String, after: Duration)
        /// Download bytes `offset…` of the result into the partial file (`received`).
        case download(resultURL: String, offset: Int, length: Int)
        /// generate: check and move the file into place; sync: apply the delta (`finished`).
        case finish
        /// Make the file send everything again to a server restored from an older backup.
        case resendAfterRestore
        /// Stop the action under way (a pause or a cancel was asked while it ran).
        case interrupt
        case pause
        case succeed
        case fail(ClientError)
        /// Nothing to do (an event that changes nothing).
        case none
    }

    enum Event: Equatable, Sendable {
        case start
        case pauseRequested
        case cancelRequested
        /// sync: the form, and the edits file with its size, netted and written once.
        case prepared(SyncPreparation?)
        case editsUploaded(id: String)
        case submitted(statusURL: String, note: String)
        case polled(ServerProgress)
        /// The partial file holds `bytes` (after a crash it may hold less than was counted).
        case partialFileHolds(bytes: Int, path: String)
        case received(bytes: Int, total: Int?)
        case finished(SyncResult?)
        case resendPrepared(note: String)
        /// The action under way stopped: by `interrupt`, or cut short.
        case interrupted
        case failed(ClientError)
    }

    /// A server job's state, whichever API reported it (a replica job's or a geoprocessing job's).
    enum ServerProgress: Equatable, Sendable {
        case running
        case completed(resultURL: String)
        case failed(ClientError)

        /// A replica job's status (`createReplica`, `synchronizeReplica`).
        init(_ status: ReplicaJobStatus) {
            switch status.status {
            case .completed, .completedWithErrors:
                self = status.resultURL.map { .completed(resultURL: $0) } ?? .failed(.invalidResponse("a completed job without resultUrl"))
            case .failed:
                let error = status.error
                self = .failed(.server(code: error?.code ?? 500, message: error?.message ?? "the server job failed", details: error?.details ?? []))
            default:
                self = .running
            }
        }
    }

    struct SyncPreparation: Equatable, Sendable {
        var fields: [[String]]
        var editsFile: String?
        var editsSize: Int
        var throughChangeId: Int64
        var uploadedLayers: [Int]
        var editsUploaded: Int
    }

    /// Progress ranges per step: generate (submit, poll, download, finish), sync likewise.
    private var ranges: (submitted: Double, polled: Double, downloaded: Double) {
        switch document.kind {
        case .generate: (0.05, 0.3, 0.95)
        case .exportTiles: (0.02, 0.7, 0.99)
        case .sync: (0.15, 0.4, 0.85)
        }
    }

    mutating func handle(_ event: Event, at date: Date) -> Action {
        switch event {
        case .start:
            guard document.status == .notStarted || document.status == .paused else { return .none }
            pauseRequested = false
            document.status = .started
            note(document.messages.isEmpty ? "started" : "resumed", date)
            return nextAction()
        case .pauseRequested:
            guard document.status == .started else { return .none }
            pauseRequested = true
            return .interrupt
        case .cancelRequested:
            switch document.status {
            case .succeeded, .failed: return .none
            case .notStarted, .paused:
                cancelRequested = true
                return fail(.cancelled, date)
            case .started:
                cancelRequested = true
                return .interrupt
            }
        case .interrupted:
            guard document.status == .started else { return .none }
            if cancelRequested { return fail(.cancelled, date) }
            guard pauseRequested else { return fail(.cancelled, date) }
            pauseRequested = false
            document.status = .paused
            note("paused at \(document.step.rawValue)", date)
            return .pause
        case .failed(let error):
            guard document.status == .started else { return .none }
            if cancelRequested { return fail(.cancelled, date) }
            // A server restored from an older backup: once per job, the file sends everything
            // again and the sync starts over.
            if document.kind == .sync, document.step == .submit, error.isReplicaAheadOfServer, document.resentAfterRestore != true {
                document.resentAfterRestore = true
                note("the server was restored from a backup older than this file's last sync", date)
                return .resendAfterRestore
            }
            return fail(error, date)
        default:
            guard document.status == .started else { return .none }
            // What happened is kept even when a pause or cancel came meanwhile (a submitted
            // job's status URL, bytes written): a resumed job does not do it twice.
            let next = advance(event, date)
            switch next {
            case .succeed, .fail: return next
            default:
                if cancelRequested { return fail(.cancelled, date) }
                if pauseRequested { return handle(.interrupted, at: date) }
                return next
            }
        }
    }

    /// What the current step asks for.
    func nextAction() -> Action {
        switch document.step {
        case .prepare: return .prepare
        case .submit:
            switch document.kind {
            case .generate:
                return .submit(operation: "createReplica", fields: document.generate?.formFields.map { [$0.0, $0.1] } ?? [], inlineEdits: nil)
            case .exportTiles:
                return .submit(operation: "exportTiles", fields: document.exportTiles?.formFields.map { [$0.0, $0.1] } ?? [], inlineEdits: nil)
            case .sync:
                break
            }
            var fields = document.syncFields ?? []
            guard let edits = document.editsFile else { return .submit(operation: "synchronizeReplica", fields: fields, inlineEdits: nil) }
            if let upload = document.editsUploadID {
                fields += [["editsUploadID", upload], ["editsUploadFormat", "json"]]
                return .submit(operation: "synchronizeReplica", fields: fields, inlineEdits: nil)
            }
            return (document.editsSize ?? 0) > inlineEditsLimit
                ? .uploadEdits(file: edits) : .submit(operation: "synchronizeReplica", fields: fields, inlineEdits: edits)
        case .poll:
            guard let url = document.statusURL else { return .fail(.invalidResponse("no statusUrl")) }
            // At once, then 25 ms growing by half each time up to `pollInterval`: a job done in
            // half a second is seen within about 0.2 s of it, a long one is asked once a second.
            let wait =
                document.polls == 0 ? Duration.zero : min(pollInterval, .microseconds(Int64(25_000 * pow(1.5, Double(min(document.polls, 20))))))
            return .poll(statusURL: url, after: wait)
        case .download:
            guard let url = document.resultURL else { return .fail(.invalidResponse("no result URL")) }
            return .download(resultURL: url, offset: document.receivedBytes, length: chunkSize)
        case .finish: return .finish
        case .done: return .succeed
        }
    }

    private mutating func advance(_ event: Event, _ date: Date) -> Action {
        switch (event, document.step) {
        case (.prepared(let preparation), .prepare):
            if let preparation {
                document.syncFields = preparation.fields
                document.editsFile = preparation.editsFile
                document.editsSize = preparation.editsSize
                document.throughChangeId = preparation.throughChangeId
                document.uploadedLayers = preparation.uploadedLayers
                document.editsUploaded = preparation.editsUploaded
                document.progress = 0.05
            }
            document.step = .submit
        case (.editsUploaded(let id), .submit):
            document.editsUploadID = id
        case (.submitted(let statusURL, let text), .submit):
            document.statusURL = statusURL
            document.step = .poll
            document.polls = 0
            document.progress = ranges.submitted
            note(text, date)
        case (.polled(let progress), .poll):
            switch progress {
            case .completed(let result):
                document.resultURL = result
                document.step = .download
                document.progress = ranges.polled
                if document.partialPath == nil {
                    document.partialPath = document.path + ".\(document.id).partial"
                    document.receivedBytes = 0
                }
                note("server job completed", date)
            case .failed(let error):
                return fail(error, date)
            case .running:
                document.polls += 1
                let (start, end) = (ranges.submitted, ranges.polled)
                document.progress = start + (end - start) * (1 - 1 / Double(document.polls + 1))
            }
        case (.partialFileHolds(let bytes, let path), .download):
            document.partialPath = path
            document.receivedBytes = min(bytes, document.receivedBytes)
        case (.received(let bytes, let total), .download):
            document.receivedBytes += bytes
            document.totalBytes = total ?? document.totalBytes
            if let total = document.totalBytes, total > 0 {
                let (start, end) = (ranges.polled, ranges.downloaded)
                document.progress = start + (end - start) * Double(document.receivedBytes) / Double(total)
            }
            let complete = bytes == 0 || total == nil || document.receivedBytes >= (document.totalBytes ?? 0)
            if complete {
                note("downloaded \(document.receivedBytes) bytes", date)
                document.step = .finish
            }
        case (.resendPrepared(let text), .submit):
            note(text, date)
            document.step = .prepare
            document.syncFields = nil
            document.editsFile = nil
            document.editsUploadID = nil
        case (.finished(let result), .finish):
            if let result {
                document.syncResult = result
                note("applied \(result.changesApplied) server changes", date)
            }
            document.partialPath = nil
            document.editsFile = nil
            document.step = .done
            document.status = .succeeded
            document.progress = 1
            note("succeeded", date)
            return .succeed
        default:
            return .none
        }
        return nextAction()
    }

    private mutating func fail(_ error: ClientError, _ date: Date) -> Action {
        document.status = .failed
        document.error = error
        note("failed: \(error.description)", date)
        return .fail(error)
    }

    private mutating func note(_ text: String, _ date: Date) {
        document.messages.append(JobMessage(date: date, text: text))
    }

    /// A restored job never resumes mid-action: a running job is kept as paused.
    var serialized: JobDocument {
        var copy = document
        if copy.status == .started { copy.status = .paused }
        return copy
    }
}
