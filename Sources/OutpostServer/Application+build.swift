import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostWire

/// What the routes need to know beyond the store.
public struct ServerOptions: Sendable {
    public var limits: UploadLimits
    /// How long a replica result file stays downloadable after its last download (ArcGIS: 10 min).
    public var resultFileIdleTime: TimeInterval
    /// Asynchronous jobs running at once, waiting, and per caller.
    public var jobLimits: JobLimits
    public var maximumConcurrentJobs: Int { jobLimits.running }
    /// Seconds a connection may send nothing before it is closed (headers never finished, a
    /// stalled body, or idle between requests).
    public var idleTimeout: TimeInterval
    /// `https` when serving TLS: result and status URLs are absolute.
    public var scheme: String
    /// What one `synchronizeReplica` may carry.
    public var syncLimits: SyncLimits
    /// Token security: every service request needs a token of a user (`outpost users add`).
    public var requireAuth: Bool
    /// Minutes a token lives by default (`shortLivedTokenValidity`), and at most.
    public var tokenMinutes: Int
    public var maximumTokenMinutes: Int
    /// Where request, edit, conflict, replica and job figures are recorded for `/metrics`.
    public var metrics: ServerMetrics

    public init(limits: UploadLimits = UploadLimits(), resultFileIdleTime: TimeInterval = 600, maximumConcurrentJobs: Int = 2,
                scheme: String = "http", syncLimits: SyncLimits = .standard, requireAuth: Bool = false, tokenMinutes: Int = 60,
                maximumTokenMinutes: Int = 1440, metrics: ServerMetrics = ServerMetrics(), jobLimits: JobLimits? = nil,
                idleTimeout: TimeInterval = 30)
    {
        self.jobLimits = jobLimits ?? JobLimits(running: maximumConcurrentJobs)
        self.idleTimeout = idleTimeout
        self.metrics = metrics
        self.limits = limits
        self.syncLimits = syncLimits
        self.requireAuth = requireAuth
        self.tokenMinutes = tokenMinutes
        self.maximumTokenMinutes = maximumTokenMinutes
        self.resultFileIdleTime = resultFileIdleTime
        self.scheme = scheme
    }

    /// `idleTimeout` as the HTTP channel takes it.
    var idleTimeAmount: TimeAmount { .milliseconds(Int64(idleTimeout * 1000)) }
}

/// Builds the Hummingbird application serving `store`.
public func buildApplication(store: FeatureStore, host: String = "127.0.0.1", port: Int = 8080, options: ServerOptions = ServerOptions(),
                             logger: Logger = .outpostDefault) -> some ApplicationProtocol
{
    Application(
        router: buildRouter(store: store, options: options, logger: logger),
        server: .http1(configuration: .init(idleTimeout: options.idleTimeAmount)),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        logger: logger)
}

/// The same application over HTTPS.
public func buildTLSApplication(store: FeatureStore, host: String = "127.0.0.1", port: Int = 8443, tls: TLSSetup,
                                options: ServerOptions = ServerOptions(scheme: "https"), logger: Logger = .outpostDefault) throws -> some ApplicationProtocol
{
    Application(
        router: buildRouter(store: store, options: options, logger: logger),
        server: try .tls(.http1(configuration: .init(idleTimeout: options.idleTimeAmount)), tlsConfiguration: try tls.configuration()),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        logger: logger)
}

/// The ArcGIS REST routes. Every resource answers GET and POST (the ArcGIS API for Python
/// POSTs metadata requests); every failure is an ArcGIS error envelope.
public func buildRouter(store: FeatureStore, limits: UploadLimits) -> Router<OutpostRequestContext> {
    buildRouter(store: store, options: ServerOptions(limits: limits))
}

