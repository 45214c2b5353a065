import Foundation
import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteEdits {
    public static func sanitizedAttachmentName(_ name: String) -> String { AttachmentName.sanitized(name) }

    /// Moves a spooled file into `attachments/` and returns its path relative to the data folder.
    func adoptAttachmentFile(_ source: String) throws -> String {
        try FileManager.default.createDirectory(atPath: attachmentsDirectory, withIntermediateDirectories: true)
        let relative = "attachments/\(UUID().uuidString.lowercased()).bin"
        try FileManager.default.moveItem(atPath: source, toPath: (directory as NSString).appendingPathComponent(relative))
        return relative
    }

    func removeDataFiles(_ relativePaths: [String]) {
        for path in relativePaths { try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(path)) }
    }

    private func attachmentLayer(service: String, layer layerId: Int) throws -> StoredLayer {
        let layer = try self.layer(service: service, id: layerId)
        guard layer.definition.hasAttachments else {
            throw ArcGISError(
                kind: .unsupported, message: "Unable to complete operation.",
                details: ["Layer \(layerId) does not have attachments."])
        }
        return layer
    }

    /// Adds an attachment to a feature (`addAttachment`): an attachment edit of `applyEdits`,
    /// so it is written, stamped and cleaned up by the same code as every other edit.
    public func addAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, input: AttachmentInput,
        context: EditContext = EditContext()
    ) throws -> EditResult {
        let layer = try attachmentLayer(service: service, layer: layerId)
        defer { try? FileManager.default.removeItem(atPath: input.sourcePath) }
        var globalId = GlobalID.make()
        if let given = input.globalId {
            guard let normalized = GlobalID.normalize(given) else {
                return EditResult(objectId: nil, globalId: nil, error: .invalid("'\(given)' is not a GlobalID."))
            }
            globalId = normalized
        }
        guard
            let parent = try pool.read({ db in
                try String.fetchOne(
                    db,
                    sql:
                        "SELECT \(layer.definition.globalIdField.quotedDatabaseIdentifier) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ?",
                    arguments: [parentObjectId])
            })
        else {
            return EditResult(objectId: nil, globalId: globalId, error: .missing("\(layer.definition.objectIdField) \(parentObjectId)"))
        }
        let edit = AttachmentEdit(
            globalId: globalId, parentGlobalId: parent, name: input.name, contentType: input.contentType,
            keywords: input.keywords, source: nil)
        let outcome = try applyEdits(
            service: service, edits: [LayerEdits(layerId: layerId, attachments: AttachmentEdits(adds: [edit]))],
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true), context: context,
            files: [globalId: (input.sourcePath, input.size)])
        return outcome.layers[0].attachmentResults?.adds.first ?? EditResult(objectId: nil, globalId: globalId, error: .invalid("No result."))
    }

    /// Replaces an attachment's bytes, name and type (`updateAttachment`); its GlobalID stays.
    public func updateAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentId: Int64,
        input: AttachmentInput, context: EditContext = EditContext()
    ) throws -> EditResult {
        let layer = try attachmentLayer(service: service, layer: layerId)
        defer { try? FileManager.default.removeItem(atPath: input.sourcePath) }
        let globalId: String
        do {
            globalId = try pool.read { db in
                try Self.attachmentGlobalID(layer: layer, parentObjectId: parentObjectId, attachmentId: attachmentId, db: db)
            }
        } catch let error as EditError {
            return EditResult(objectId: attachmentId, globalId: nil, error: error)
        }
        let edit = AttachmentEdit(
            globalId: globalId, parentGlobalId: nil, name: input.name, contentType: input.contentType,
            keywords: input.keywords.isEmpty ? nil : input.keywords, source: nil)
        let outcome = try applyEdits(
            service: service, edits: [LayerEdits(layerId: layerId, attachments: AttachmentEdits(updates: [edit]))],
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true), context: context,
            files: [globalId: (input.sourcePath, input.size)])
        return outcome.layers[0].attachmentResults?.updates.first ?? EditResult(objectId: attachmentId, globalId: nil, error: .invalid("No result."))
    }

    /// Deletes attachments of one feature (`deleteAttachments`), leaving tombstones.
    public func deleteAttachments(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentIds: [Int64],
        rollbackOnFailure: Bool, context: EditContext = EditContext()
    ) throws -> [EditResult] {
        let layer = try attachmentLayer(service: service, layer: layerId)
        // Resolve ids to GlobalIDs; ids that are not this feature's fail here, in order.
        var keys: [(id: Int64, globalId: String?)] = []
        for id in attachmentIds {
            let globalId = try? pool.read { db in try Self.attachmentGlobalID(layer: layer, parentObjectId: parentObjectId, attachmentId: id, db: db)
            }
            keys.append((id, globalId))
        }
        let missing = { (id: Int64) in EditError(code: 1019, description: "Attachment \(id) of feature \(parentObjectId) is missing.") }
        if rollbackOnFailure && keys.contains(where: { $0.globalId == nil }) {
            return keys.map { EditResult(objectId: $0.id, globalId: nil, error: $0.globalId == nil ? missing($0.id) : .rolledBack) }
        }
        let found = keys.compactMap(\.globalId)
        var deleted: [EditResult] = []
        if !found.isEmpty {
            let outcome = try applyEdits(
                service: service, edits: [LayerEdits(layerId: layerId, attachments: AttachmentEdits(deletes: found))],
                options: EditOptions(rollbackOnFailure: rollbackOnFailure, useGlobalIds: true), context: context)
            deleted = outcome.layers[0].attachmentResults?.deletes ?? []
        }
        var next = deleted.makeIterator()
        return keys.map { key in key.globalId == nil ? EditResult(objectId: key.id, globalId: nil, error: missing(key.id)) : next.next()! }
    }

    /// The GlobalID of an attachment of the given feature, or the missing-object error.
    static func attachmentGlobalID(layer: StoredLayer, parentObjectId: Int64, attachmentId: Int64, db: Database) throws -> String {
        let definition = layer.definition
        guard
            let globalId = try String.fetchOne(
                db,
                sql: """
                    SELECT a.GLOBALID FROM \(layer.attachmentTable.quotedDatabaseIdentifier) a
                    JOIN \(layer.tableName.quotedDatabaseIdentifier) f ON f.\(definition.globalIdField.quotedDatabaseIdentifier) = a.REL_GLOBALID
                    WHERE a.ATTACHMENTID = ? AND f.\(definition.objectIdField.quotedDatabaseIdentifier) = ?
                    """, arguments: [attachmentId, parentObjectId])
        else {
            throw EditError(code: 1019, description: "Attachment \(attachmentId) of feature \(parentObjectId) is missing.")
        }
        return globalId
    }
}
