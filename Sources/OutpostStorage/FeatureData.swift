import OutpostGeometry
import OutpostSync
import OutpostWire
import ServiceLifecycle

/// Services and layers: the catalog, and its changes.
///
/// Contract: `catalog()` is one consistent snapshot, replaced whole by a schema change; names
/// compare without case and without the difference between `-` and `_`. It may ask the
/// database (PostgreSQL: whether another process changed the schema), so it is a blocking call
/// that throws when the database cannot answer, never an old or empty catalog.
public protocol CatalogStore: Sendable {
    func catalog() throws(StoreError) -> Catalog
    func createService(_ service: ServiceDefinition) throws -> StoredService
    /// Deletes a service with everything kept for it. `refusingWhileInUse`: refused
    /// (`StoreError.serviceInUse`) while replicas are registered with it or its feature jobs
    /// run; false only for an import undoing its own half-made service.
    func deleteService(named name: String, refusingWhileInUse: Bool) throws
    /// Adds nullable fields to a layer (`addToDefinition`, `SchemaRules.checkAddable`): one
    /// transaction, existing rows hold null, the layer's last edit date moves.
    func addFields(_ fields: [FieldDefinition], service: String, layer layerId: Int) throws -> StoredLayer
}

extension CatalogStore {
    /// Deletes a service unless replicas are registered with it or its feature jobs run.
    public func deleteService(named name: String) throws { try deleteService(named: name, refusingWhileInUse: true) }

    public func service(named name: String) throws(StoreError) -> StoredService { try catalog().existingService(named: name) }

    public func layer(service name: String, id: Int) throws(StoreError) -> StoredLayer { try catalog().existingLayer(service: name, id: id) }
}

/// Reading features (`query`, counts, extents, attachments).
///
/// Contract: a `where` reaches storage parsed (`WhereClause`), never as SQL text; one answer
/// reads one snapshot.
public protocol FeatureQuerying: Sendable {
    func query(_ query: LayerQuery, service: String, layer layerId: Int) throws -> QueryAnswer
    func count(service: String, layer layerId: Int) throws -> Int
    func extent(of layer: StoredLayer) throws -> Envelope
    func fullExtent(of service: StoredService) throws -> Envelope
    func lastEditDate(of layer: StoredLayer) throws -> Int64
}

/// Reading attachments (`queryAttachments`, an attachment's bytes).
public protocol AttachmentReading: Sendable {
    func attachmentInfos(layer: StoredLayer, objectIds: [Int64]) throws -> [AttachmentGroup]
    /// Nil when the attachment is not the feature's.
    func attachmentContent(
        layer: StoredLayer, objectId: Int64, attachmentId: Int64
    ) throws
        -> (name: String, contentType: String, content: AttachmentContent)?
}

/// Changing features: one edit transaction stamped with one generation.
///
/// Contract: every committed change carries the generation, its creation generation and
/// its writer (`docs/architecture.md`, "Change tracking"); deletes leave tombstones; with
/// `rollbackOnFailure` a failure commits nothing, without it each edit stands alone.
public protocol FeatureEditing: Sendable {
    /// The newest committed generation.
    func currentGeneration() throws -> Int64
    func applyEdits(service: String, edits: [LayerEdits], options: EditOptions, context: EditContext) throws -> EditOutcome
    /// Bulk load (demo data, tests): one transaction, one generation; the new OBJECTIDs in order.
    @discardableResult func insert(_ rows: [FeatureRow], service: String, layer layerId: Int) throws -> [Int64]
    /// Bulk load from a stream (import): `produce` hands each row to `emit`, which writes it
    /// before returning, so memory stays flat in the row count. One transaction, one
    /// generation; `expectedCount` (what a first pass counted) chooses the bulk strategy.
    /// Returns the number of rows loaded.
    @discardableResult func load(
        service: String, layer layerId: Int, expectedCount: Int, _ produce: (_ emit: (FeatureRow) throws -> Void) throws -> Void
    ) throws -> Int
}

/// Changing attachments, each in its own transaction stamped like a feature edit.
public protocol AttachmentEditing: Sendable {
    func addAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, input: AttachmentInput, context: EditContext
    ) throws
        -> EditResult
    func updateAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentId: Int64, input: AttachmentInput,
        context: EditContext
    ) throws -> EditResult
    func deleteAttachments(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentIds: [Int64], rollbackOnFailure: Bool,
        context: EditContext
    ) throws -> [EditResult]
}

