import Foundation
import OutpostWire

/// What `GenerateOfflineMapJob` made: the offline map's folder, and the layers and tables that
/// could not be taken (with `continueOnErrors`).
public struct GenerateOfflineMapResult: Sendable, Equatable {
    public var directory: URL
    public var layerErrors: [String: ClientError]
    public var tableErrors: [String: ClientError]
    public var hasErrors: Bool { !layerErrors.isEmpty || !tableErrors.isEmpty }
}

/// `makeDownloadPreplannedOfflineMapJob`'s job: the same machinery, packages downloaded.
public typealias DownloadPreplannedOfflineMapJob = GenerateOfflineMapJob

/// Takes a web map offline into a folder (docs/offline-map-format.md): one child job per
/// service — a `GenerateGeodatabaseJob` per feature service, an `ExportTileCacheJob` per tiled
/// service, or for a preplanned area the download of each package (then each geodatabase
/// registered when it syncs) — run side by side, progress weighted over them, then the map and
/// the manifest written. Everything is written in a staging folder beside the destination and
/// renamed into place at the end: a failed or cancelled job leaves nothing half written.
/// Pause, resume and `toJSON`/`fromJSON` go down to the child job under way.
public final class GenerateOfflineMapJob: Sendable {
    struct Child: Codable, Sendable, Equatable {
        enum Kind: String, Codable, Sendable { case geodatabase, tiles }
        enum State: String, Codable, Sendable { case pending, running, done, failed }
        var kind: Kind
        var serviceURL: String
        var mapLayerIds: [String]
        /// Relative to the folder: `data/<service>.gpkg`, `tiles/<service>.tpkx|.mbtiles`.
        var file: String
        /// Preplanned: the package item downloaded instead of a replica or an export made.
        var packageItemId: String?
        var state = State.pending
        /// The child job saved when the offline map job was paused.
        var saved: Data?
        var error: ClientError?
    }

    struct Document: Codable, Sendable {
        var format = 1
        var id: String
        var status = JobStatus.notStarted
        var messages: [JobMessage] = []
        var error: ClientError?
        var portal: String
        var webMapItemId: String
        var webMap: String
        var item: String
        var parameters: GenerateOfflineMapParameters
        var plan: OfflineMapPlan
        var directory: String
        var children: [Child]
        var finished = false
        /// Preplanned: the map area downloaded, and how its geodatabases keep current.
        var mapAreaId: String?
        var preplannedUpdateMode: PreplannedUpdateMode?
    }

    struct State {
        var document: Document
        var task: Task<Void, Never>?
        var pauseRequested = false
        var cancelRequested = false
        /// The child jobs under way, by index, and how far each has come.
        var running: [Int: any ChildJob] = [:]
        var fractions: [Int: Double] = [:]
        var waiters: [CheckedContinuation<GenerateOfflineMapResult, any Error>] = []
        var pollInterval = Duration.seconds(1)
    }

    let state: Locked<State>
    let token: String?
    let transport: (any HTTPTransport)?
    /// 1,000 units per child job and 100 for writing the map.
    public let progress: Progress

    init(document: Document, token: String?, transport: (any HTTPTransport)?) {
        state = Locked(State(document: document))
        self.token = token
        self.transport = transport
        progress = Progress(totalUnitCount: Int64(document.children.count * 1000 + 100))
        progress.completedUnitCount = Int64(document.children.filter { $0.state == .done || $0.state == .failed }.count * 1000)
    }

    public var id: String { state.withLock { $0.document.id } }
    public var status: JobStatus { state.withLock { $0.document.status } }
    public var messages: [JobMessage] { state.withLock { $0.document.messages } }
    public var error: ClientError? { state.withLock { $0.document.error } }
    /// The child jobs' longest wait between polls of the server.
    public var pollInterval: Duration {
        get { state.withLock { $0.pollInterval } }
        set { state.withLock { $0.pollInterval = newValue } }
    }
    var childPollInterval: Duration { pollInterval }

    /// Where the offline map will be.
    public var downloadDirectory: URL { URL(fileURLWithPath: state.withLock { $0.document.directory }) }
    var staging: String { state.withLock { $0.document.directory + ".\($0.document.id).partial" } }

