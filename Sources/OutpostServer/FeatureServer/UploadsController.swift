import Hummingbird
import OutpostStorage
import OutpostWire

/// The `uploads` resource (§8): single-shot and multi-part uploads, item info, delete.
struct UploadsController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    func upload(_ form: ReceivedForm, context: OutpostRequestContext) throws -> Response {
        guard let file = form.file(named: "file") else {
            throw ArcGISError.invalidParameter("file", "send the file as the multipart part 'file'")
        }
        let item = try store.uploads.createUpload(
            service: try context.serviceName(), name: file.filename ?? "upload",
            description: form.parameters.string("description") ?? "", sourcePath: file.path, size: file.size, owner: context.user?.name ?? "")
        return RESTResponse.json(["success": true, "item": item.json], parameters: form.parameters)
    }

    func register(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        guard let name = p.string("itemName") else { throw ArcGISError.missingParameter("itemName") }
        let item = try store.uploads.registerUpload(
            service: try context.serviceName(), name: name, description: p.string("description") ?? "", owner: context.user?.name ?? "")
        return RESTResponse.json(["success": true, "item": item.json], parameters: p)
    }

    func uploadPart(_ form: ReceivedForm, context: OutpostRequestContext) throws -> Response {
        guard let file = form.file(named: "file") ?? form.file(named: "partFile") else {
            throw ArcGISError.invalidParameter("file", "send the part as the multipart part 'file'")
        }
        guard let partId = try form.parameters.int("partId") ?? form.parameters.int("partNumber") else {
            throw ArcGISError.missingParameter("partId")
        }
        let (service, itemID) = (try context.serviceName(), try ownedItemID(context))
        let item = try StorageRefusal.naming(RefusedParameters.upload) {
            try store.uploads.addUploadPart(service: service, itemID: itemID, partId: partId, sourcePath: file.path)
        }
        return RESTResponse.json(["success": true, "item": item.json], parameters: form.parameters)
    }

    func parts(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let parts = try store.uploads.uploadParts(service: try context.serviceName(), itemID: try ownedItemID(context))
        return RESTResponse.json(["parts": .array(parts.map { .string($0) })], parameters: p)
    }

    func commit(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let (service, itemID) = (try context.serviceName(), try ownedItemID(context))
        let item = try StorageRefusal.naming(RefusedParameters.upload) {
            try store.uploads.commitUpload(service: service, itemID: itemID, parts: p.nameList("parts"))
        }
        return RESTResponse.json(["success": true, "item": item.json], parameters: p)
    }

    func info(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let item = try store.uploads.upload(service: try context.serviceName(), itemID: try ownedItemID(context))
        return RESTResponse.json(item.json, parameters: p)
    }

    func delete(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        try store.uploads.deleteUpload(service: try context.serviceName(), itemID: try ownedItemID(context))
        return RESTResponse.json(["success": true], parameters: p)
    }

    /// The path's item, if the caller may use it: its owner and administrators; for anyone
    /// else it does not exist (as another user's replica).
    private func ownedItemID(_ context: OutpostRequestContext) throws -> String {
        let id = try itemID(context)
        let item = try store.uploads.upload(service: try context.serviceName(), itemID: id)
        guard context.mayManage(replicaOwner: item.owner) else { throw UploadItem.notFound(id) }
        return id
    }

    /// Refuses edits that take another user's uploads as attachment bytes (`applyEdits`'
    /// `attachments`, a sync's inline edits): a 400 naming the first, before anything is applied.
    static func checkOwned(uploadsOf edits: [LayerEdits], service: String, store: Backend, context: OutpostRequestContext) throws {
        for id in edits.flatMap({ $0.attachments?.uploadIds ?? [] }) {
            // A missing item fails its own edit in the store, as before.
            guard let item = try? store.uploads.upload(service: service, itemID: id) else { continue }
            guard context.mayManage(replicaOwner: item.owner) else {
                throw ArcGISError.invalidParameter("attachments", "no upload '\(id)' of yours on service \(service)")
            }
        }
    }

    private func itemID(_ context: OutpostRequestContext) throws -> String {
        guard let id = context.parameters.get("item"), isValidUploadID(id) else {
            throw ArcGISError(
                kind: .notFound, message: "Upload item not found.",
                details: ["'\(context.parameters.get("item") ?? "")' is not an upload item id."])
        }
        return id
    }
}
