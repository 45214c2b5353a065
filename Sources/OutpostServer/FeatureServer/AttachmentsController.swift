import Foundation
import Hummingbird
import OutpostStorage
import OutpostWire

/// Read access to attachments: the per-feature list, the bytes, and `queryAttachments`.
struct AttachmentsController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    private func attachmentLayer(_ context: OutpostRequestContext) throws -> StoredLayer {
        let layer = try store.layer(service: try context.serviceName(), id: try context.layerId())
        guard layer.definition.hasAttachments else {
            throw ArcGISError(
                kind: .unsupported, message: "Unable to complete operation.",
                details: ["Layer \(layer.definition.id) does not have attachments."])
        }
        return layer
    }

    func list(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        let oid = try context.integer("oid")
        let infos = try store.features.attachmentInfos(layer: layer, objectIds: [oid])
        guard let group = infos.first else {
            throw ArcGISError(
                kind: .notFound, message: "Feature not found.",
                details: ["Layer \(layer.definition.id) has no feature \(oid)."])
        }
        return RESTResponse.json(["attachmentInfos": .array(group.attachments.map(\.json))], parameters: p)
    }

    /// The bytes, streamed from disk in chunks (never loaded whole); found on the blocking pool.
    func download(_ p: RequestParameters, context: OutpostRequestContext) async throws -> Response {
        let attachment = try await StoreCall.run { try storedAttachment(context) }
        let headers: HTTPFields = [
            .contentType: attachment.contentType,
            .contentDisposition: "attachment; filename=\"\(attachment.name)\"",
        ]
        switch attachment.content {
        case .bytes(let bytes):
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .file(let path):
            let body = try await FileIO().loadFile(path: path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    /// The attachment the path names, with where its bytes are.
    private func storedAttachment(_ context: OutpostRequestContext) throws -> (name: String, contentType: String, content: AttachmentContent) {
        let layer = try attachmentLayer(context)
        let oid = try context.integer("oid")
        let attachmentId = try context.integer("attachment")
        guard let attachment = try store.features.attachmentContent(layer: layer, objectId: oid, attachmentId: attachmentId) else {
            throw ArcGISError(
                kind: .notFound, message: "Attachment not found.",
                details: ["Feature \(oid) has no attachment \(attachmentId)."])
        }
        return attachment
    }

    /// `addAttachment`: the multipart part `attachment`, or `uploadId` of a committed upload.
    func add(_ form: ReceivedForm, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        let input = try attachmentInput(form, service: layer.serviceName, context: context)
        let result = try store.edits.addAttachment(
            service: layer.serviceName, layer: layer.definition.id, parentObjectId: try context.integer("oid"),
            input: input, context: context.editContext)
        return RESTResponse.json(["addAttachmentResult": result.json], parameters: form.parameters)
    }

    func update(_ form: ReceivedForm, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        guard let attachmentId = try form.parameters.intList("attachmentId")?.first else { throw ArcGISError.missingParameter("attachmentId") }
        let input = try attachmentInput(form, service: layer.serviceName, context: context)
        let result = try store.edits.updateAttachment(
            service: layer.serviceName, layer: layer.definition.id, parentObjectId: try context.integer("oid"),
            attachmentId: attachmentId, input: input, context: context.editContext)
        return RESTResponse.json(["updateAttachmentResult": result.json], parameters: form.parameters)
    }

    func delete(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        guard let ids = try p.intList("attachmentIds"), !ids.isEmpty else { throw ArcGISError.missingParameter("attachmentIds") }
        let results = try store.edits.deleteAttachments(
            service: layer.serviceName, layer: layer.definition.id, parentObjectId: try context.integer("oid"),
            attachmentIds: ids, rollbackOnFailure: try p.bool("rollbackOnFailure", default: false), context: context.editContext)
        return RESTResponse.json(["deleteAttachmentResults": .array(results.map(\.json))], parameters: p)
    }

    private func attachmentInput(_ form: ReceivedForm, service: String, context: OutpostRequestContext) throws -> AttachmentInput {
        let keywords = form.parameters.string("keywords") ?? ""
        if let file = form.file(named: "attachment") {
            return AttachmentInput(
                name: file.filename ?? "attachment", contentType: file.contentType ?? "application/octet-stream",
                keywords: keywords, sourcePath: file.path, size: file.size)
        }
        if let uploadId = form.parameters.string("uploadId") {
            // Another user's upload is not the caller's to attach.
            guard isValidUploadID(uploadId), let item = try? store.uploads.upload(service: service, itemID: uploadId),
                context.mayManage(replicaOwner: item.owner)
            else { throw UploadItem.notFound(uploadId) }
            let copy = try store.uploads.copyOfUpload(service: service, itemID: uploadId)
            return AttachmentInput(
                name: copy.name, contentType: Self.contentType(forName: copy.name), keywords: keywords,
                sourcePath: copy.path, size: copy.size)
        }
        throw ArcGISError.invalidParameter("attachment", "send the file as the multipart part 'attachment' or give 'uploadId'")
    }

    static func contentType(forName name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "pdf": "application/pdf"
        case "txt": "text/plain"
        case "json": "application/json"
        case "mp4": "video/mp4"
        case "mov": "video/quicktime"
        default: "application/octet-stream"
        }
    }

    func query(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        var query = LayerQuery()
        query.whereClause = p.string("definitionExpression") ?? p.string("where")
        query.objectIds = try p.intList("objectIds")
        query.returnIdsOnly = true
        guard case .objectIds(let ids) = try store.features.query(query, service: layer.serviceName, layer: layer.definition.id) else {
            return RESTResponse.json(["attachmentGroups": []], parameters: p)
        }
        var groups = try store.features.attachmentInfos(layer: layer, objectIds: ids)
        if let globalIds = p.nameList("globalIds") {
            let wanted = Set(globalIds.compactMap(GlobalID.normalize))
            groups = groups.map { group in
                var g = group
                g.attachments = g.attachments.filter { wanted.contains($0.globalId) }
                return g
            }
        }
        let json: [JSONValue] = groups.filter { !$0.attachments.isEmpty }.map { group in
            [
                "parentObjectId": .int(group.parentObjectId), "parentGlobalId": .string(group.parentGlobalId),
                "attachmentInfos": .array(group.attachments.map(\.json)),
            ]
        }
        return RESTResponse.json(["attachmentGroups": .array(json)], parameters: p)
    }
}