extension AttachmentEditing {
    public func addAttachment(service: String, layer layerId: Int, parentObjectId: Int64, input: AttachmentInput) throws -> EditResult {
        try addAttachment(service: service, layer: layerId, parentObjectId: parentObjectId, input: input, context: EditContext())
    }

    public func updateAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentId: Int64, input: AttachmentInput
    ) throws -> EditResult {
        try updateAttachment(
            service: service, layer: layerId, parentObjectId: parentObjectId, attachmentId: attachmentId, input: input, context: EditContext())
    }

    public func deleteAttachments(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentIds: [Int64], rollbackOnFailure: Bool
    ) throws -> [EditResult] {
        try deleteAttachments(
            service: service, layer: layerId, parentObjectId: parentObjectId, attachmentIds: attachmentIds,
            rollbackOnFailure: rollbackOnFailure, context: EditContext())
    }
}

extension FeatureEditing {
    public func applyEdits(service: String, edits: [LayerEdits], options: EditOptions) throws -> EditOutcome {
        try applyEdits(service: service, edits: edits, options: options, context: EditContext())
    }
}

/// Replicas' data: the snapshot of a new replica, the sync upload (decided by
/// `SyncRules.upload`) and the change feed (decided by `SyncRules.download`).
///
/// Contract (`docs/sync-semantics.md`): an upload is one transaction, one generation stamped
/// with the replica; a retried upload (same fingerprint) is answered from its receipt and
/// applies nothing; a download reads one snapshot and hands out the newest generation
/// committed when it began.
public protocol SyncStore: Sendable {
    /// Checks a plan against the data before any work (spatial references, filters).
    func validate(_ plan: ReplicaPlan) throws
    func exportReplica(
        _ plan: ReplicaPlan, to output: ReplicaOutput, serviceURL: String, serviceJSON: JSONValue, layerJSON: [Int: JSONValue],
        phase: (ServerJobStatus) -> Void
    ) throws -> (ReplicaDefinition, ReplicaExportCounts)
    /// Runs `body` in one sync upload's write transaction (`SyncUploadTransaction`), once the
    /// plan's uploading layers are found to take their edits and their attachment bytes are in
    /// place; `editor` (the syncing user, nil when anonymous) goes to editor-tracking fields.
    /// The upload engine (`applySyncUpload`, OutpostService) is the body. What `body` throws
    /// rolls everything back and is rethrown. `body` may run more than once (PostgreSQL runs
    /// the transaction again with a savepoint per edit when an edit failed without one): only
    /// its last run commits.
    func runSyncUpload(
        _ plan: SyncPlan, editor: String?, _ body: (any SyncUploadTransaction) throws -> SyncUploadOutcome
    ) throws -> SyncUploadOutcome
    /// Runs `body` in the one read a sync's answer is made of (`ChangeFeedRead`): the sync
    /// engine (`SyncDownload` in OutpostService) writes the answer from it.
    func readChangeFeed<T: Sendable>(_ replica: ReplicaDefinition, _ body: (any ChangeFeedRead) throws -> T) throws -> T
    /// Records the generations handed out (and unregisters when `close`).
    func recordSync(_ plan: SyncPlan, generations: [Int: Int64], close: Bool) throws
}

/// Named versions of versioned services (`docs/sync-semantics.md`, Versioned data).
public protocol VersionStore: Sendable {
    func versions(service: String) throws -> [DataVersion]
    /// Creates `owner.name` (the bare name after any dot in `name`).
    func createVersion(service: String, name: String, description: String, access: String, owner: String) throws -> DataVersion
    func version(service: String, named name: String) throws -> DataVersion?
    func deleteVersion(service: String, named name: String) throws
    func applyVersionEdits(
        service: String, version name: String, edits: [LayerEdits], options: EditOptions, context: EditContext
    ) throws
        -> EditOutcome
    func reconcileAndPost(service: String, version name: String) throws -> VersionPost
    func query(_ query: LayerQuery, service: String, layer layerId: Int, version name: String) throws -> QueryAnswer
}

