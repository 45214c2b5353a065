import Foundation
import OutpostWire

/// What `GenerateOfflineMapJob` made: the offline map's folder, and the layers and tables that
/// could not be taken (with `continueOnErrors`).
public struct GenerateOfflineMapResult: Sendable, Equatable {
    public var directory: URL
    public var layerErrors: [String: ClientError]
    public var tableErrors: [String: ClientError]
    /// Locators and route services (by URL) that could not be taken (docs/offline-map-format.md, "Tasks").
    public var taskErrors: [String: ClientError] = [:]
    public var hasErrors: Bool { !layerErrors.isEmpty || !tableErrors.isEmpty || !taskErrors.isEmpty }
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
    typealias Child = ChildJobRecord

    struct Document: ParentJobDocument {
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

        var continueOnErrors: Bool { parameters.continueOnErrors }
        var staging: String { "\(directory).\(id).partial" }
    }

    let core: ParentJob<Document>
    let token: String?
    let transport: (any HTTPTransport)?

    init(document: Document, token: String?, transport: (any HTTPTransport)?) {
        // 1,000 units per child job and 100 for writing the map.
        core = ParentJob(document: document, extraUnits: 100) { try? FileManager.default.removeItem(atPath: $0.staging) }
        self.token = token
        self.transport = transport
    }

    public var id: String { core.document.id }
    public var status: JobStatus { core.document.status }
    public var messages: [JobMessage] { core.document.messages }
    public var error: ClientError? { core.document.error }
    /// Foundation's `Progress` (observable): 1,000 units per child job and 100 for the map.
    public var progress: Progress { core.progress }
    /// The status now, then each change, ending when the job succeeds or fails.
    public var statuses: AsyncStream<JobStatus> { core.statuses }
    /// The messages so far, then each new one, ending when the job succeeds or fails.
    public var messageStream: AsyncStream<JobMessage> { core.messageStream }
    /// The child jobs' longest wait between polls of the server.
    public var pollInterval: Duration {
        get { core.state.withLock { $0.pollInterval } }
        set { core.state.withLock { $0.pollInterval = newValue } }
    }

    /// Where the offline map will be.
    public var downloadDirectory: URL { URL(fileURLWithPath: core.document.directory) }
    var staging: String { core.document.staging }

    /// Starts the job, or resumes it when paused.
    public func start() { core.start { await self.run() } }

    /// Pauses the child jobs under way; `start()` resumes them.
    public func pause() { core.pause() }

    /// Stops for good: nothing written is kept; fails with `ClientError.cancelled`.
    public func cancel() { core.cancel() }

    /// The offline map, once made; the job's error if it failed.
    public var output: GenerateOfflineMapResult {
        get async throws { Self.result(try await core.finalDocument()) }
    }

    /// The job as JSON (no credentials); a running job is written as paused.
    public func toJSON() throws -> Data { try core.toJSON() }

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
        var result = GenerateOfflineMapResult(directory: URL(fileURLWithPath: document.directory), layerErrors: layers, tableErrors: tables)
        for child in document.children where child.state == .failed && (child.kind == .locator || child.kind == .network) {
            result.taskErrors[child.serviceURL] = child.error ?? .invalidResponse("the \(child.kind.rawValue) was not taken")
        }
        return result
    }
}
