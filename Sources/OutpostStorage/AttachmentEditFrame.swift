import Foundation
import OutpostWire

/// `addAttachment`, `updateAttachment` and `deleteAttachments` as attachment edits of
/// `applyEdits` (so they are written, stamped and cleaned up by the same code as every other
/// edit), shared by both backends: a backend answers the three look-ups and applies edits
/// with spooled files; the rules of the three operations are here once.
public protocol AttachmentEditFrame: AttachmentEditing {
    /// The layer, or the error when it has no attachments.
    func attachmentLayer(service: String, layer layerId: Int) throws -> StoredLayer
    /// The GlobalID of the feature with this ObjectID, nil when there is none.
    func globalIdOfFeature(_ objectId: Int64, in layer: StoredLayer) throws -> String?
    /// The GlobalID of an attachment of the given feature, nil when it is not the feature's.
    func globalIdOfAttachment(_ attachmentId: Int64, of parentObjectId: Int64, in layer: StoredLayer) throws -> String?
    /// `applyEdits` with attachment bytes already on disk (`files`, by attachment GlobalID),
    /// moved in like inline data and removed when not registered.
    func applyEdits(
        service: String, edits: [LayerEdits], options: EditOptions, context: EditContext, files: [String: (path: String, size: Int)]
    ) throws -> EditOutcome
}

extension AttachmentEditFrame {
    static func missingAttachment(_ id: Int64, of parentObjectId: Int64) -> EditError {
        EditError(code: 1019, description: "Attachment \(id) of feature \(parentObjectId) is missing.")
    }

    /// Adds an attachment to a feature (`addAttachment`). `input.sourcePath` is taken over.
    public func addAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, input: AttachmentInput, context: EditContext
    ) throws -> EditResult {
        defer { input.discard() }
        let layer = try attachmentLayer(service: service, layer: layerId)
        var globalId = GlobalID.make()
        if let given = input.globalId {
            guard let normalized = GlobalID.normalize(given) else {
                return EditResult(objectId: nil, globalId: nil, error: .invalid("'\(given)' is not a GlobalID."))
            }
            globalId = normalized
        }
        guard let parent = try globalIdOfFeature(parentObjectId, in: layer) else {
            return EditResult(objectId: nil, globalId: globalId, error: .missing("\(layer.definition.objectIdField) \(parentObjectId)"))
        }
        let edit = AttachmentEdit(
            globalId: globalId, parentGlobalId: parent, name: input.name, contentType: input.contentType, keywords: input.keywords, source: nil)
        let outcome = try applyEdits(
            service: service, edits: [LayerEdits(layerId: layerId, attachments: AttachmentEdits(adds: [edit]))],
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true), context: context,
            files: [globalId: (input.sourcePath, input.size)])
        return outcome.layers[0].attachmentResults?.adds.first ?? EditResult(objectId: nil, globalId: globalId, error: .invalid("No result."))
    }

    /// Replaces an attachment's bytes, name and type (`updateAttachment`); its GlobalID stays.
    public func updateAttachment(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentId: Int64, input: AttachmentInput, context: EditContext
    ) throws -> EditResult {
        defer { input.discard() }
        let layer = try attachmentLayer(service: service, layer: layerId)
        guard let globalId = try globalIdOfAttachment(attachmentId, of: parentObjectId, in: layer) else {
            return EditResult(objectId: attachmentId, globalId: nil, error: Self.missingAttachment(attachmentId, of: parentObjectId))
        }
        let edit = AttachmentEdit(
            globalId: globalId, parentGlobalId: nil, name: input.name, contentType: input.contentType,
            keywords: input.keywords.isEmpty ? nil : input.keywords, source: nil)
        let outcome = try applyEdits(
            service: service, edits: [LayerEdits(layerId: layerId, attachments: AttachmentEdits(updates: [edit]))],
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true), context: context,
            files: [globalId: (input.sourcePath, input.size)])
        return outcome.layers[0].attachmentResults?.updates.first
            ?? EditResult(objectId: attachmentId, globalId: nil, error: .invalid("No result."))
    }

    /// Deletes attachments of one feature (`deleteAttachments`), leaving tombstones. Ids that
    /// are not the feature's fail, in order; with `rollbackOnFailure` then nothing is deleted.
    public func deleteAttachments(
        service: String, layer layerId: Int, parentObjectId: Int64, attachmentIds: [Int64], rollbackOnFailure: Bool, context: EditContext
    ) throws -> [EditResult] {
        let layer = try attachmentLayer(service: service, layer: layerId)
        let keys = try attachmentIds.map { (id: $0, globalId: try globalIdOfAttachment($0, of: parentObjectId, in: layer)) }
        let missing = { (id: Int64) in Self.missingAttachment(id, of: parentObjectId) }
        if rollbackOnFailure && keys.contains(where: { $0.globalId == nil }) {
            return keys.map { EditResult(objectId: $0.id, globalId: nil, error: $0.globalId == nil ? missing($0.id) : .rolledBack) }
        }
        let found = keys.compactMap(\.globalId)
        var deleted: [EditResult] = []
        if !found.isEmpty {
            let outcome = try applyEdits(
                service: service, edits: [LayerEdits(layerId: layerId, attachments: AttachmentEdits(deletes: found))],
                options: EditOptions(rollbackOnFailure: rollbackOnFailure, useGlobalIds: true), context: context, files: [:])
            deleted = outcome.layers[0].attachmentResults?.deletes ?? []
        }
        var next = deleted.makeIterator()
        return keys.map { key in key.globalId == nil ? EditResult(objectId: key.id, globalId: nil, error: missing(key.id)) : next.next()! }
    }
}

extension StoredLayer {
    /// The error of an attachment operation on a layer without attachments.
    public func checkHasAttachments() throws {
        guard definition.hasAttachments else {
            throw ArcGISError(
                kind: .unsupported, message: "Unable to complete operation.", details: ["Layer \(definition.id) does not have attachments."])
        }
    }
}

extension AttachmentInput {
    /// Removes the spooled file if the edit did not take it over.
    func discard() {
        try? FileManager.default.removeItem(atPath: sourcePath)
    }
}
