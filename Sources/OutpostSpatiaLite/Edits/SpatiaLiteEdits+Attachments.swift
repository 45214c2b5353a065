import Foundation
import GRDB
import OutpostStorage
import OutpostWire

/// `addAttachment`, `updateAttachment` and `deleteAttachments` come from `AttachmentEditFrame`;
/// this store answers its look-ups.
extension SpatiaLiteEdits: AttachmentEditFrame {
    public static func sanitizedAttachmentName(_ name: String) -> String { AttachmentName.sanitized(name) }

    func removeDataFiles(_ relativePaths: [String]) { attachmentFiles.remove(relativePaths) }

    public func attachmentLayer(service: String, layer layerId: Int) throws -> StoredLayer {
        let layer = try self.layer(service: service, id: layerId)
        try layer.checkHasAttachments()
        return layer
    }

    public func globalIdOfFeature(_ objectId: Int64, in layer: StoredLayer) throws -> String? {
        try pool.read { db in
            try String.fetchOne(
                db,
                sql:
                    "SELECT \(layer.definition.globalIdField.quotedDatabaseIdentifier) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ?",
                arguments: [objectId])
        }
    }

    public func globalIdOfAttachment(_ attachmentId: Int64, of parentObjectId: Int64, in layer: StoredLayer) throws -> String? {
        let definition = layer.definition
        return try pool.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT a.GLOBALID FROM \(layer.attachmentTable.quotedDatabaseIdentifier) a
                    JOIN \(layer.tableName.quotedDatabaseIdentifier) f ON f.\(definition.globalIdField.quotedDatabaseIdentifier) = a.REL_GLOBALID
                    WHERE a.ATTACHMENTID = ? AND f.\(definition.objectIdField.quotedDatabaseIdentifier) = ?
                    """, arguments: [attachmentId, parentObjectId])
        }
    }
}
