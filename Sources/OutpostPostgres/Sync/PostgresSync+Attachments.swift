import Foundation
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

/// Attachments in replicas on PostgreSQL, as on SpatiaLite: an export takes the attachments of
/// the features it takes; a sync sends the attachments changed since the replica's tick of
/// features in its filter (`SyncRules.downloadAttachment`), then their deletes. Bytes are read
/// from the data folder only when written out.
extension PostgresSync {
    /// The columns `attachmentRecord` reads, over the attachment table `a` and its feature `t`.
    static func attachmentColumns(_ layer: StoredLayer) -> String {
        """
        a."ATTACHMENTID", a."GLOBALID", a."REL_GLOBALID", t.\(PostgresQuery.quoted(identifier: layer.definition.objectIdField)), a."ATT_NAME",
        a."CONTENT_TYPE", a."KEYWORDS", a."DATA_SIZE", a."BLOB_KEY"
        """
    }

    static func attachmentRecord(_ row: PostgresRow, files: AttachmentFiles) throws -> AttachmentRecord {
        let key = try row.required(8, row.string)
        try BlobKey.check(key)
        return AttachmentRecord(
            id: try row.required(0, row.int64), globalId: try row.required(1, row.string), parentGlobalId: try row.required(2, row.string),
            parentObjectId: try row.required(3, row.int64), name: try row.required(4, row.string), contentType: try row.required(5, row.string),
            keywords: row.string(6) ?? "", size: try row.required(7, row.int64), content: .file(try files.file(key)))
    }

    /// Calls `body` with the attachments of the selected features, in attachment id order.
    static func forEachAttachment(
        _ selection: Selection, files: AttachmentFiles, connection: PostgresConnection, _ body: (AttachmentRecord) throws -> Void
    ) throws {
        let layer = selection.layer
        let sql = """
            SELECT \(attachmentColumns(layer)) FROM \(PostgresQuery.quoted(identifier: layer.attachmentTable)) a
            JOIN \(PostgresQuery.quoted(identifier: layer.tableName)) t ON t.\(PostgresQuery.quoted(identifier: layer.definition.globalIdField)) = a."REL_GLOBALID"
            WHERE \(selection.condition) ORDER BY a."ATTACHMENTID"
            """
        try connection.forEachRow(PostgresQuery(questionMarks: sql, binds: selection.binds)) { row in
            try body(try attachmentRecord(row, files: files))
        }
    }
}

extension AttachmentRecord {
    /// Writes the attachment into a replica file or delta being written, its bytes read now.
    func write(to writer: ReplicaLayerWriter, logging operation: DeltaOperation? = nil) throws {
        try writer.insertAttachment(
            attachmentId: id, globalId: globalId, parentGlobalId: parentGlobalId, name: name, contentType: contentType, keywords: keywords,
            data: try content.data(), logging: operation)
    }
}

extension PostgresChangeReader {
    /// Calls `body` with the attachments to send as `pass`: changed since the tick, not by this
    /// replica (attachments have no fields the server writes, so they are never echoed), of
    /// features in the filter, each decided by `SyncRules.downloadAttachment`.
    func forEachAttachment(
        _ pass: DownloadChange, files: AttachmentFiles, connection: PostgresConnection, _ body: (AttachmentRecord) throws -> Void
    ) throws {
        let layer = selection.layer
        var binds = selection.binds
        var condition = "(\(selection.condition)) AND \(unseen("a.outpost_xid", binds: &binds))"
        condition += " AND a.outpost_replica IS DISTINCT FROM ?"
        binds.append(.text(replica.id))
        let sql = """
            SELECT \(PostgresSync.attachmentColumns(layer)), a.outpost_created_xid, a.outpost_xid, a.outpost_replica, a.outpost_created_by
            FROM \(PostgresQuery.quoted(identifier: layer.attachmentTable)) a
            JOIN \(PostgresQuery.quoted(identifier: layer.tableName)) t ON t.\(PostgresQuery.quoted(identifier: layer.definition.globalIdField)) = a."REL_GLOBALID"
            WHERE \(condition) ORDER BY a."ATTACHMENTID"
            """
        try connection.forEachRow(PostgresQuery(questionMarks: sql, binds: binds)) { row in
            let record = since.row(
                objectId: try row.required(0, row.int64), createdXid: try row.required(9, row.int64), changedXid: try row.required(10, row.int64),
                lastWriter: row.string(11))
            let change = SyncRules.downloadAttachment(
                record, parentInFilter: true, since: TransactionSnapshot.replicaGeneration, replicaId: replica.id,
                createdByReplica: row.string(12) == replica.id)
            if change == pass { try body(try PostgresSync.attachmentRecord(row, files: files)) }
        }
    }

    /// The attachments deleted since the tick that reach the replica as deletes.
    func deletedAttachments(connection: PostgresConnection) throws -> [Deleted] {
        try tombstones(kind: "attachment", connection: connection)
    }
}
