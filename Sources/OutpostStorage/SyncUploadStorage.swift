import OutpostSync
import OutpostWire

/// One sync upload's write transaction (`SyncStore.runSyncUpload`): what differs between
/// databases, and nothing more. The upload engine (`SyncUpload` in OutpostService) owns the
/// receipt and its replay, the layer loop, every decision (`SyncRules`, `VersionReconcile`),
/// the `rollbackOnFailure` rule and the outcome; a backend reads records and carries out what
/// was decided.
///
/// Contract: everything read and written through it is one transaction, stamped with one
/// generation and the replica (`docs/architecture.md`, "Change tracking"), and uploads of one
/// replica run one after the other, so a retry finds the first's receipt (SpatiaLite: its one
/// writer; PostgreSQL: the replica's row locked first).
public protocol SyncUploadTransaction {
    /// The layers of the plan's `uploadedLayers`, in that order, each found and able to take
    /// its edits (capabilities, attachments).
    var layers: [StoredLayer] { get }
    /// The results of the replica's last upload when it carried `fingerprint`, else nil.
    func receipt(fingerprint: [UInt8]) throws -> [LayerEditResults]?
    /// The records of `layer`, one of `layers`, for the edits of `layerPlan`, read against
    /// the generation they were made at (`layerPlan.since`). `globalIds` gives the GlobalIDs
    /// the layer's feature edits name, for a backend that reads their records up front; a
    /// backend that does not never calls it.
    func records(of layer: StoredLayer, for layerPlan: SyncLayerPlan, globalIds: () -> [String]) throws -> any SyncUploadRecords
    /// Runs one edit. What it throws as the edit's own failure (`SyncEditFailure`, or the
    /// backend's) becomes its result and what it wrote is undone; any other error ends the
    /// transaction. With `rollbackOnFailure` a backend may leave a failed edit's writes in
    /// place: the engine then rolls the whole transaction back.
    func attempt(_ edit: () throws -> EditResult) throws -> EditResult
    /// Saves the upload's receipt (`fingerprint` and `results`, what `receipt` answers a retry)
    /// and returns the generation the transaction is stamped with. Called once, last.
    func saveReceipt(fingerprint: [UInt8], results: [LayerEditResults]) throws -> Int64
    /// The conflict rows this transaction wrote, `generation` being its stamp (the rows of an
    /// edit undone went with it).
    func conflictsRecorded(generation: Int64) throws -> Int
}

/// One layer's records by GlobalID in a sync upload, and the writes an upload makes over them
/// (with editor tracking, change tracking and tombstones, as online edits do).
///
/// Contract: a record read is the server's current one and stays so until the transaction
/// ends (PostgreSQL: read `FOR UPDATE`), but for a GlobalID read absent, which another writer
/// may still insert (`insert`); every write is the layer's ordinary edit primitive,
/// stamped with the transaction's generation and the replica. Feature edits come first, then
/// `endFeatures`, then attachment edits.
public protocol SyncUploadRecords {
    associatedtype Held: HeldRecord
    associatedtype FieldStates: VersionedFieldStates

    var layer: StoredLayer { get }
    /// The generation the records' stamps are read against: the `since` of `SyncRules`.
    var since: Int64 { get }