public func buildRouter(store: FeatureStore, options: ServerOptions = ServerOptions(),
                        logger: Logger = .outpostDefault) -> Router<OutpostRequestContext>
{
    let limits = options.limits
    let router = Router(context: OutpostRequestContext.self)
    // Jobs a previous run left unfinished have no worker any more: they fail, never hang.
    if let failed = try? store.jobs.failUnfinishedJobs(now: store.clock.milliseconds()), failed > 0 {
        logger.warning("\(failed) unfinished jobs of a previous run marked Failed")
    }
    // Attachment files of edits that never committed, and spooled bodies of requests cut off.
    do {
        let sweep = try store.maintenance.removeOrphanFiles()
        if sweep != OrphanFileSweep() {
            logger.notice("Removed files a previous run left: \(sweep.attachmentFiles) attachment, \(sweep.temporaryFiles) temporary")
        }
    } catch {
        logger.warning("Could not remove files a previous run left: \(error)")
    }
    router.add(middleware: RequestLogMiddleware(logger: logger, metrics: options.metrics))
    router.add(middleware: SecurityHeadersMiddleware())
    let runner = JobRunner(limits: options.jobLimits)
    let files = ResultFiles(directory: (store.directory as NSString).appendingPathComponent("replicafiles"),
                            idleTime: options.resultFileIdleTime)
    let replicas = ReplicasController(store: store, files: files, runner: runner,
                                      scheme: options.scheme, syncLimits: options.syncLimits, logger: logger)
    let services = ServicesController(store: store)
    let queries = QueryController(store: store)
    let attachments = AttachmentsController(store: store)
    let edits = EditsController(store: store)
    let uploads = UploadsController(store: store)
    let versions = VersionsController(store: store)
    let authenticator = Authenticator(store: store, required: options.requireAuth, defaultMinutes: options.tokenMinutes,
                                      maximumMinutes: options.maximumTokenMinutes)

    let temporaryDirectory = store.temporaryDirectory
    let openRouteLimits = UploadLimits(maxBodyBytes: BodyAdmission.preambleBytes, maxFieldBytes: BodyAdmission.preambleBytes)
    let postOnly = ArcGISError(kind: .methodNotAllowed, message: "Method not allowed.",
                               details: ["This operation is only supported via POST."])
    /// Registers GET and POST; the handler gets the received form (files already on disk,
    /// removed after the handler unless it moved them).
    /// `role`: the least a caller needs (with token security on); `nil`: open to anyone.
    /// A service's resources are also reached through a folder (`services/<folder>/<name>/…`,
    /// ArcGIS Server's one level of folders): each is registered twice.
    func formRoute(_ path: String, role: UserRole? = .viewer,
                   _ handler: @escaping @Sendable (Request, OutpostRequestContext, ReceivedForm) async throws -> Response) {
        let wrapped: @Sendable (Request, OutpostRequestContext) async throws -> Response = { request, context in
            var form = ReceivedForm(parameters: RequestParameters(), files: [])
            var bodyRead = false
            do {
                // Who is asking is decided from the head before any body byte is read.
                let query = RequestParameters(FormURLEncoding.decode(request.uri.query ?? ""))
                var admission = try authenticator.admission(request, query: query, role: role)
                // Routes open to anyone take small forms only: nobody unauthenticated gets more read.
                let bodyLimits = role == nil ? openRouteLimits : limits
                form = try await request.receiveForm(query: query, limits: bodyLimits, temporaryDirectory: temporaryDirectory, admission: &admission)
                bodyRead = true
                defer { form.discardFiles() }
                var context = context
                context.user = admission.user
                context.record.note(replicaId: form.parameters.string("replicaID"))
                guard HTMLDirectory.wanted(request, form.parameters) else { return try await handler(request, context, form) }
                // The services directory: an operation's page without parameters is its form.
                if request.method == .get, HTMLDirectory.operation(at: request.uri.path) != nil, HTMLDirectory.asksForFormOnly(form.parameters) {
                    return HTMLDirectory.formPage(path: request.uri.path, parameters: form.parameters)
                }
                return try await HTMLDirectory.page(for: try await handler(request, context, form), path: request.uri.path, parameters: form.parameters)
            } catch {
                var response = RESTResponse.error(from: error, parameters: form.parameters, logger: logger)
                if !bodyRead && request.mayHaveBody {
                    context.stopReadingBody()
                    response.headers[.connection] = "close"
                }
                context.record.note(replicaId: form.parameters.string("replicaID"))
                guard HTMLDirectory.wanted(request, form.parameters) else { return response }
                return (try? await HTMLDirectory.page(for: response, path: request.uri.path, parameters: form.parameters)) ?? response
            }
        }
        for path in ServiceRoutes.paths(path) {
            router.on(RouterPath(path), method: .get, use: wrapped)
            router.on(RouterPath(path), method: .post, use: wrapped)
        }
    }

    func route(_ path: String, role: UserRole? = .viewer,
               _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        formRoute(path, role: role) { request, context, form in try await handler(request, context, form.parameters) }
    }

    /// Operations that change state but answer GET for clients that send them so (restapi
    /// sends createReplica and unRegisterReplica as GET): with token security on they are POST
    /// only, so a link or an image cannot trigger them with a token in its URL.
    func stateChangingRoute(_ path: String, role: UserRole? = .viewer,
                            _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        route(path, role: role) { request, context, parameters in
            if options.requireAuth && request.method != .post { throw postOnly }
            return try await handler(request, context, parameters)
        }
    }

    /// Operations that change data are POST only, as on ArcGIS Server (editors and admins).
    func postFormRoute(_ path: String, role: UserRole? = .editor,
                       _ handler: @escaping @Sendable (Request, OutpostRequestContext, ReceivedForm) async throws -> Response) {
        formRoute(path, role: role) { request, context, form in
            guard request.method == .post else { throw postOnly }
            return try await handler(request, context, form)
        }
    }

    func postRoute(_ path: String, role: UserRole? = .editor,
                   _ handler: @escaping @Sendable (Request, OutpostRequestContext, RequestParameters) async throws -> Response) {
        postFormRoute(path, role: role) { request, context, form in try await handler(request, context, form.parameters) }
    }

    // Health: liveness answers while the process serves; readiness and ArcGIS's healthCheck
    // also need the database to answer a read.
    let ready: @Sendable () -> Bool = { store.maintenance.health().isHealthy }
    router.get("/health/live") { _, _ in RESTResponse.json(["status": "live"], parameters: RequestParameters()) }
    router.get("/health/ready") { _, _ -> Response in
        var response = RESTResponse.json(["status": ready() ? "ready" : "unavailable"], parameters: RequestParameters())
        if !ready() { response.status = .serviceUnavailable }
        return response
    }
    route("/arcgis/rest/info/healthCheck", role: nil) { _, _, p in
        guard ready() else {
            throw ArcGISError(kind: .unavailable, message: "Server is not ready.", details: ["The database does not answer."])
        }
        return RESTResponse.json(["success": true], parameters: p)
    }
    router.get("/metrics") { _, _ -> Response in
        let text = try await options.metrics.scrape(store: store, runner: runner)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: text)))
    }
    route("/arcgis/rest/info", role: nil) { request, _, p in services.info(p, request: request, scheme: options.scheme, requireAuth: options.requireAuth, tokenMinutes: options.tokenMinutes) }
    stateChangingRoute("/arcgis/tokens/generateToken", role: nil) { _, c, p in try await authenticator.generateToken(p, address: c.remoteAddress) }
    route("/arcgis/tokens", role: nil) { _, _, p in RESTResponse.json(["currentVersion": .double(FeatureServiceMetadata.currentVersion)], parameters: p) }
    route("/arcgis/rest/services") { request, _, p in try services.list(p, request: request) }
    route("/arcgis/rest/services/:service") { _, c, p in try services.folder(p, context: c) }
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
    // Replica operations answer GET too: restapi, a real client, sends them as GET (real-clients §5).
    stateChangingRoute("/arcgis/rest/services/:service/FeatureServer/createReplica") { r, c, p in try await replicas.create(p, request: r, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/synchronizeReplica", role: .viewer) { r, c, p in try await replicas.synchronize(p, request: r, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/replicas/:replica/conflicts") { _, c, p in try replicas.conflicts(p, context: c) }
    stateChangingRoute("/arcgis/rest/services/:service/FeatureServer/unRegisterReplica") { _, c, p in try replicas.unregister(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/replicas") { _, c, p in try replicas.list(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/replicas/:replica") { _, c, p in try replicas.info(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/jobs/:job") { r, c, p in try replicas.jobStatus(p, request: r, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/jobs/:job/status") { r, c, p in try replicas.jobStatus(p, request: r, context: c) }
    route("/arcgis/rest/services/:service/replicafiles/:file") { r, c, _ in try await replicas.resultFile(r, context: c) }
    postFormRoute("/arcgis/rest/services/:service/FeatureServer/uploads/upload") { _, c, f in try uploads.upload(f, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/uploads/register") { _, c, p in try uploads.register(p, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/uploads/:item") { _, c, p in try uploads.info(p, context: c) }
    postFormRoute("/arcgis/rest/services/:service/FeatureServer/uploads/:item/uploadPart") { _, c, f in try uploads.uploadPart(f, context: c) }
    route("/arcgis/rest/services/:service/FeatureServer/uploads/:item/parts") { _, c, p in try uploads.parts(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/uploads/:item/commit") { _, c, p in try uploads.commit(p, context: c) }
    postRoute("/arcgis/rest/services/:service/FeatureServer/uploads/:item/delete") { _, c, p in try uploads.delete(p, context: c) }
    route("/arcgis/rest/services/:service/VersionManagementServer") { _, c, p in try versions.root(p, context: c) }
    route("/arcgis/rest/services/:service/VersionManagementServer/versions") { _, c, p in try versions.list(p, context: c) }
    postRoute("/arcgis/rest/services/:service/VersionManagementServer/create") { _, c, p in try versions.create(p, context: c) }
    route("/arcgis/rest/services/:service/VersionManagementServer/versions/:version") { _, c, p in try versions.info(p, context: c) }
    route("/arcgis/rest/services/:service/VersionManagementServer/versions/:version/conflicts") { _, c, p in try versions.conflicts(p, context: c) }
    postRoute("/arcgis/rest/services/:service/VersionManagementServer/versions/:version/reconcile") { _, c, p in try versions.reconcile(p, context: c) }
    postRoute("/arcgis/rest/services/:service/VersionManagementServer/versions/:version/delete") { _, c, p in try versions.delete(p, context: c) }
    route("/arcgis/rest/**") { request, _, _ in
        throw ArcGISError(kind: .notFound, message: "Requested resource not found.",
                          details: ["Outpost has no resource at \(request.uri.path)."])
    }
    return router
}

/// How service routes are registered with and without a folder.
enum ServiceRoutes {
    static let prefix = "/arcgis/rest/services/:service/"
    /// The path parameter holding the service's name when `:service` holds its folder. The
    /// folder takes the `:service` slot so both forms share one router node: the constants
    /// that follow a service name (`FeatureServer`, …) are tried before this parameter, and
    /// no parameter of a branch that failed is left behind.
    static let nameInFolder = "serviceInFolder"

    /// What follows a service's name in a path (the service kind, or its result files).
    static let kinds: Set = ["FeatureServer", "VersionManagementServer", "replicafiles"]

    /// Where the service kind sits in a path's segments (`arcgis`, `rest`, `services`, …):
    /// after the name (4), or after the folder and the name (5).
    static func kindIndex(_ segments: [String], among kinds: Set<String> = kinds) -> Int? {
        [4, 5].first { segments.count > $0 && kinds.contains(segments[$0]) }
    }

    static func paths(_ path: String) -> [String] {
        guard path.hasPrefix(prefix) else { return [path] }
        return [path, prefix + ":\(nameInFolder)/" + path.dropFirst(prefix.count)]
    }
}

extension OutpostRequestContext {
    /// The service the path names: `Name`, or `Folder/Name` through a folder.
    func serviceName() throws -> String {
        guard let first = parameters.get("service") else { throw ArcGISError.notFound("Service") }
        guard let name = parameters.get(ServiceRoutes.nameInFolder) else { return first }
        return "\(first)/\(name)"
    }

    func layerId() throws -> Int {
        guard let text = parameters.get("layer"), let id = Int(text), id >= 0 else {
            throw ArcGISError(kind: .notFound, message: "Layer or table not found.",
                              details: ["'\(parameters.get("layer") ?? "")' is not a layer id."])
        }
        return id
    }

    func integer(_ name: String) throws -> Int64 {
        guard let text = parameters.get(name), let value = Int64(text) else {
            throw ArcGISError(kind: .notFound, message: "Requested resource not found.",
                              details: ["'\(parameters.get(name) ?? "")' is not a valid \(name) id."])
        }
        return value
    }
}

extension Logger {
    /// The logger of a server built without one (tests, embedding): warnings and worse. The
    /// CLI passes its own, at `--log-level` (info by default: one line per request).
    public static var outpostDefault: Logger {
        var logger = Logger(label: "outpost")
        logger.logLevel = .warning
        return logger
    }
}
