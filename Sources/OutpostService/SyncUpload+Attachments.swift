import OutpostStorage
import OutpostSync
import OutpostWire

/// A sync's attachment edits, each decided by `SyncRules.uploadAttachment` (last in wins, by
/// GlobalID) against the attachment's record, and carried out by the layer's attachment
/// primitives. Attachment overwrites are not kept in the conflict log.
extension SyncUpload {
    func apply(
        _ attachments: AttachmentEdits, to records: some SyncUploadRecords, in transaction: any SyncUploadTransaction
    ) throws -> (adds: [EditResult], updates: [EditResult], deletes: [EditResult]) {
        var adds: [EditResult] = []
        var updates: [EditResult] = []
        var deletes: [EditResult] = []
        for edit in attachments.adds { adds.append(try transaction.attempt { try uploadAttachment(edit, isAdd: true, to: records) }) }
        for edit in attachments.updates { updates.append(try transaction.attempt { try uploadAttachment(edit, isAdd: false, to: records) }) }
        for id in attachments.deletes { deletes.append(try transaction.attempt { try deleteAttachment(id, from: records) }) }
        return (adds, updates, deletes)
    }

    /// An attachment add or update.
    private func uploadAttachment(_ edit: AttachmentEdit, isAdd: Bool, to records: some SyncUploadRecords) throws -> EditResult {
        let held = try records.read(edit.globalId, .attachment)
        let action = SyncRules.uploadAttachment(
            isAdd ? .add : .update, onto: held.record, carriesParentAndBytes: edit.parentGlobalId != nil && edit.source != nil,
            replicaId: replicaId)
        switch action {
        case .alreadyApplied(let id):
            return EditResult(objectId: id, globalId: edit.globalId)
        case .update, .missing:
            // A missing attachment fails there, as an online update of it would.
            return try records.updateAttachment(edit)
        case .insert, .recreate:
            let result = try records.addAttachment(edit)
            if let recreation = SyncRules.recreation(replacing: held.record) {
                // The attachment keeps its first creation: a replica that had it gets an update.
                try records.recreate(recreation, of: .attachment, replacing: held, id: result.objectId, globalId: edit.globalId)
            }
            return result
        case .delete:
            return try records.deleteAttachment(edit.globalId)
        }
    }

    /// A delete of an attachment that is already gone succeeds (a retry, or deleted on both sides).
    private func deleteAttachment(_ globalId: String, from records: some SyncUploadRecords) throws -> EditResult {
        let held = try records.read(globalId, .attachment)
        switch SyncRules.uploadAttachment(.delete, onto: held.record, carriesParentAndBytes: false, replicaId: replicaId) {
        case .alreadyApplied(let id): return EditResult(objectId: id, globalId: globalId)
        default: return try records.deleteAttachment(globalId)
        }
    }
}
