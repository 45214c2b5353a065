import OutpostStorage
import OutpostWire

/// Attachment edits on PostgreSQL, with the SpatiaLite `EditSession`'s rules (the same
/// `EditResult`s for the same edits): rows in the layer's `<table>__attach`, bytes in the data
/// folder under the row's `BLOB_KEY` (`AttachmentFiles`), deletes leaving tombstones of kind
/// `attachment` stamped like rows. Attachment statements are never held back for a pipeline:
/// held feature writes are sent first, so they see the features the same request wrote.
extension PostgresEditSession {
    func apply(_ attachments: AttachmentEdits, to layer: StoredLayer) throws -> (adds: [EditResult], updates: [EditResult], deletes: [EditResult]) {
        try flush()
        var adds: [EditResult] = []
        var updates: [EditResult] = []
        var deletes: [EditResult] = []
        for edit in attachments.adds { adds.append(try attempt { try addAttachment(edit, to: layer) }) }
        for edit in attachments.updates { updates.append(try attempt { try updateAttachment(edit, in: layer) }) }
        for id in attachments.deletes { deletes.append(try attempt { try deleteAttachment(id, from: layer) }) }
        return (adds, updates, deletes)
    }

    private func attachTable(_ layer: StoredLayer) -> String { PostgresQuery.quoted(identifier: layer.attachmentTable) }

    func addAttachment(_ edit: AttachmentEdit, to layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        guard let parent = edit.parentGlobalId, let file = preparedFiles[edit.globalId] else {
            throw EditFailure(error: .invalid("An attachment add needs parentGlobalId and data or uploadId."), globalId: edit.globalId)
        }
        // The parent is locked while the attachment is added: a delete of it waits, then takes
        // this attachment with it.
        guard
            try connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT 1 FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(PostgresQuery.quoted(identifier: definition.globalIdField)) = $1 FOR SHARE",
                    binds: [.text(parent)])
            ).first != nil
        else {
            throw EditFailure(error: .missing("parent feature \(parent)"), globalId: edit.globalId)
        }
        let name = AttachmentName.sanitized(edit.name ?? file.uploadName ?? "attachment")
        let insert = PostgresQuery(
            unsafeSQL: """
                INSERT INTO \(attachTable(layer)) ("GLOBALID", "REL_GLOBALID", "CONTENT_TYPE", "ATT_NAME", "DATA_SIZE", "KEYWORDS", "BLOB_KEY",
                    outpost_replica, outpost_created_by)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING "ATTACHMENTID"
                """,
            binds: [
                .text(edit.globalId), .text(parent), .text(edit.contentType ?? "application/octet-stream"), .text(name),
                Int64(file.size).postgresValue, .text(edit.keywords ?? ""), .text(file.path), context.replicaId.postgresValue,
            ])
        let id: Int64?
        do {
            id = try connection.query(insert).first?.int64(0)
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw EditFailure(error: .duplicateGlobalID(edit.globalId), globalId: edit.globalId)
        }
        fileChanges.registered.insert(file.path)
        return EditResult(objectId: id, globalId: edit.globalId)
    }

    func updateAttachment(_ edit: AttachmentEdit, in layer: StoredLayer) throws -> EditResult {
        guard
            let row = try connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \"ATTACHMENTID\", \"BLOB_KEY\" FROM \(attachTable(layer)) WHERE \"GLOBALID\" = $1 FOR UPDATE",
                    binds: [.text(edit.globalId)])
            ).first
        else {
            throw EditFailure(error: .missing("attachment \(edit.globalId)"), globalId: edit.globalId)
        }
        let id = try row.required(0, row.int64)
        var binds: [PostgresValue] = [context.replicaId.postgresValue]
        var assignments = ["outpost_replica = $1"]
        func set(_ column: String, _ value: PostgresValue) {
            binds.append(value)
            assignments.append("\"\(column)\" = $\(binds.count)")
        }
        if let name = edit.name { set("ATT_NAME", .text(AttachmentName.sanitized(name))) }
        if let type = edit.contentType { set("CONTENT_TYPE", .text(type)) }
        if let keywords = edit.keywords { set("KEYWORDS", .text(keywords)) }
        let file = preparedFiles[edit.globalId]
        if let file {
            set("BLOB_KEY", .text(file.path))
            set("DATA_SIZE", Int64(file.size).postgresValue)
        }
        binds.append(id.postgresValue)
        try connection.query(
            PostgresQuery(
                unsafeSQL: "UPDATE \(attachTable(layer)) SET \(assignments.joined(separator: ", ")) WHERE \"ATTACHMENTID\" = $\(binds.count)",
                binds: binds))
        // Only once the row names the new file: keep it, and let the old one go at commit.
        if let file {
            fileChanges.registered.insert(file.path)
            if let old = row.string(1) { fileChanges.removedAtCommit.append(old) }
        }
        return EditResult(objectId: id, globalId: edit.globalId)
    }

    func deleteAttachment(_ globalId: String, from layer: StoredLayer) throws -> EditResult {
        guard let row = try deleteAttachments(layer, where: "\"GLOBALID\" = $4", binds: [.text(globalId)]).first else {
            throw EditFailure(error: .missing("attachment \(globalId)"), globalId: globalId)
        }
        return EditResult(objectId: row.id, globalId: globalId)
    }

    /// The attachments of a feature being deleted go with it, each leaving its tombstone.
    func deleteAttachments(ofFeature globalId: String, in layer: StoredLayer) throws {
        guard layer.definition.hasAttachments else { return }
        try flush()
        _ = try deleteAttachments(layer, where: "\"REL_GLOBALID\" = $4", binds: [.text(globalId)])
    }

    /// Deletes the attachment rows matching `condition` (its parameters from `$4`) and writes
    /// their tombstones in one statement; their files go at commit.
    private func deleteAttachments(_ layer: StoredLayer, where condition: String, binds: [PostgresValue]) throws -> [(id: Int64, key: String)] {
        let sql = """
            WITH gone AS (DELETE FROM \(attachTable(layer)) WHERE \(condition)
                RETURNING "ATTACHMENTID", "GLOBALID", "REL_GLOBALID", "BLOB_KEY", outpost_created_xid, outpost_created_by),
            stones AS (
                INSERT INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id, created_xid, created_by, replica_id)
                SELECT $1, $2, 'attachment', "GLOBALID", "ATTACHMENTID", "REL_GLOBALID", outpost_created_xid, outpost_created_by, $3 FROM gone
                ON CONFLICT (service, layer_id, kind, global_id) DO UPDATE SET object_id = EXCLUDED.object_id,
                    parent_global_id = EXCLUDED.parent_global_id, created_xid = EXCLUDED.created_xid, created_by = EXCLUDED.created_by,
                    outpost_xid = \(GenerationTicks.stamp), replica_id = EXCLUDED.replica_id)
            SELECT "ATTACHMENTID", "BLOB_KEY" FROM gone ORDER BY "ATTACHMENTID"
            """
        let rows = try connection.query(
            PostgresQuery(
                unsafeSQL: sql,
                binds: [.text(layer.serviceName), layer.definition.id.postgresValue, context.replicaId.postgresValue] + binds)
        ).rows
        let deleted = try rows.map { (id: try $0.required(0, $0.int64), key: try $0.required(1, $0.string)) }
        fileChanges.removedAtCommit += deleted.map(\.key)
        return deleted
    }
}
