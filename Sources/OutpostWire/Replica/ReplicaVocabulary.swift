/// The enumerations of `createReplica`, `synchronizeReplica` and the replica resources
/// (§15 of the sync reference). Raw values are the spellings Outpost writes; parsing is
/// case-insensitive and accepts the spellings real clients send.

/// An enumeration whose wire spellings are matched ignoring case, as clients vary.
public protocol LenientlyNamed: RawRepresentable, CaseIterable where RawValue == String {}

extension LenientlyNamed {
    public init?(lenient text: String) {
        let lowered = text.lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = match
    }
}

/// How a replica's generations are kept: one for the whole replica, one per layer, or none
/// (an export that registers nothing).
public enum SyncModel: String, Sendable, Equatable, CaseIterable, LenientlyNamed {
    case perReplica, perLayer, none
}

/// Whether a result comes inline or as a file to download.
public enum TransportType: String, Sendable, Equatable, CaseIterable {
    case url = "esriTransportTypeUrl"
    case embedded = "esriTransportTypeEmbedded"

    public init?(lenient text: String) {
        switch text.lowercased() {
        case "esritransporttypeurl", "url": self = .url
        case "esritransporttypeembedded", "embedded": self = .embedded
        default: return nil
        }
    }
}

/// What a replica or sync answer carries (§4.6, §5.6).
public enum ReplicaResponseType: String, Sendable, Equatable, CaseIterable {
    case data = "esriReplicaResponseTypeData"
    case info = "esriReplicaResponseTypeInfo"
    case edits = "esriReplicaResponseTypeEdits"
    case noEdits = "esriReplicaResponseTypeNoEdits"
    case replacementData = "esriReplicaResponseTypeReplacementData"
    case editsAndData = "esriReplicaResponseTypeEditsAndData"
}

/// Direction of a replica (at creation) or of one sync.
public enum SyncDirection: String, Sendable, Equatable, CaseIterable, LenientlyNamed {
    case bidirectional, upload, download, snapshot

    /// Whether edits sent by the client are applied.
    public var uploads: Bool { self == .bidirectional || self == .upload }
    /// Whether server changes are returned.
    public var downloads: Bool { self != .upload }
}

/// Which way attachments travel, fixed when the replica is created (§4.5).
public enum AttachmentsSyncDirection: String, Sendable, Equatable, CaseIterable, LenientlyNamed {
    case none, upload, bidirectional
}

/// A replica kept by a client app, or by another feature service.
public enum ReplicaTargetType: String, Sendable, Equatable, CaseIterable, LenientlyNamed {
    case client, server
}

/// The format of replica data.
public enum ReplicaDataFormat: String, Sendable, Equatable, CaseIterable {
    /// The replica document as JSON.
    case json
    /// A GeoPackage with Outpost's sync extension (`docs/replica-format.md`).
    case sqlite

    /// `sqlite` and `geopackage`/`gpkg` name the GeoPackage; Esri's other export formats are
    /// recognised so the error can say they are unsupported rather than unknown.
    public static func parse(_ text: String, parameter: String) throws(ArcGISError) -> ReplicaDataFormat {
        switch text.lowercased() {
        case "json": return .json
        case "sqlite", "geopackage", "gpkg": return .sqlite
        case "filegdb", "shapefile", "csv", "geojson", "kml", "excel", "featurecollection":
            throw .invalidParameter(parameter, "dataFormat '\(text)' is not supported; use json or sqlite (a GeoPackage)")
        default:
            throw .invalidParameter(parameter, "expected json or sqlite, got '\(text)'")
        }
    }

    /// The file name extension of a result file.
    public var fileExtension: String { self == .json ? "json" : "gpkg" }
}

/// Which rows of a layer a replica takes (`layerQueries.queryOption`, §4.3).
public enum ReplicaQueryOption: String, Sendable, Equatable, CaseIterable, LenientlyNamed {
    /// Schema only (rows related to other layers' rows when `includeRelated`).
    case none
    /// The layer's `where` and, with `useGeometry`, the replica geometry.
    case useFilter
    /// Every row.
    case all
}

/// The status of an asynchronous job (§7.3).
public enum ServerJobStatus: String, Sendable, Equatable, CaseIterable {
    case pending = "Pending"
    case inProgress = "InProgress"
    case exportingData = "ExportingData"
    case exportingSnapshot = "ExportingSnapshot"
    case exportAttachments = "ExportAttachments"
    case importChanges = "ImportChanges"
    case exportChanges = "ExportChanges"
    case importAttachments = "ImportAttachments"
    case provisioningReplica = "ProvisioningReplica"
    case unRegisteringReplica = "UnRegisteringReplica"
    case completed = "Completed"
    case completedWithErrors = "CompletedWithErrors"
    case failed = "Failed"

    /// Clients stop polling at these.
    public var isTerminal: Bool { self == .completed || self == .completedWithErrors || self == .failed }
}