    /// Starts the job, or resumes it when paused.
    public func start() {
        let started = state.withLock { state -> Bool in
            guard state.task == nil, state.document.status == .notStarted || state.document.status == .paused else { return false }
            state.pauseRequested = false
            state.document.status = .started
            state.document.messages.append(JobMessage(date: Date(), text: state.document.messages.isEmpty ? "started" : "resumed"))
            return true
        }
        guard started else { return }
        let task = Task { await self.run() }
        state.withLock { if $0.document.status == .started, $0.task == nil { $0.task = task } }
    }

    /// Pauses the child job under way; `start()` resumes it.
    public func pause() {
        let children = state.withLock { state -> [any ChildJob] in
            guard state.document.status == .started else { return [] }
            state.pauseRequested = true
            return Array(state.running.values)
        }
        for child in children { child.pause() }
    }

    /// Stops for good: nothing written is kept; fails with `ClientError.cancelled`.
    public func cancel() {
        let (children, idle) = state.withLock { state -> ([any ChildJob], Bool) in
            state.cancelRequested = true
            return (Array(state.running.values), state.document.status == .notStarted || state.document.status == .paused)
        }
        for child in children { child.cancel() }
        if idle { finish(.failure(.cancelled)) }
    }

    /// The offline map, once made; the job's error if it failed.
    public var output: GenerateOfflineMapResult {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let done: Result<GenerateOfflineMapResult, ClientError>? = state.withLock { state in
                    switch state.document.status {
                    case .succeeded: return .success(Self.result(state.document))
                    case .failed: return .failure(state.document.error ?? .cancelled)
                    default:
                        state.waiters.append(continuation)
                        return nil
                    }
                }
                if let done { continuation.resume(with: done) }
            }
        }
    }

    /// The job as JSON (no credentials); a running job is written as paused.
    public func toJSON() throws -> Data {
        var document = state.withLock { $0.document }
        if document.status == .started { document.status = .paused }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(document)
    }

    /// A job restored from `toJSON`, paused; `token` re-binds the credential.
    public static func fromJSON(_ data: Data, token: String? = nil, transport: (any HTTPTransport)? = nil) throws -> GenerateOfflineMapJob {
        do {
            return GenerateOfflineMapJob(document: try JSONDecoder().decode(Document.self, from: data), token: token, transport: transport)
        } catch {
            throw ClientError.invalidResponse("not a serialized offline map job: \(error)")
        }
    }

    static func result(_ document: Document) -> GenerateOfflineMapResult {
        var layers: [String: ClientError] = [:]
        var tables: [String: ClientError] = [:]
        let isTable = Dictionary(document.plan.layers.map { ($0.mapLayerId, $0.isTable) }, uniquingKeysWith: { a, _ in a })
        for layer in document.plan.layers {
            guard let reason = layer.capability.error, !layer.capability.remainsOnline else { continue }
            if layer.isTable { tables[layer.mapLayerId] = .unsupported(reason) } else { layers[layer.mapLayerId] = .unsupported(reason) }
        }
        for child in document.children where child.state == .failed {
            for id in child.mapLayerIds {
                if isTable[id] == true { tables[id] = child.error } else { layers[id] = child.error }
            }
        }
        return GenerateOfflineMapResult(directory: URL(fileURLWithPath: document.directory), layerErrors: layers, tableErrors: tables)
    }

    func note(_ text: String) { state.withLock { $0.document.messages.append(JobMessage(date: Date(), text: text)) } }

    func finish(_ outcome: Result<Void, ClientError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<GenerateOfflineMapResult, any Error>] in
            switch outcome {
            case .success:
                // Complete before succeeded: whoever sees the status sees the progress with it.
                progress.completedUnitCount = progress.totalUnitCount
                state.document.status = .succeeded
                state.document.messages.append(JobMessage(date: Date(), text: "succeeded"))
            case .failure(let error):
                state.document.status = .failed
                state.document.error = error
                state.document.messages.append(JobMessage(date: Date(), text: "failed: \(error.description)"))
            }
            state.task = nil
            state.running = [:]
            defer { state.waiters = [] }
            return state.waiters
        }
        if case .failure = outcome {
            try? FileManager.default.removeItem(atPath: staging)
        } else {
            progress.completedUnitCount = progress.totalUnitCount
        }
        let document = state.withLock { $0.document }
        for waiter in waiters {
            switch outcome {
            case .success: waiter.resume(returning: Self.result(document))
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
    }
}
