import Foundation
import OutpostGeoPackage
import OutpostWire

/// A long operation of the sync task — generating a geodatabase or syncing one — that
/// reports status, progress and messages, can be paused, resumed and cancelled, and can be
/// serialized to JSON and resumed in another process.
///
/// Every step can be repeated safely, so a job resumed after a pause, a crash or a network
/// loss simply runs its current step again: polling and ranged downloads continue where they
/// were, and a sync request is re-sent with the same bytes, which the server answers from its
/// receipt. The geodatabase is changed in one transaction at the very end, or not at all; a
/// cancelled job fails with `ClientError.cancelled` and leaves it as it was.
public actor GeodatabaseJob {
    enum Kind: String, Codable { case generate, sync }
    enum Step: String, Codable { case prepare, submit, poll, download, finish, done }

    struct Document: Codable {
        var format = 1
        var id: String
        var kind: Kind
        var serviceURL: String
        var status: JobStatus = .notStarted
        var progress: Double = 0
        var messages: [JobMessage] = []
        var step: Step = .prepare
        var error: ClientError?
        /// generate: the file to create; sync: the geodatabase.
        var path: String
        var generate: GenerateGeodatabaseParameters?
        var sync: SyncGeodatabaseParameters?
        var statusURL: String?
        var resultURL: String?
        var partialPath: String?
        var receivedBytes = 0
        var totalBytes: Int?
        /// The `synchronizeReplica` form, fixed when the job prepared it: a retry sends the same.
        var syncFields: [[String]]?
        var editsFile: String?
        var editsUploadID: String?
        var throughChangeId: Int64 = 0
        var uploadedLayers: [Int] = []
        var editsUploaded = 0
        var syncResult: SyncResult?
    }

    var document: Document
    let connection: ServiceConnection
    var geodatabase: Geodatabase?
    var task: Task<Void, Never>?
    var pauseRequested = false
    var cancelRequested = false
    var holdsSync = false
    var waiters: [CheckedContinuation<JobOutcome, any Error>] = []

    /// The longest wait between polls of the server's job status (the first polls come
    /// sooner: 50 ms, doubling).
    public var pollInterval: Duration = .seconds(1)
    /// Bytes per ranged download request (the granularity of pause and resume).
    public var chunkSize = 4 << 20
    /// Sync edits larger than this go up as an uploaded file (`editsUploadID`) rather than a
    /// form field.
    public var inlineEditsLimit = 8 << 20

    public nonisolated let id: String

    init(document: Document, connection: ServiceConnection, geodatabase: Geodatabase? = nil) {
        self.document = document
        self.connection = connection
        self.geodatabase = geodatabase
        id = document.id
    }

    public var status: JobStatus { document.status }
    /// 0…1.
    public var progress: Double { document.progress }
    public var messages: [JobMessage] { document.messages }
    public var error: ClientError? { document.error }

    public func setPollInterval(_ interval: Duration) { pollInterval = interval }
    public func setChunkSize(_ bytes: Int) { chunkSize = max(1, bytes) }
    public func setInlineEditsLimit(_ bytes: Int) { inlineEditsLimit = bytes }

    // MARK: Control

    /// Starts the job, or resumes it when paused. Does nothing once it has finished.
    public func start() {
        guard document.status == .notStarted || document.status == .paused, task == nil else { return }
        pauseRequested = false
        document.status = .started
        note(document.messages.isEmpty ? "started" : "resumed")
        task = Task { await self.run() }
    }

    public func resume() { start() }

    /// Stops at the next safe point; `start`/`resume` continue from there.
    public func pause() {
        guard document.status == .started else { return }
        pauseRequested = true
        task?.cancel()
    }

    /// Stops the job for good: it fails with `ClientError.cancelled`.
    public func cancel() {
        switch document.status {
        case .succeeded, .failed: return
        case .notStarted, .paused:
            cancelRequested = true
            finish(.failure(.cancelled))
        case .started:
            cancelRequested = true
            task?.cancel()
        }
    }

    /// Waits for the job to finish: its outcome, or its error.
    public func result() async throws -> JobOutcome {
        if let outcome = try finishedOutcome() { return outcome }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    // MARK: JSON

    /// The job's state as JSON (no credentials): resume it with `fromJSON` in any process.
    public func toJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var copy = document
        // A running job is serialized as paused: whoever restores it resumes it.
        if copy.status == .started { copy.status = .paused }
        return try encoder.encode(copy)
    }

    /// A job restored from `toJSON`, ready to `start`; `token` re-binds the credential.
    public static func fromJSON(_ data: Data, token: String? = nil, retryWindow: Duration = .seconds(600)) throws -> GeodatabaseJob {
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: data) } catch {
            throw ClientError.invalidResponse("not a serialized job: \(error)")
        }
        guard let url = URL(string: document.serviceURL) else { throw ClientError.invalidResponse("bad service URL \(document.serviceURL)") }
        return GeodatabaseJob(document: document, connection: ServiceConnection(serviceURL: url, token: token, retryWindow: retryWindow))
    }

    // MARK: Running

    func run() async {
        do {
            while document.step != .done {
                try Task.checkCancellation()
                switch document.kind {
                case .generate: try await generateStep()
                case .sync: try await syncStep()
                }
            }
            releaseSync()
            switch document.kind {
            case .generate: finish(.success(.geodatabase(path: document.path)))
            case .sync:
                finish(
                    .success(
                        .sync(
                            document.syncResult
                                ?? SyncResult(
                                    editsUploaded: 0, changesApplied: 0, changesDeferred: 0,
                                    objectIdsAssigned: 0, failedEdits: []))))
            }
        } catch {
            releaseSync()
            task = nil
            if cancelRequested {
                finish(.failure(.cancelled))
            } else if pauseRequested {
                pauseRequested = false
                document.status = .paused
                note("paused at \(document.step.rawValue)")
            } else if error is CancellationError {
                finish(.failure(.cancelled))
            } else {
                finish(.failure(error as? ClientError ?? .network(String(describing: error))))
            }
        }
    }

    func finish(_ outcome: Result<JobOutcome, ClientError>) {
        task = nil
        switch outcome {
        case .success:
            document.status = .succeeded
            document.progress = 1
            note("succeeded")
        case .failure(let error):
            document.status = .failed
            document.error = error
            note("failed: \(error.description)")
            removeTemporaryFiles()
        }
        let waiting = waiters
        waiters = []
        for waiter in waiting {
            switch outcome {
            case .success(let value): waiter.resume(returning: value)
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
    }

    func finishedOutcome() throws -> JobOutcome? {
        switch document.status {
        case .succeeded:
            switch document.kind {
            case .generate: return .geodatabase(path: document.path)
            case .sync: return .sync(document.syncResult!)
            }
        case .failed: throw document.error ?? ClientError.cancelled
        default: return nil
        }
    }

    func note(_ text: String) {
        document.messages.append(JobMessage(date: Date(), text: text))
    }

    func removeTemporaryFiles() {
        for path in [document.partialPath, document.editsFile].compactMap({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    // MARK: Shared steps

    /// Submits an asynchronous server operation and moves the job on to polling its status.
    func submit(_ operation: String, _ fields: [(String, String)], progress: Double) async throws -> ReplicaJobSubmission {
        let answer = try await connection.postForm(connection.url(operation), fields)
        guard let submission = ReplicaJobSubmission(json: answer) else { throw ClientError.invalidResponse("\(operation) answered no statusUrl") }
        document.statusURL = submission.statusURL
        document.step = .poll
        document.progress = progress
        return submission
    }

    /// Polls the server job until it completes; records its result URL.
    func poll(from start: Double, to end: Double) async throws {
        guard let statusURL = document.statusURL.flatMap(URL.init(string:)) else { throw ClientError.invalidResponse("no statusUrl") }
        var polls = 0
        while true {
            let answer = try await connection.getJSON(statusURL)
            guard let status = ReplicaJobStatus(json: answer) else {
                throw ClientError.invalidResponse("not a job status: \(answer.jsonText.prefix(200))")
            }
            switch status.status {
            case .completed:
                guard let result = status.resultURL else {
                    throw ClientError.invalidResponse("a completed job without resultUrl")
                }
                document.resultURL = result
                document.step = .download
                document.progress = end
                note("server job completed")
                return
            case .failed:
                let error = status.error
                throw ClientError.server(code: error?.code ?? 500, message: error?.message ?? "the server job failed", details: error?.details ?? [])
            default:
                polls += 1
                document.progress = start + (end - start) * (1 - 1 / Double(polls + 1))
                // Quick first polls (small jobs finish in well under a second), then every
                // `pollInterval`.
                try await Task.sleep(for: min(pollInterval, .milliseconds(25) * (1 << min(polls, 10))))
            }
        }
    }

    /// Downloads the result file in ranged chunks, appending to the partial file.
    func download(from start: Double, to end: Double) async throws {
        guard let resultURL = document.resultURL.flatMap(URL.init(string:)) else { throw ClientError.invalidResponse("no result URL") }
        if document.partialPath == nil {
            document.partialPath = document.path + ".\(id).partial"
            document.receivedBytes = 0
        }
        let partial = document.partialPath!
        if !FileManager.default.fileExists(atPath: partial) {
            FileManager.default.createFile(atPath: partial, contents: nil)
            document.receivedBytes = 0
        }
        // What is on disk is what was received (a crash may have cut the bookkeeping short).
        let onDisk = ((try? FileManager.default.attributesOfItem(atPath: partial))?[.size] as? NSNumber)?.intValue ?? 0
        if onDisk != document.receivedBytes {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            try handle.truncate(atOffset: UInt64(min(onDisk, document.receivedBytes)))
            try handle.close()
            document.receivedBytes = min(onDisk, document.receivedBytes)
        }
        while document.totalBytes == nil || document.receivedBytes < document.totalBytes! {
            try Task.checkCancellation()
            let (data, total) = try await connection.download(resultURL, offset: document.receivedBytes, length: chunkSize)
            document.totalBytes = total ?? document.totalBytes
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
            try handle.close()
            document.receivedBytes += data.count
            if let total = document.totalBytes, total > 0 {
                document.progress = start + (end - start) * Double(document.receivedBytes) / Double(total)
            }
            if data.isEmpty || total == nil { break }
        }
        note("downloaded \(document.receivedBytes) bytes")
        document.step = .finish
    }

    // MARK: Generate

    func generateStep() async throws {
        switch document.step {
        case .prepare:
            guard !FileManager.default.fileExists(atPath: document.path) else {
                throw ClientError.geodatabase("\(document.path) exists already")
            }
            document.step = .submit
        case .submit:
            guard let parameters = document.generate else { throw ClientError.invalidResponse("no parameters") }
            let submission = try await submit("createReplica", parameters.formFields, progress: 0.05)
            note("replica \(submission.replicaId) requested")
        case .poll:
            try await poll(from: 0.05, to: 0.3)
        case .download:
            try await download(from: 0.3, to: 0.95)
        case .finish:
            guard let partial = document.partialPath else { throw ClientError.invalidResponse("nothing downloaded") }
            // A file from the network is checked before it becomes the device's geodatabase.
            do { try ReplicaFile.checkUntrusted(partial) } catch {
                try? FileManager.default.removeItem(atPath: partial)
                document.partialPath = nil
                throw ClientError.invalidResponse("the replica file: \(String(describing: error))")
            }
            try FileManager.default.moveItem(atPath: partial, toPath: document.path)
            document.partialPath = nil
            do {
                try Geodatabase.open(document.path).close()
            } catch {
                try? FileManager.default.removeItem(atPath: document.path)
                throw error
            }
            document.step = .done
        case .done:
            break
        }
    }
}
