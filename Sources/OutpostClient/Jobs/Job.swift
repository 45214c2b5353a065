import Foundation

/// A long operation — generating a geodatabase, syncing one — after the ArcGIS Maps SDKs'
/// `Job`: `start()` it, read its typed `output`, watch its `progress`, its `statuses` and its
/// `messages`, `pause()`, `start()` again to resume, `cancel()`, and save it with `toJSON()` to
/// resume in another process (`fromJSON`, restored paused). Up to the connection's retry
/// window of network loss is ridden out; a cancelled or failed job leaves nothing half done.
public final class Job<Output: Sendable>: Sendable {
    let engine: JobEngine
    private let makeOutput: @Sendable (JobDocument) throws -> Output
    private let cachedOutput = Locked<Output?>(nil)

    init(engine: JobEngine, output: @escaping @Sendable (JobDocument) throws -> Output) {
        self.engine = engine
        makeOutput = output
    }

    public var id: String { engine.id }
    public var status: JobStatus { engine.document.status }
    public var messages: [JobMessage] { engine.document.messages }
    /// Why the job failed.
    public var error: ClientError? { engine.document.error }
    /// Foundation's `Progress` (observable), 1,000 units for the whole job.
    public var progress: Progress { engine.progress }

    /// The longest wait between polls of the server's job (the first polls come sooner).
    public var pollInterval: Duration {
        get { engine.state.withLock { $0.machine.pollInterval } }
        set { engine.configure { $0.pollInterval = newValue } }
    }
    /// Bytes per ranged download request: the granularity of pause and resume.
    public var downloadChunkSize: Int {
        get { engine.state.withLock { $0.machine.chunkSize } }
        set { engine.configure { $0.chunkSize = max(1, newValue) } }
    }
    /// Sync edits larger than this go up as an uploaded file rather than a form field.
    public var inlineEditsLimit: Int {
        get { engine.state.withLock { $0.machine.inlineEditsLimit } }
        set { engine.configure { $0.inlineEditsLimit = newValue } }
    }

    /// Starts the job, or resumes it when paused; its status is `started` on return.
    public func start() { engine.start() }

    /// Stops at the next safe point; `start()` continues from there.
    public func pause() { engine.pause() }

    /// Stops the job for good: it fails with `ClientError.cancelled`.
    public func cancel() { engine.cancel() }

    /// What the job made, once it has succeeded (waiting for it); its error if it failed.
    public var output: Output {
        get async throws {
            let document = try await engine.finalDocument()
            return try cachedOutput.withLock { cached in
                if let cached { return cached }
                let made = try makeOutput(document)
                cached = made
                return made
            }
        }
    }

    /// The status now, then each change, ending when the job succeeds or fails.
    public var statuses: AsyncStream<JobStatus> { engine.statuses() }

    /// The messages so far, then each new one, ending when the job succeeds or fails.
    public var messageStream: AsyncStream<JobMessage> { engine.messages() }

    /// The job's state as JSON (no credentials). A running job is written as paused:
    /// whoever restores it resumes it with `start()`.
    public func toJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(engine.state.withLock { $0.machine.serialized })
    }

    /// A job of `kind` restored from `toJSON`, paused, on a new connection.
    static func restored(
        _ data: Data, kind: JobDocument.Kind, token: String?, retryWindow: Duration, transport: (any HTTPTransport)?,
        output: @escaping @Sendable (JobDocument) throws -> Output
    ) throws -> Job {
        let document: JobDocument
        do { document = try JSONDecoder().decode(JobDocument.self, from: data) } catch {
            throw ClientError.invalidResponse("not a serialized job: \(error)")
        }
        guard document.kind == kind else { throw ClientError.invalidResponse("a serialized \(document.kind.rawValue) job, not \(kind.rawValue)") }
        guard let url = URL(string: document.serviceURL) else { throw ClientError.invalidResponse("bad service URL \(document.serviceURL)") }
        let connection = ServiceConnection(serviceURL: url, token: token, retryWindow: retryWindow, transport: transport)
        return Job(engine: JobEngine(document: document, connection: connection), output: output)
    }
}

/// `makeGenerateGeodatabaseJob`'s job: its output is the downloaded geodatabase, open.
public typealias GenerateGeodatabaseJob = Job<Geodatabase>
/// `makeSyncGeodatabaseJob`'s job: its output says what the sync did.
public typealias SyncGeodatabaseJob = Job<SyncResult>

extension Job where Output == Geodatabase {
    /// A generate job restored from `toJSON` (paused); `token` re-binds the credential.
    public static func fromJSON(
        _ data: Data, token: String? = nil, retryWindow: Duration = .seconds(600), transport: (any HTTPTransport)? = nil
    ) throws -> GenerateGeodatabaseJob {
        try restored(data, kind: .generate, token: token, retryWindow: retryWindow, transport: transport, output: openedGeodatabase)
    }

    @Sendable static func openedGeodatabase(_ document: JobDocument) throws -> Geodatabase { try Geodatabase.open(document.path) }
}

extension Job where Output == SyncResult {
    /// A sync job restored from `toJSON` (paused); it opens the geodatabase at its path.
    public static func fromJSON(
        _ data: Data, token: String? = nil, retryWindow: Duration = .seconds(600), transport: (any HTTPTransport)? = nil
    ) throws -> SyncGeodatabaseJob {
        try restored(data, kind: .sync, token: token, retryWindow: retryWindow, transport: transport, output: syncResult)
    }

    @Sendable static func syncResult(_ document: JobDocument) throws -> SyncResult {
        document.syncResult ?? SyncResult(editsUploaded: 0, changesApplied: 0, changesDeferred: 0, objectIdsAssigned: 0, failedEdits: [])
    }
}
