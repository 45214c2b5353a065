import Foundation
import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteFeatures {
    /// The attachments of the given features, one group per existing feature, in id order.
    public func attachmentInfos(layer: StoredLayer, objectIds: [Int64]) throws -> [AttachmentGroup] {
        guard layer.definition.hasAttachments, !objectIds.isEmpty else { return [] }
        let oid = layer.definition.objectIdField.quotedDatabaseIdentifier
        let gid = layer.definition.globalIdField.quotedDatabaseIdentifier
        return try pool.read { db in
            var groups: [AttachmentGroup] = []
            for chunk in stride(from: 0, to: objectIds.count, by: 500).map({ Array(objectIds[$0..<min($0 + 500, objectIds.count)]) }) {
                let parents = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT \(oid), \(gid) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(oid) IN (\(chunk.map(String.init).joined(separator: ","))) ORDER BY \(oid)"
                )
                for parent in parents {
                    let parentGlobalId: String = parent[1]
                    let attachments = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT ATTACHMENTID, GLOBALID, ATT_NAME, CONTENT_TYPE, DATA_SIZE, KEYWORDS
                            FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE REL_GLOBALID = ? ORDER BY ATTACHMENTID
                            """, arguments: [parentGlobalId]
                    ).map {
                        AttachmentInfo(id: $0[0], globalId: $0[1], name: $0[2], contentType: $0[3], size: $0[4], keywords: $0[5])
                    }
                    groups.append(AttachmentGroup(parentObjectId: parent[0], parentGlobalId: parentGlobalId, attachments: attachments))
                }
            }
            return groups
        }
    }

    /// One attachment's content, if it belongs to the given feature: a file (streamed by the
    /// server) or, for rows written before attachment files, the stored bytes.
    public func attachmentContent(
        layer: StoredLayer, objectId: Int64, attachmentId: Int64
    ) throws -> (name: String, contentType: String, content: AttachmentContent)? {
        guard layer.definition.hasAttachments else { return nil }
        let oid = layer.definition.objectIdField.quotedDatabaseIdentifier
        let gid = layer.definition.globalIdField.quotedDatabaseIdentifier
        let directory = self.directory
        return try pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT a.ATT_NAME, a.CONTENT_TYPE, a.DATA_PATH, CASE WHEN a.DATA_PATH IS NULL THEN a.DATA END
                        FROM \(layer.attachmentTable.quotedDatabaseIdentifier) a
                        JOIN \(layer.tableName.quotedDatabaseIdentifier) f ON f.\(gid) = a.REL_GLOBALID
                        WHERE a.ATTACHMENTID = ? AND f.\(oid) = ?
                        """, arguments: [attachmentId, objectId])
            else { return nil }
            let content: AttachmentContent
            if let path: String = row[2] {
                content = .file((directory as NSString).appendingPathComponent(path))
            } else {
                content = .bytes([UInt8](row[3] as Data? ?? Data()))
            }
            return (row[0], row[1], content)
        }
    }
}
