import Foundation
import OutpostWire

/// Whether a sync of a preplanned area with scheduled updates takes them.
public enum PreplannedScheduledUpdatesOption: String, Sendable, Codable, Equatable {
    /// The area's read-only geodatabases are left as they are.
    case noUpdates
    /// Every delta the server published since the copy's generation, in order.
    case downloadAllUpdates
}

/// How an `OfflineMapSyncJob` syncs the offline map's geodatabases.
public struct OfflineMapSyncParameters: Sendable, Codable, Equatable {
    public var syncDirection: SyncDirection
    /// A geodatabase whose upload fails keeps its edits and takes no download.
    public var rollbackOnFailure: Bool
    public var preplannedScheduledUpdatesOption: PreplannedScheduledUpdatesOption
    /// Scheduled updates: keep each applied delta file in the folder
    /// (`deltas/<geodatabase>/d_<gen>.gpkg`), for example to update other copies with it.
    public var keepGeodatabaseDeltas: Bool

    public init(
        syncDirection: SyncDirection = .bidirectional, rollbackOnFailure: Bool = false,
        preplannedScheduledUpdatesOption: PreplannedScheduledUpdatesOption = .downloadAllUpdates, keepGeodatabaseDeltas: Bool = false
    ) {
        self.syncDirection = syncDirection
        self.rollbackOnFailure = rollbackOnFailure
        self.preplannedScheduledUpdatesOption = preplannedScheduledUpdatesOption
        self.keepGeodatabaseDeltas = keepGeodatabaseDeltas
    }
}

/// What the sync did for one layer or table of the map.
public struct OfflineMapSyncLayerResult: Sendable, Equatable {
    /// Its geodatabase, relative to the folder.
    public var file: String
    /// Why its geodatabase could not sync.
    public var error: ClientError?
    /// This layer's edits the server refused ("layer:GlobalID: reason"); they stay pending.
    public var failedEdits: [String]
}

/// What a sync of the whole offline map did: per geodatabase file (relative to the folder)
/// and per map layer and table (by their id in `map.json`).
public struct OfflineMapSyncResult: Sendable, Equatable {
    public var results: [String: SyncResult]
    public var errors: [String: ClientError]
    public var layerResults: [String: OfflineMapSyncLayerResult]
    public var tableResults: [String: OfflineMapSyncLayerResult]
    public var hasErrors: Bool { !errors.isEmpty || results.values.contains { !$0.failedEdits.isEmpty } }
    /// A geodatabase was replaced whole: whoever has it open must open it again.
    public var isMobileMapPackageReopenRequired: Bool
    /// `keepGeodatabaseDeltas`: the delta files kept, relative to the folder, in the order applied.
    public var keptDeltas: [String]
}

/// Syncs an offline map folder (`OfflineMapSyncTask.makeOfflineMapSyncJob`): one child job
/// per geodatabase — a `SyncGeodatabaseJob` with its service, or for a preplanned area with
/// scheduled updates the package's deltas applied — side by side; one failing does not
/// stop the others. Pause, resume and `toJSON`/`fromJSON` go down to the child under way.
public final class OfflineMapSyncJob: Sendable {
    struct MapLayer: Codable, Sendable, Equatable {
        var mapLayerId: String
        var file: String
        var layerId: Int?
        var isTable: Bool
    }

    struct Document: ParentJobDocument {
        var format = 1
        var id: String
        var status = JobStatus.notStarted
        var messages: [JobMessage] = []
        var error: ClientError?
        var directory: String
        var portal: String?
        var parameters: OfflineMapSyncParameters
        var layers: [MapLayer]
        var children: [ChildJobRecord]
        var continueOnErrors: Bool { true }
    }

    let core: ParentJob<Document>
    let token: String?
    let transport: (any HTTPTransport)?

    init(document: Document, token: String?, transport: (any HTTPTransport)?) {
        // A sync writes nothing of its own: each geodatabase's job cleans up after itself.
        core = ParentJob(document: document, extraUnits: 0) { _ in }
        self.token = token
        self.transport = transport
    }

    public var id: String { core.document.id }
    public var status: JobStatus { core.document.status }
    public var messages: [JobMessage] { core.document.messages }
    public var error: ClientError? { core.document.error }
    /// Foundation's `Progress` (observable): 1,000 units per geodatabase.
    public var progress: Progress { core.progress }
    public var statuses: AsyncStream<JobStatus> { core.statuses }
    public var messageStream: AsyncStream<JobMessage> { core.messageStream }
    /// The child jobs' longest wait between polls of the server.
    public var pollInterval: Duration {
        get { core.state.withLock { $0.pollInterval } }
        set { core.state.withLock { $0.pollInterval = newValue } }
    }
    public var parameters: OfflineMapSyncParameters { core.document.parameters }

