import Foundation
import OutpostStorage
import OutpostWire

/// Attachments on PostgreSQL: rows in each layer's `<table>__attach`, bytes in the blob
/// store under the row's `BLOB_KEY` (`attachments/<id>.bin`).
extension PostgresFeatures: AttachmentReading {
    /// The attachments of the given features, one group per existing feature, in id order.
    public func attachmentInfos(layer: StoredLayer, objectIds: [Int64]) throws -> [AttachmentGroup] {
        guard layer.definition.hasAttachments, !objectIds.isEmpty else { return [] }
        let definition = layer.definition
        let rows = try pool.query(
            """
            SELECT f.\(identifier: definition.objectIdField), f.\(identifier: definition.globalIdField),
                a."ATTACHMENTID", a."GLOBALID", a."ATT_NAME", a."CONTENT_TYPE", a."DATA_SIZE", a."KEYWORDS"
            FROM \(identifier: layer.tableName) f LEFT JOIN \(identifier: layer.attachmentTable) a ON a."REL_GLOBALID" = f.\(identifier: definition.globalIdField)
            WHERE f.\(identifier: definition.objectIdField) = ANY(\(PostgresInt64Array(objectIds)))
            ORDER BY f.\(identifier: definition.objectIdField), a."ATTACHMENTID"
            """
        ).rows
        var groups: [AttachmentGroup] = []
        for row in rows {
            let objectId = try row.required(0, row.int64)
            if groups.last?.parentObjectId != objectId {
                groups.append(AttachmentGroup(parentObjectId: objectId, parentGlobalId: try row.required(1, row.string), attachments: []))
            }
            guard let id = try row.int64(2) else { continue }
            groups[groups.count - 1].attachments.append(
                AttachmentInfo(
                    id: id, globalId: try row.required(3, row.string), name: try row.required(4, row.string),
                    contentType: try row.required(5, row.string), size: try row.required(6, row.int64), keywords: row.string(7) ?? ""))
        }
        return groups
    }

    /// One attachment's bytes, if it belongs to the given feature.
    public func attachmentContent(
        layer: StoredLayer, objectId: Int64, attachmentId: Int64
    ) throws -> (name: String, contentType: String, content: AttachmentContent)? {
        guard layer.definition.hasAttachments else { return nil }
        let definition = layer.definition
        guard
            let row = try pool.query(
                """
                SELECT a."ATT_NAME", a."CONTENT_TYPE", a."BLOB_KEY" FROM \(identifier: layer.attachmentTable) a
                JOIN \(identifier: layer.tableName) f ON f.\(identifier: definition.globalIdField) = a."REL_GLOBALID"
                WHERE a."ATTACHMENTID" = \(attachmentId) AND f.\(identifier: definition.objectIdField) = \(objectId)
                """
            ).first
        else { return nil }
        let key = try row.required(2, row.string)
        try BlobKey.check(key)
        return (try row.required(0, row.string), try row.required(1, row.string), .file(try files.file(key)))
    }
}

/// `addAttachment`, `updateAttachment` and `deleteAttachments` come from `AttachmentEditFrame`;
/// the database answers its look-ups.
extension PostgresEdits: AttachmentEditFrame {
    public func attachmentLayer(service: String, layer layerId: Int) throws -> StoredLayer {
        let layer = try held.load().existingLayer(service: service, id: layerId)
        try layer.checkHasAttachments()
        return layer
    }

    public func globalIdOfFeature(_ objectId: Int64, in layer: StoredLayer) throws -> String? {
        let definition = layer.definition
        return try pool.query(
            "SELECT \(identifier: definition.globalIdField) FROM \(identifier: layer.tableName) WHERE \(identifier: definition.objectIdField) = \(objectId)"
        ).first?.string(0)
    }

    public func globalIdOfAttachment(_ attachmentId: Int64, of parentObjectId: Int64, in layer: StoredLayer) throws -> String? {
        let definition = layer.definition
        return try pool.query(
            """
            SELECT a."GLOBALID" FROM \(identifier: layer.attachmentTable) a
            JOIN \(identifier: layer.tableName) f ON f.\(identifier: definition.globalIdField) = a."REL_GLOBALID"
            WHERE a."ATTACHMENTID" = \(attachmentId) AND f.\(identifier: definition.objectIdField) = \(parentObjectId)
            """
        ).first?.string(0)
    }
}