    /// What the server holds for a feature's or an attachment's GlobalID.
    func read(_ globalId: String, _ kind: SyncRecordKind) throws -> Held
    /// Adds a feature over `held` (absent, or a tombstone being resurrected). Throws
    /// `GlobalIDInsertedMeanwhile`, having written nothing, when `held` was absent and another
    /// writer has inserted the GlobalID since: read it again and decide again.
    func insert(_ feature: EditFeature, globalId: String, over held: Held) throws -> EditResult
    /// Updates the live feature `held` with the attributes and geometry `feature` sends.
    func update(_ feature: EditFeature, of held: Held, globalId: String) throws -> EditResult
    /// Records `writer` as the last writer of feature `objectId` (a versioned merge).
    func setLastWriter(_ writer: String, of objectId: Int64) throws
    /// Deletes the live feature `held` (its attachments with it), leaving tombstones.
    func delete(_ held: Held, globalId: String) throws -> EditResult
    /// Carries out a `Recreation`: the record re-created as `id` keeps the creation of the
    /// tombstone `held` (the recreation's `createdGeneration` is that stamp as the rules read
    /// it), and the tombstone goes when `removesTombstone`.
    func recreate(_ recreation: Recreation, of kind: SyncRecordKind, replacing held: Held, id: Int64?, globalId: String) throws
    /// The states of what `update` compares, for feature `objectId`: its fields, and the
    /// geometry (under `StoredLayer.geometryColumn`) when the layer is spatial and `feature`
    /// carries one. A geometry the layer cannot store fails the edit.
    func fieldStates(_ update: VersionedUpdate, of feature: EditFeature, objectId: Int64, globalId: String) throws -> FieldStates
    /// Copies what an edit is about to overwrite into the conflict log (`SyncConflict`): the
    /// live feature as stored, or the delete it undoes; `fields` for a reconciled update.
    func recordConflict(_ operation: UploadOperation, over held: Held, globalId: String, fields: JSONValue?) throws
    /// The feature edits are over: anything held back is written now.
    func endFeatures() throws
    func addAttachment(_ edit: AttachmentEdit) throws -> EditResult
    /// Fails when the server holds no attachment of that GlobalID.
    func updateAttachment(_ edit: AttachmentEdit) throws -> EditResult
    func deleteAttachment(_ globalId: String) throws -> EditResult
}

/// What an upload read for one GlobalID: the record the rules decide on; the conforming type
/// carries whatever its backend needs to write over it.
public protocol HeldRecord {
    var record: ServerRecord { get }
}

/// The three states of the fields a versioned update writes (docs/sync-semantics.md, Versioned
/// data), compared the backend's way, for `VersionReconcile.reconcile`.
public protocol VersionedFieldStates {
    associatedtype Value: Equatable
    /// The feature as the replica's generation knew it; nil when its history does not reach
    /// back so far.
    var base: [String: Value]? { get }
    /// The feature as DEFAULT holds it now.
    var current: [String: Value] { get }
    /// The values the edit sends, in its order.
    var edit: [(String, Value)] { get }
    /// A field's value in one state as the conflict log keeps it (a geometry as Esri JSON;
    /// null when unknown).
    func json(_ field: String, in state: VersionedFieldState) -> JSONValue
}

public enum VersionedFieldState: Sendable {
    case base, current, edit
}

/// What a GlobalID names in an upload, as tombstones name it.
public enum SyncRecordKind: String, Sendable {
    case feature, attachment
}

/// An uploaded edit's own failure, thrown inside `SyncUploadTransaction.attempt`: it becomes
/// the edit's result.
public struct SyncEditFailure: Error, Sendable, Equatable {
    public var error: EditError
    public var objectId: Int64?
    public var globalId: String?

    public init(error: EditError, objectId: Int64? = nil, globalId: String? = nil) {
        self.error = error
        self.objectId = objectId
        self.globalId = globalId
    }
}

/// Another writer inserted a GlobalID after an upload read it absent
/// (`SyncUploadRecords.insert`).
public struct GlobalIDInsertedMeanwhile: Error, Sendable, Equatable {
    public var globalId: String

    public init(globalId: String) { self.globalId = globalId }
}

extension SyncPlan {
    /// The uploading layers that carry edits, in the plan's order: the layers an upload
    /// applies.
    public var uploadedLayers: [SyncLayerPlan] { uploadingLayers.filter { $0.edits != nil } }

    /// How an upload's edits are applied: by GlobalID, with the request's `rollbackOnFailure`.
    public var uploadOptions: EditOptions { EditOptions(rollbackOnFailure: rollbackOnFailure, useGlobalIds: true) }

    /// Who makes an upload's edits: the syncing user (`editor`, nil when anonymous) through
    /// the replica.
    public func uploadContext(editor: String?) -> EditContext { EditContext(editor: editor, replicaId: replica.id) }
}
