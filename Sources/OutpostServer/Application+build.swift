import Hummingbird
import HummingbirdTLS
import Logging
import OutpostStore
import OutpostWire

/// Builds the Hummingbird application serving `store`.
public func buildApplication(store: FeatureStore, host: String = "127.0.0.1", port: Int = 8080, limits: UploadLimits = UploadLimits(),
                             logger: Logger = Logger(label: "outpost")) -> some ApplicationProtocol
{
    Application(
        router: buildRouter(store: store, limits: limits),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        logger: logger)
}

/// The same application over HTTPS.
public func buildTLSApplication(store: FeatureStore, host: String = "127.0.0.1", port: Int = 8443, tls: TLSSetup,
                                limits: UploadLimits = UploadLimits(), logger: Logger = Logger(label: "outpost")) throws -> some ApplicationProtocol
{
    Application(
        router: buildRouter(store: store, limits: limits),
        server: try .tls(.http1(), tlsConfiguration: try tls.configuration()),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        logger: logger)
}

/// The ArcGIS REST routes. Every resource answers GET and POST (the ArcGIS API for Python
/// POSTs metadata requests); every failure is an ArcGIS error envelope.
public func buildRouter(store: FeatureStore, limits: UploadLimits = UploadLimits()) -> Router<OutpostRequestContext> {
    let router = Router(context: OutpostRequestContext.self)
    let services = ServicesController(store: store)
    let queries = QueryController(store: store)
    let attachments = AttachmentsController(store: store)
    let edits = EditsController(store: store)
    let uploads = UploadsController(store: store)

    let temporaryDirectory = store.temporaryDirectory
    /// Registers GET and POST; the handler gets the received form (files already on disk,
    /// removed after the handler unless it moved them).
    func formRoute(_ path: RouterPath, _ handler: @escaping @Sendable (Request, OutpostRequestContext, ReceivedForm) async throws -> Response) {
        let wrapped: @Sendable (Request, OutpostRequestContext) async throws -> Response = { request, context in
            var form = ReceivedForm(parameters: RequestParameters(), files: [])
            do {
                form = try await request.receiveForm(limits: limits, temporaryDirectory: temporaryDirectory)
                defer { form.discardFiles() }
                return try await handler(request, context, form)
            } catch {
                return RESTResponse.error(from: error, parameters: form.parameters)
            }
        }
        router.on(path, method: .get, use: wrapped)
        router.on(path, method: .post, use: wrapped)
    }

    func route(_ path: RouterPath, _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        formRoute(path) { request, context, form in try await handler(request, context, form.parameters) }
    }

    /// Operations that change data are POST only, as on ArcGIS Server.
    func postFormRoute(_ path: RouterPath, _ handler: @escaping @Sendable (Request, OutpostRequestContext, ReceivedForm) async throws -> Response) {
        formRoute(path) { request, context, form in
            guard request.method == .post else {
                throw ArcGISError(kind: .methodNotAllowed, code: 405, message: "Method not allowed.",
                                  details: ["This operation is only supported via POST."])
            }
            return try await handler(request, context, form)
        }
    }

    func postRoute(_ path: RouterPath, _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        postFormRoute(path) { request, context, form in try await handler(request, context, form.parameters) }
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
    route("/arcgis/rest/services/:service/FeatureServer/:layer/:oid/attachments/:attachment") { _, c, p in try await attachments.download(p, context: c) }
    postFormRoute("/arcgis/rest/services/:service/FeatureServer/:layer/:oid/addAttachment") { _, c, f in try attachments.add(f, context: c) }
    postFormRoute("/arcgis/rest/services/:service/FeatureServer/:layer/:oid/updateAttachment") { _, c, f in try attachments.update(f, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/:layer/:oid/deleteAttachments") { _, c, p in try attachments.delete(p, context: c) }
    postFormRoute("/arcgis/rest/services/:service/FeatureServer/uploads/upload") { _, c, f in try uploads.upload(f, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/uploads/register") { _, c, p in try uploads.register(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/uploads/:item") { _, c, p in try uploads.info(p, context: c) }
    postFormRoute("/arcgis/rest/services/:service/FeatureServer/uploads/:item/uploadPart") { _, c, f in try uploads.uploadPart(f, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/uploads/:item/parts") { _, c, p in try uploads.parts(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/uploads/:item/commit") { _, c, p in try uploads.commit(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/uploads/:item/delete") { _, c, p in try uploads.delete(p, context: c) }
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
