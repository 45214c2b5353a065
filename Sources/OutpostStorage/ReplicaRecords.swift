import OutpostGeometry
import OutpostSync
import OutpostWire

/// A feature as storage yields it: attribute values in its layer's field order, and its
/// geometry in the spatial reference asked for.
public struct FeatureRecord: Sendable {
    public var attributes: [JSONValue]
    public var geometry: OGCGeometry?

    public init(attributes: [JSONValue], geometry: OGCGeometry?) {
        self.attributes = attributes
        self.geometry = geometry
    }
}

/// An attachment as storage yields it; its bytes are where `content` says (a file in the data
/// folder, read only when written out, or bytes stored inline).
public struct AttachmentRecord: Sendable {
    public var id: Int64
    public var globalId: String
    public var parentGlobalId: String
    public var parentObjectId: Int64
    public var name: String
    public var contentType: String
    public var keywords: String
    public var size: Int64
    public var content: AttachmentContent

    public init(
        id: Int64, globalId: String, parentGlobalId: String, parentObjectId: Int64, name: String, contentType: String,
        keywords: String, size: Int64, content: AttachmentContent
    ) {
        self.id = id
        self.globalId = globalId
        self.parentGlobalId = parentGlobalId
        self.parentObjectId = parentObjectId
        self.name = name
        self.contentType = contentType
        self.keywords = keywords
        self.size = size
        self.content = content
    }
}

/// Receives a replica's data as storage reads it, in one read transaction and in the order a
/// replica document lists it: `beginReplica`, then per layer `beginLayer`, its features, its
/// attachments (when asked for), `endLayer`; then `endReplica`. Storage writes no wire format:
/// the receiver does (`ReplicaJSONWriter` in OutpostService).
public protocol ReplicaDataReceiver: AnyObject {
    /// The replica as registered, stamped with the generation of the snapshot.
    func beginReplica(_ replica: ReplicaDefinition, deliversByURL: Bool) throws
    func beginLayer(_ layer: LayerDefinition, spatialReference: SpatialReference, withAttachments: Bool) throws
    func feature(_ feature: FeatureRecord, of layer: LayerDefinition) throws
    func attachment(_ attachment: AttachmentRecord, of layer: LayerDefinition) throws
    func endLayer() throws
    func endReplica() throws
}

/// Receives a sync's answer as the download engine reads it (`SyncDownload`): `beginAnswer`;
/// per syncing layer `beginChanges`, its changed features (every `.add`, then every
/// `.update`), `deletedFeatures`, then, when the layer answers attachments, its changed
/// attachments the same way and `deletedAttachments`, and `endChanges`; then the snapshot
/// layers, if any, between `beginSnapshots` and `endSnapshots` as `ReplicaDataReceiver` layers;
/// then `finishAnswer`.
public protocol ChangeFeedReceiver: ReplicaDataReceiver {
    func beginAnswer(_ replica: ReplicaDefinition, deliversByURL: Bool, generations: ReplicaGenerations) throws
    /// `answersAttachments`: the layer's answer has an attachments part (it has attachments
    /// the replica syncs, or the upload carried attachment edits).
    func beginChanges(_ layer: LayerDefinition, results: LayerEditResults?, answersAttachments: Bool) throws
    func changedFeature(_ change: DownloadChange, _ feature: FeatureRecord, of layer: LayerDefinition) throws
    func deletedFeatures(_ globalIds: [String]) throws
    func changedAttachment(_ change: DownloadChange, _ attachment: AttachmentRecord, of layer: LayerDefinition) throws
    func deletedAttachments(_ globalIds: [String]) throws
    func endChanges() throws
    func beginSnapshots() throws
    func endSnapshots() throws
    func finishAnswer(responseType: ReplicaResponseType) throws
}
