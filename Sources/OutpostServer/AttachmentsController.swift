import Foundation
import GRDB
import Hummingbird
import OutpostStore
import OutpostWire

/// Read access to attachments: the per-feature list, the bytes, and `queryAttachments`.
struct AttachmentsController: Sendable {
    let store: FeatureStore

    private func attachmentLayer(_ context: OutpostRequestContext) throws -> StoredLayer {
        let layer = try store.layer(service: try context.serviceName(), id: try context.layerId())
        guard layer.definition.hasAttachments else {
            throw ArcGISError(kind: .unsupported, code: 400, message: "Unable to complete operation.",
                              details: ["Layer \(layer.definition.id) does not have attachments."])
        }
        return layer
    }

    func list(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        let oid = try context.integer("oid")
        let infos = try store.attachmentInfos(layer: layer, objectIds: [oid])
        guard let group = infos.first else {
            throw ArcGISError(kind: .notFound, code: 404, message: "Feature not found.",
                              details: ["Layer \(layer.definition.id) has no feature \(oid)."])
        }
        return RESTResponse.json(["attachmentInfos": .array(group.attachments.map(\.json))], parameters: p)
    }

    func download(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        let oid = try context.integer("oid")
        let attachmentId = try context.integer("attachment")
        guard let attachment = try store.attachmentData(layer: layer, objectId: oid, attachmentId: attachmentId) else {
            throw ArcGISError(kind: .notFound, code: 404, message: "Attachment not found.",
                              details: ["Feature \(oid) has no attachment \(attachmentId)."])
        }
        let safeName = attachment.name.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" }
        return Response(status: .ok, headers: [
            .contentType: attachment.contentType,
            .contentDisposition: "attachment; filename=\"\(safeName)\"",
        ], body: .init(byteBuffer: ByteBuffer(bytes: attachment.data)))
    }

    func query(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try attachmentLayer(context)
        var query = LayerQuery()
        query.whereClause = p.string("definitionExpression") ?? p.string("where")
        query.objectIds = try p.intList("objectIds")
        query.returnIdsOnly = true
        guard case .objectIds(let ids) = try store.query(query, service: layer.serviceName, layer: layer.definition.id) else {
            return RESTResponse.json(["attachmentGroups": []], parameters: p)
        }
        var groups = try store.attachmentInfos(layer: layer, objectIds: ids)
        if let globalIds = p.nameList("globalIds") {
            let wanted = Set(globalIds.compactMap(GlobalID.normalize))
            groups = groups.map { group in
                var g = group
                g.attachments = g.attachments.filter { wanted.contains($0.globalId) }
                return g
            }
        }
        let json: [JSONValue] = groups.filter { !$0.attachments.isEmpty }.map { group in
            ["parentObjectId": .int(group.parentObjectId), "parentGlobalId": .string(group.parentGlobalId),
             "attachmentInfos": .array(group.attachments.map(\.json))]
        }
        return RESTResponse.json(["attachmentGroups": .array(json)], parameters: p)
    }
}
