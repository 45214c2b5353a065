import OutpostGeometry
import OutpostSync
import OutpostWire

/// One consistent read of a replica's data for a sync's answer: what differs between
/// databases, and nothing more. The sync engine (`SyncAnswer` in OutpostService) owns the
/// order, the counting and the formats; a backend only reads, inside one read transaction
/// (SpatiaLite: one read of the WAL; PostgreSQL: one REPEATABLE READ transaction whose snapshot
/// is the tick handed out), so a concurrent edit is in this answer or in the next, never both.
public protocol ChangeFeedRead {
    /// The generation this read is at: every change up to it is visible to it.
    var generation: Int64 { get }
    /// The replica's service as the read found it.
    var service: StoredService { get }
    /// The rows a replica layer selects (its filter), each in the replica's spatial reference,
    /// in OBJECTID order.
    func forEachFeature(of replicaLayer: ReplicaLayer, _ body: (FeatureRecord) throws -> Void) throws
    /// The attachments of the rows a replica layer selects, in attachment id order.
    func forEachAttachment(of replicaLayer: ReplicaLayer, _ body: (AttachmentRecord) throws -> Void) throws
    /// The changes of a replica layer since `generation`, as `SyncRules.download` decides them
    /// for the replica (net per GlobalID).
    func changes(of replicaLayer: ReplicaLayer, since generation: Int64) throws -> any LayerChangeFeed
    /// What a GeoPackage records of each spatial reference (`gpkg_spatial_ref_sys`), from the
    /// database's own catalogue; codes it does not know are left out.
    func spatialReferenceDefinitions(_ codes: [Int]) throws -> [SpatialReferenceDefinition]
}

/// A layer's changes since a generation, read in this order: the `.add` rows, the `.update`
/// rows, then `deletedFeatures` (rows that left the filter, then tombstones of GlobalIDs not
/// met as live rows); attachments the same way. A class: reading the rows collects what the
/// deletes need.
public protocol LayerChangeFeed: AnyObject {
    func forEachChangedFeature(_ pass: DownloadChange, _ body: (FeatureRecord) throws -> Void) throws
    func deletedFeatures() throws -> [DeletedRecord]
    func forEachChangedAttachment(_ pass: DownloadChange, _ body: (AttachmentRecord) throws -> Void) throws
    func deletedAttachments() throws -> [DeletedRecord]
}

/// A feature or attachment deleted since a generation, as a download names it.
public struct DeletedRecord: Sendable, Equatable {
    public var globalId: String
    public var objectId: Int64?

    public init(globalId: String, objectId: Int64?) {
        self.globalId = globalId
        self.objectId = objectId
    }
}

/// A `LayerChangeFeed` made of a backend's reader's four reads.
public final class LayerChanges: LayerChangeFeed {
    public typealias Rows<Record> = (DownloadChange, (Record) throws -> Void) throws -> Void
    private let features: Rows<FeatureRecord>
    private let deletedFeatureRecords: () throws -> [DeletedRecord]
    private let attachments: Rows<AttachmentRecord>
    private let deletedAttachmentRecords: () throws -> [DeletedRecord]

    public init(
        features: @escaping Rows<FeatureRecord>, deletedFeatures: @escaping () throws -> [DeletedRecord],
        attachments: @escaping Rows<AttachmentRecord>, deletedAttachments: @escaping () throws -> [DeletedRecord]
    ) {
        self.features = features
        self.deletedFeatureRecords = deletedFeatures
        self.attachments = attachments
        self.deletedAttachmentRecords = deletedAttachments
    }

    public func forEachChangedFeature(_ pass: DownloadChange, _ body: (FeatureRecord) throws -> Void) throws {
        try withoutActuallyEscaping(body) { try features(pass, $0) }
    }

    public func deletedFeatures() throws -> [DeletedRecord] { try deletedFeatureRecords() }

    public func forEachChangedAttachment(_ pass: DownloadChange, _ body: (AttachmentRecord) throws -> Void) throws {
        try withoutActuallyEscaping(body) { try attachments(pass, $0) }
    }

    public func deletedAttachments() throws -> [DeletedRecord] { try deletedAttachmentRecords() }
}