/// What a replica's life needs of a backend: services, feature reads and edits, the
/// registry, sync and the conflict log. The sync half of the store contract suite
/// (`SyncContractBackend`) runs against every backend that has these.
public protocol SyncBackend: Sendable {
    associatedtype Schema: CatalogStore
    associatedtype Features: FeatureQuerying
    associatedtype Edits: FeatureEditing
    associatedtype Sync: SyncStore
    associatedtype Replicas: ReplicaRegistry
    associatedtype Conflicts: ConflictLog

    var schema: Schema { get }
    var features: Features { get }
    var edits: Edits { get }
    var sync: Sync { get }
    var replicas: Replicas { get }
    var conflicts: Conflicts { get }
    /// Every time the backend stamps.
    var clock: any WallClock { get }
}

/// The records a server keeps beside the data: users and tokens, job records and who owns
/// each result file. Their half of the contract suite (`RecordsContractBackend`) runs against
/// every backend that has them.
public protocol ServerRecords: Sendable {
    associatedtype Users: UserDirectory
    associatedtype Jobs: JobStore
    associatedtype ResultFiles: ResultFileRegistry
    associatedtype OAuth: OAuthGrantStore

    var users: Users { get }
    /// The portal's OAuth 2.0 records (docs/identity.md).
    var oauth: OAuth { get }
    var jobs: Jobs { get }
    var resultFiles: ResultFiles { get }
    var clock: any WallClock { get }
}

/// A whole backend: one repository per concern. A second backend implements these and
/// passes the store contract suite (`Tests/OutpostContractTests`) by adding one line
/// there.
public protocol OutpostBackend: SyncBackend, ServerRecords where Features: AttachmentReading, Edits: AttachmentEditing {
    associatedtype Versions: VersionStore
    associatedtype Uploads: UploadStore
    associatedtype Maintenance: StoreMaintenance
    associatedtype Portal: PortalStore
    associatedtype Tiles: TileSetStore
    associatedtype Snapshots: StateSnapshots
    associatedtype Locators: LocatorStore
    associatedtype Networks: NetworkStore

    var versions: Versions { get }
    var uploads: Uploads { get }
    var maintenance: Maintenance { get }
    var portal: Portal { get }
    var tiles: Tiles { get }
    /// The locators' index (`GeocodeServer`).
    var locators: Locators { get }
    /// Route networks (`NAServer`).
    var networks: Networks { get }
    /// Named copies of the whole state, restored in place (test targets, `StateSnapshots`).
    var snapshots: Snapshots { get }
    /// What the backend needs run while a server uses it, in the server's service group
    /// (service-lifecycle): the SpatiaLite backend's WAL checkpointer; a networked backend's
    /// connection pool. The backend works without them running (the CLI, tests).
    var backgroundServices: [any Service] { get }
    /// This process's local folder: request bodies are spooled under `temporaryDirectory`
    /// (inside it, so a finished upload is moved into place by a rename) and result files
    /// are published under it.
    var directory: String { get }
    var temporaryDirectory: String { get }
    /// Where attachments, uploads and result files are kept (`BlobStore`): the data folder,
    /// or an object store every process shares.
    var blobs: BlobFiles { get }
    /// Runs `body` unless another process is running a body of the same `name` (then nil):
    /// sweeps that one process at a time should make.
    func unlessAnotherProcessIs<T>(_ name: String, _ body: () throws -> T) throws -> T?
    /// Feature and attachment edits this process committed since it opened the backend (metrics).
    var editsApplied: Int { get }
}

extension SyncBackend {
    /// A consistent snapshot of all services (`CatalogStore.catalog()`).
    public func catalog() throws(StoreError) -> Catalog { try schema.catalog() }

    public func service(named name: String) throws(StoreError) -> StoredService { try schema.service(named: name) }

    public func layer(service name: String, id: Int) throws(StoreError) -> StoredLayer { try schema.layer(service: name, id: id) }
}

extension VersionStore {
    /// A version made without a user: `outpost.name`, the administrators'.
    public func createVersion(service: String, name: String, description: String, access: String) throws -> DataVersion {
        try createVersion(service: service, name: name, description: description, access: access, owner: "outpost")
    }
}
