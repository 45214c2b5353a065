import OutpostStorage
import OutpostSync
import OutpostWire

/// A sync's attachment edits on PostgreSQL, each decided by `SyncRules.uploadAttachment` (last
/// in wins, by GlobalID) against the attachment's record read locked, and carried out with the
/// edit session's attachment primitives, as on SpatiaLite.
extension PostgresUploadSession {
    func apply(_ attachments: AttachmentEdits, to layer: StoredLayer) throws -> (adds: [EditResult], updates: [EditResult], deletes: [EditResult]) {
        try editor.flush()
        var adds: [EditResult] = []
        var updates: [EditResult] = []
        var deletes: [EditResult] = []
        for edit in attachments.adds { adds.append(try editor.attempt { try uploadAttachment(edit, isAdd: true, layer: layer) }) }
        for edit in attachments.updates { updates.append(try editor.attempt { try uploadAttachment(edit, isAdd: false, layer: layer) }) }
        for id in attachments.deletes { deletes.append(try editor.attempt { try deleteAttachment(id, layer: layer) }) }
        return (adds, updates, deletes)
    }

    private func uploadAttachment(_ edit: AttachmentEdit, isAdd: Bool, layer: StoredLayer) throws -> EditResult {
        let held = try heldAttachment(edit.globalId, layer: layer)
        let action = SyncRules.uploadAttachment(
            isAdd ? .add : .update, onto: record(of: held), carriesParentAndBytes: edit.parentGlobalId != nil && edit.source != nil,
            replicaId: replicaId)
        switch action {
        case .alreadyApplied(let id):
            return EditResult(objectId: id, globalId: edit.globalId)
        case .update, .missing:
            // A missing attachment fails there, as an online update of it would.
            return try editor.updateAttachment(edit, in: layer)
        case .insert, .recreate:
            let result = try editor.addAttachment(edit, to: layer)
            if case .tombstone(_, let created, _, _, let createdBy) = held, let id = result.objectId {
                // The attachment keeps its first creation: a replica that had it gets an update.
                try connection.query(
                    """
                    UPDATE \(identifier: layer.attachmentTable) SET outpost_created_xid = \(created), outpost_created_by = \(createdBy)
                    WHERE "ATTACHMENTID" = \(id)
                    """)
                try connection.query(
                    """
                    DELETE FROM outpost_tombstones WHERE service = \(layer.serviceName) AND layer_id = \(layer.definition.id)
                        AND kind = 'attachment' AND global_id = \(edit.globalId)
                    """)
            }
            return result
        case .delete:
            return try editor.deleteAttachment(edit.globalId, from: layer)
        }
    }

    /// A delete of an attachment that is already gone succeeds (a retry, or deleted on both sides).
    private func deleteAttachment(_ globalId: String, layer: StoredLayer) throws -> EditResult {
        let held = try heldAttachment(globalId, layer: layer)
        switch SyncRules.uploadAttachment(.delete, onto: record(of: held), carriesParentAndBytes: false, replicaId: replicaId) {
        case .alreadyApplied(let id): return EditResult(objectId: id, globalId: globalId)
        default: return try editor.deleteAttachment(globalId, from: layer)
        }
    }

    /// The record the rules read, the stamps read against the replica's tick.
    private func record(of held: Held) -> ServerRecord {
        switch held {
        case .absent: .absent
        case .row(let id, let created, let changed, let writer, _):
            since.row(objectId: id, createdXid: created, changedXid: changed, lastWriter: writer)
        case .tombstone(let id, let created, let deleted, let by, _):
            since.tombstone(objectId: id, createdXid: created, deletedXid: deleted, deletedBy: by)
        }
    }

    /// What the server holds for an attachment's GlobalID (its ATTACHMENTID as the object id),
    /// locked until the transaction ends.
    private func heldAttachment(_ globalId: String, layer: StoredLayer) throws -> Held {
        try held(
            globalId, kind: "attachment", layer: layer,
            row: """
                SELECT "ATTACHMENTID", outpost_created_xid, outpost_xid, outpost_replica, outpost_created_by
                FROM \(identifier: layer.attachmentTable) WHERE "GLOBALID" = \(globalId) FOR UPDATE
                """)
    }
}
