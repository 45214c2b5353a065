import Foundation
import GRDB
import OutpostGeoPackage
import OutpostWire

/// The local half of a sync: what to upload, and applying the server's download delta.
extension Geodatabase {
    /// The local changes to upload, netted per GlobalID, and the last change-log row they
    /// cover (the rows removed once the server has acknowledged them).
    func pendingUpload() throws -> (edits: [LayerEdits], throughChangeId: Int64) {
        let changes: ReplicaChanges
        do { changes = try ReplicaChanges.read(path) } catch { throw ClientError.geodatabase(error.description) }
        let edits = changes.layers.map(\.edits).filter { $0.count > 0 || $0.attachments != nil }
        return (edits, changes.lastChangeId)
    }

    /// What applying a download delta did.
    public struct AppliedDelta: Sendable, Equatable {
        /// Server changes written (features and attachments).
        public var changesApplied: Int
        /// Server changes skipped because the feature was edited here after the upload was
        /// taken: the local edit is later and goes up with the next sync (last in wins).
        public var changesDeferred: Int
        /// Local adds renumbered to the OBJECTIDs the server assigned.
        public var objectIdsAssigned: Int
        /// Uploaded edits the server refused: they stay in the change log.
        public var failedEdits: [DeltaEditResult]
        /// Fields the service's layers have and this file's tables lack (`SchemaChange`).
        public var schemaChanges: [SchemaChange] = []
    }

    /// Imports a download delta of this replica made elsewhere — a packager's scheduled update
    /// (Runtime's `importDelta`): the server's changes written, the generations taken, the
    /// local change log left as it is. Either all of it happens or none.
    @discardableResult
    public func importDelta(at deltaPath: String) throws -> AppliedDelta {
        try applyDelta(at: deltaPath, throughChangeId: 0, uploadedLayers: [])
    }

    /// Applies a download delta in one transaction (`ReplicaDeltaMerge`): assigns the server's
    /// OBJECTIDs to acknowledged adds, writes the server's changes (none is logged as a local
    /// change), takes the delta's generations, and removes the change-log rows of
    /// `uploadedLayers` through `throughChangeId` that the server accepted. Either all of it
    /// happens or none.
    func applyDelta(at deltaPath: String, throughChangeId: Int64, uploadedLayers: Set<Int>) throws -> AppliedDelta {
        let info = try self.info()
        let tables = try featureTables().map { table in
            ReplicaDeltaMerge.Table(
                layerId: table.layerId, tableName: table.tableName, objectIdField: table.objectIdField, globalIdField: table.globalIdField,
                attachmentTable: table.attachmentTable)
        }
        let merge = ReplicaDeltaMerge(replicaId: info.replicaId, tables: tables)
        let outcome: ReplicaDeltaMerge.Outcome
        do {
            outcome = try queue.inDatabase { db in
                try merge.merge(
                    deltaAt: deltaPath, into: db, throughChangeId: throughChangeId, uploadedLayers: uploadedLayers, now: clock.milliseconds())
            }
        } catch let failure as ReplicaDeltaMerge.Failure {
            throw ClientError(failure)
        }
        return AppliedDelta(
            changesApplied: outcome.changesApplied, changesDeferred: outcome.changesDeferred, objectIdsAssigned: outcome.objectIdsAssigned,
            failedEdits: outcome.failedEdits,
            schemaChanges: outcome.newFields.sorted { $0.key < $1.key }.map { SchemaChange(layerId: $0.key, addedFields: $0.value) })
    }

    /// Records a new replica id and name (after registering a copied file).
    func setReplica(id: String, name: String) throws {
        try queue.inDatabase { db in
            try db.execute(sql: "UPDATE outpost_sync_replica SET replica_id = ?, replica_name = ?", arguments: [id, name])
        }
    }
}

extension ClientError {
    /// A delta the merge could not take: the server answered something this library does not understand.
    init(_ failure: ReplicaDeltaMerge.Failure) {
        switch failure {
        case .unreadableDelta(let reason): self = .invalidResponse("the sync's delta: \(reason)")
        case .notADownloadDelta: self = .invalidResponse("the sync's answer is not a download delta")
        case .otherReplica, .missingRow: self = .invalidResponse(failure.description)
        }
    }
}
