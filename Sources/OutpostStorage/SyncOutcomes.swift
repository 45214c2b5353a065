import OutpostSync
import OutpostWire

/// What applying a sync's edits did.
public struct SyncUploadOutcome: Sendable, Equatable {
    public var results: [LayerEditResults]
    /// The generation the edits were committed with; nil when nothing was committed.
    public var generation: Int64?
    /// The same upload was applied before (a retry after a lost answer): nothing was applied
    /// now and `results` are the first attempt's.
    public var replayed: Bool
    /// Server changes overwritten by this upload and written to the conflict log.
    public var conflictsRecorded: Int

    /// The results by layer id.
    public var resultsByLayer: [Int: LayerEditResults] {
        Dictionary(results.map { ($0.layerId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public init(results: [LayerEditResults], generation: Int64? = nil, replayed: Bool, conflictsRecorded: Int) {
        self.results = results
        self.generation = generation
        self.replayed = replayed
        self.conflictsRecorded = conflictsRecorded
    }
}

/// What a sync answer held.
public struct SyncAnswerSummary: Sendable, Equatable {
    /// The generation the download was read at: every change up to it is in the answer or
    /// was the replica's own.
    public var generation: Int64
    public var responseType: ReplicaResponseType
    /// Feature and attachment adds, updates and deletes downloaded.
    public var changes: Int
    /// Features and attachments sent as replacement data (snapshot layers).
    public var replacementRows: Int
    /// The generation(s) handed to the client, by layer.
    public var generations: [Int: Int64]

    public init(generation: Int64, responseType: ReplicaResponseType, changes: Int, replacementRows: Int, generations: [Int: Int64]) {
        self.generation = generation
        self.responseType = responseType
        self.changes = changes
        self.replacementRows = replacementRows
        self.generations = generations
    }
}

/// Where and how a replica's data goes.
public enum ReplicaOutput {
    /// A replica file (GeoPackage) at `path`, which must not exist yet.
    case geoPackage(path: String)
    /// The replica's records, handed to a receiver that writes them out (the JSON replica
    /// document: `ReplicaJSONWriter`).
    case records(any ReplicaDataReceiver)
}

/// How many rows a snapshot exported.
public struct ReplicaExportCounts: Sendable, Equatable {
    public var features = 0
    public var attachments = 0

    public init(features: Int = 0, attachments: Int = 0) {
        self.features = features
        self.attachments = attachments
    }
}
