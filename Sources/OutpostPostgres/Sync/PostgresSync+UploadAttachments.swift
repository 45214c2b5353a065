import OutpostStorage
import OutpostSync
import OutpostWire

/// A sync's attachment edits on PostgreSQL, carried out with the edit session's attachment
/// primitives (their statements are never held back: `endFeatures` sent the feature writes
/// first, so an attachment sees the feature the same upload added), and re-creations.
extension PostgresUploadRecords {
    func addAttachment(_ edit: AttachmentEdit) throws -> EditResult { try editor.addAttachment(edit, to: layer) }

    func updateAttachment(_ edit: AttachmentEdit) throws -> EditResult { try editor.updateAttachment(edit, in: layer) }

    func deleteAttachment(_ globalId: String) throws -> EditResult { try editor.deleteAttachment(globalId, from: layer) }

    /// The re-created record keeps the tombstone's raw creation stamp and creator: a replica
    /// that had it gets an update. A feature's statements go with the held writes, an
    /// attachment's at once.
    func recreate(_ recreation: Recreation, of kind: SyncRecordKind, replacing held: Held, id: Int64?, globalId: String) throws {
        guard case .tombstone(_, let created, _, _, let createdBy) = held.stamped else { return }
        let tombstone: PostgresQuery = """
            DELETE FROM outpost_tombstones WHERE service = \(layer.serviceName) AND layer_id = \(layer.definition.id)
                AND kind = \(kind.rawValue) AND global_id = \(globalId)
            """
        switch kind {
        case .feature:
            if let id {
                try editor.write(
                    PostgresQuery(
                        unsafeSQL:
                            "UPDATE \(PostgresQuery.quoted(identifier: layer.tableName)) SET outpost_created_xid = $1, outpost_created_by = $2 WHERE \(PostgresQuery.quoted(identifier: layer.definition.objectIdField)) = $3",
                        binds: [created.postgresValue, createdBy.postgresValue, id.postgresValue]))
            }
            if recreation.removesTombstone { try editor.write(tombstone) }
        case .attachment:
            if let id {
                try connection.query(
                    """
                    UPDATE \(identifier: layer.attachmentTable) SET outpost_created_xid = \(created), outpost_created_by = \(createdBy)
                    WHERE "ATTACHMENTID" = \(id)
                    """)
            }
            if recreation.removesTombstone { try connection.query(tombstone) }
        }
    }
}
