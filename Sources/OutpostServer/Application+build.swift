import Hummingbird
import Logging
import OutpostStore
import OutpostWire

/// Builds the Hummingbird application serving `store`.
public func buildApplication(store: FeatureStore, host: String = "127.0.0.1", port: Int = 8080,
                             logger: Logger = Logger(label: "outpost")) -> some ApplicationProtocol
{
    Application(
        router: buildRouter(store: store),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        logger: logger)
}

/// The ArcGIS REST routes. Every resource answers GET and POST (the ArcGIS API for Python
/// POSTs metadata requests); every failure is an ArcGIS error envelope.
public func buildRouter(store: FeatureStore) -> Router<OutpostRequestContext> {
    let router = Router(context: OutpostRequestContext.self)
    let services = ServicesController(store: store)
    let queries = QueryController(store: store)
    let attachments = AttachmentsController(store: store)
    let edits = EditsController(store: store)

    func route(_ path: RouterPath, _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        let wrapped: @Sendable (Request, OutpostRequestContext) async throws -> Response = { request, context in
            var parameters = RequestParameters()
            do {
                parameters = try await request.parameters(context: context)
                return try await handler(request, context, parameters)
            } catch {
                return RESTResponse.error(from: error, parameters: parameters)
            }
        }
        router.on(path, method: .get, use: wrapped)
        router.on(path, method: .post, use: wrapped)
    }

    /// Operations that change data are POST only, as on ArcGIS Server.
    func postRoute(_ path: RouterPath, _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        route(path) { request, context, parameters in
            guard request.method == .post else {
                throw ArcGISError(kind: .methodNotAllowed, code: 405, message: "Method not allowed.",
                                  details: ["This operation is only supported via POST."])
            }
            return try await handler(request, context, parameters)
        }
    }

    route("/arcgis/rest/info") { _, _, p in services.info(p) }
    route("/arcgis/rest/services") { request, _, p in try services.list(p, request: request) }
    route("/arcgis/rest/services/:service/FeatureServer") { _, c, p in try services.service(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/layers") { _, c, p in try services.layers(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/:layer") { _, c, p in try services.layer(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/applyEdits") { _, c, p in try edits.serviceApplyEdits(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/:layer/applyEdits") { _, c, p in try edits.layerApplyEdits(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/:layer/addFeatures") { _, c, p in try edits.addFeatures(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/:layer/updateFeatures") { _, c, p in try edits.updateFeatures(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/:layer/deleteFeatures") { _, c, p in try edits.deleteFeatures(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/:layer/query") { _, c, p in try queries.query(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/:layer/queryAttachments") { _, c, p in try attachments.query(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/:layer/:oid") { _, c, p in try queries.feature(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/:layer/:oid/attachments") { _, c, p in try attachments.list(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/:layer/:oid/attachments/:attachment") { _, c, p in try attachments.download(p, context: c) }
    route("/arcgis/rest/**") { request, _, _ in
        throw ArcGISError(kind: .notFound, code: 404, message: "Requested resource not found.",
                          details: ["Outpost has no resource at \(request.uri.path)."])
    }
    return router
}

extension OutpostRequestContext {
    func serviceName() throws -> String {
        guard let name = parameters.get("service") else { throw ArcGISError.notFound("Service") }
        return name
    }

    func layerId() throws -> Int {
        guard let text = parameters.get("layer"), let id = Int(text), id >= 0 else {
            throw ArcGISError(kind: .notFound, code: 404, message: "Layer or table not found.",
                              details: ["'\(parameters.get("layer") ?? "")' is not a layer id."])
        }
        return id
    }

    func integer(_ name: String) throws -> Int64 {
        guard let text = parameters.get(name), let value = Int64(text) else {
            throw ArcGISError(kind: .notFound, code: 404, message: "Requested resource not found.",
                              details: ["'\(parameters.get(name) ?? "")' is not a valid \(name) id."])
        }
        return value
    }
}