    public func start() { core.start { await self.run() } }
    public func pause() { core.pause() }
    /// Stops for good: each geodatabase keeps what its own sync had committed.
    public func cancel() { core.cancel() }
    public func toJSON() throws -> Data { try core.toJSON() }

    public var output: OfflineMapSyncResult {
        get async throws { Self.result(try await core.finalDocument()) }
    }

    /// A job restored from `toJSON`, paused; `token` re-binds the credential.
    public static func fromJSON(_ data: Data, token: String? = nil, transport: (any HTTPTransport)? = nil) throws -> OfflineMapSyncJob {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else {
            throw ClientError.invalidResponse("not a serialized offline map sync job")
        }
        return OfflineMapSyncJob(document: document, token: token, transport: transport)
    }

    func run() async {
        let document = core.document
        let outcome = await core.runChildren(
            make: { try makeChild($1, document: document) },
            describe: { "\($0.kind == .sync ? "sync" : "scheduled updates") of \($0.file)" })
        switch outcome {
        case .stopped: core.stopped()
        case .failed(let error): core.finish(.failure(error))
        case .finished: core.finish(.success(()))
        }
    }

    private func makeChild(_ record: ChildJobRecord, document: Document) throws -> any ChildJob {
        let path = URL(fileURLWithPath: document.directory).appendingPathComponent(record.file)
        if record.kind == .scheduledUpdates {
            guard let item = record.packageItemId, let portal = document.portal.flatMap(URL.init) else {
                throw ClientError.invalidResponse("\(record.file): no package item to update from")
            }
            let client = MapAreaClient(base: portal, token: token, transport: transport)
            let kept =
                document.parameters.keepGeodatabaseDeltas
                ? URL(fileURLWithPath: document.directory).appendingPathComponent("deltas/\(path.deletingPathExtension().lastPathComponent)")
                : nil
            let directory = document.directory
            return RestartableChild {
                let update = try await client.update(package: item, copy: path.path, keepingDeltasIn: kept)
                let applied = SyncResult(
                    editsUploaded: 0, changesApplied: update.appliedDeltas.count, changesDeferred: 0, objectIdsAssigned: 0, failedEdits: [])
                return ChildOutput(
                    syncResult: applied, reopenRequired: update.reopenRequired,
                    keptDeltas: update.keptDeltas.map { String($0.path.dropFirst(directory.count + 1)) })
            }
        }
        guard let service = URL(string: record.serviceURL) else { throw ClientError.invalidResponse("bad service URL \(record.serviceURL)") }
        if let saved = record.saved, !saved.isEmpty { return try SyncGeodatabaseJob.fromJSON(saved, token: token, transport: transport) }
        let task = GeodatabaseSyncTask(url: service, token: token, transport: transport)
        return task.makeSyncGeodatabaseJob(
            parameters: SyncGeodatabaseParameters(
                syncDirection: document.parameters.syncDirection, rollbackOnFailure: document.parameters.rollbackOnFailure),
            geodatabase: try Geodatabase.open(path))
    }

    static func result(_ document: Document) -> OfflineMapSyncResult {
        var result = OfflineMapSyncResult(
            results: [:], errors: [:], layerResults: [:], tableResults: [:], isMobileMapPackageReopenRequired: false, keptDeltas: [])
        for child in document.children {
            if let error = child.error { result.errors[child.file] = error }
            guard let output = child.output else { continue }
            if let synced = output.syncResult { result.results[child.file] = synced }
            result.isMobileMapPackageReopenRequired = result.isMobileMapPackageReopenRequired || output.reopenRequired
            result.keptDeltas += output.keptDeltas
        }
        for layer in document.layers {
            let failed = (result.results[layer.file]?.failedEdits ?? []).filter { edit in
                layer.layerId.map { edit.hasPrefix("\($0):") } ?? false
            }
            let entry = OfflineMapSyncLayerResult(file: layer.file, error: result.errors[layer.file], failedEdits: failed)
            if layer.isTable { result.tableResults[layer.mapLayerId] = entry } else { result.layerResults[layer.mapLayerId] = entry }
        }
        return result
    }
}

extension OfflineMapSyncJob: LongRunningJob {}
