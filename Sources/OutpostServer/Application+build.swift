import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire
import ServiceLifecycle

/// What the routes need to know beyond the store.
public struct ServerOptions: Sendable {
    /// The server's own backups (`serve --backup-dir`), below `/arcgis/rest/admin/backups`.
    public var backups: ServerBackups?
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
    /// `--public-url` (`ServerOrigin.publicURL(_:)`): the address every URL names; nil: each
    /// request's `Host`.
    public var publicURL: String?
    /// Where clients reach this server, as URLs name it.
    public var origin: ServerOrigin { ServerOrigin(servedScheme: scheme, publicURL: publicURL) }
    /// What one `synchronizeReplica` may carry.
    public var syncLimits: SyncLimits
    /// Token security: every service request needs a token of a user (`outpost users add`).
    public var requireAuth: Bool
    /// Minutes a token lives by default (`shortLivedTokenValidity`), and at most.
    public var tokenMinutes: Int
    public var maximumTokenMinutes: Int
    /// Where request, edit, conflict, replica and job figures are recorded for `/metrics`.
    public var metrics: ServerMetrics
    /// The most tiles one `exportTiles` may take (ArcGIS's `maxExportTilesCount`, 100,000).
    public var maxExportTiles: Int
    /// Map areas per web map (`maxMapAreaItemsLimit`, 16 as on ArcGIS).
    public var maxMapAreas: Int
    /// Bytes of live result files (exports, replica files) one user may hold before new ones
    /// are refused with 429; 0: no quota.
    public var resultQuotaBytes: Int64
    /// Bytes of portal item data and resources one owner may hold before more is refused with
    /// 413; 0: no quota.
    public var itemQuotaBytes: Int64
    /// Which web pages may read the answers (CORS): every origin unless restricted.
    public var crossOrigin: CrossOriginPolicy
    /// Single sign-on with the organisation's OpenID provider (`--oidc-issuer`); nil: none.
    public var oidc: OIDCSettings?
    /// `serve --test-target` (docs/testing-your-app.md): the control API below `/_outpost`,
    /// faults, the journal; nil (the default): none of them exists.
    public var testTarget: TestTarget?
    /// How often locators and networks follow their layers' changes (`TaskRefresher`): a
    /// minute by default.
    public var taskRefreshInterval: Duration = .seconds(60)
    /// Called once the server listens, with the port it listens on (`--port 0` picks a free one).
    public var onServerRunning: (@Sendable (Int) async -> Void)?
    /// Tiles served, kept in memory for the tile routes and the fast path (`TileFastPath`).
    var tileCache = TileCache()

    public init(
        limits: UploadLimits = UploadLimits(), resultFileIdleTime: TimeInterval = 600, maximumConcurrentJobs: Int = 2,
        scheme: String = "http", syncLimits: SyncLimits = .standard, requireAuth: Bool = false, tokenMinutes: Int = 60,
        maximumTokenMinutes: Int = 1440, metrics: ServerMetrics = ServerMetrics(), jobLimits: JobLimits? = nil,
        idleTimeout: TimeInterval = 30, maxExportTiles: Int = TileServiceInfo.maxExportTilesCount,
        maxMapAreas: Int = MapAreaPlanner.defaultAreaLimit, resultQuotaBytes: Int64 = 2 << 30, itemQuotaBytes: Int64 = 10 << 30,
        crossOrigin: CrossOriginPolicy = .anyOrigin, publicURL: String? = nil
    ) {
        self.publicURL = publicURL
        self.crossOrigin = crossOrigin
        self.itemQuotaBytes = max(0, itemQuotaBytes)
        self.resultQuotaBytes = max(0, resultQuotaBytes)
        self.maxMapAreas = max(1, maxMapAreas)
        self.maxExportTiles = max(1, maxExportTiles)
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
public func buildApplication(
    store: some OutpostBackend, host: String = "127.0.0.1", port: Int = 8080, options: ServerOptions = ServerOptions(),
    logger: Logger = .outpostDefault
) -> some ApplicationProtocol {
    var application = Application(
        router: buildRouter(store: store, options: options, logger: logger),
        server: .http1(idleTimeout: options.idleTimeAmount, fastPath: tileFastPath(options, logger: logger)),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        services: backgroundServices(store: store, options: options, logger: logger),
        onServerRunning: { channel in await options.onServerRunning?(channel.localAddress?.port ?? port) },
        logger: logger)
    application.beforeServerStarts { try await prelude(store: store, options: options, logger: logger) }
    return application
}

/// The same application over HTTPS.
public func buildTLSApplication(
    store: some OutpostBackend, host: String = "127.0.0.1", port: Int = 8443, tls: TLSSetup,
    options: ServerOptions = ServerOptions(scheme: "https"), logger: Logger = .outpostDefault
) throws -> some ApplicationProtocol {
    var application = Application(
        router: buildRouter(store: store, options: options, logger: logger),
        server: try .tls(
            .http1(idleTimeout: options.idleTimeAmount, fastPath: tileFastPath(options, logger: logger)), tlsConfiguration: try tls.configuration()),
        configuration: .init(address: .hostname(host, port: port), serverName: "Outpost"),
        services: backgroundServices(store: store, options: options, logger: logger),
        onServerRunning: { channel in await options.onServerRunning?(channel.localAddress?.port ?? port) },
        logger: logger)
    application.beforeServerStarts { try await prelude(store: store, options: options, logger: logger) }
    return application
}

/// What ends before the first request is accepted: the start-up housekeeping, then a test
/// target's `start` snapshot (of the data as housekept).
func prelude(store: some OutpostBackend, options: ServerOptions, logger: Logger) async throws {
    try await StartupHousekeeping.run(store: store, logger: logger)
    try await options.testTarget?.prepareSnapshots(store: store, options: options)
}

/// Cached tiles answered before the router, unless tiles need a token (token security) or a
/// test target may fault them or journals every request.
func tileFastPath(_ options: ServerOptions, logger: Logger) -> TileFastPath? {
    options.requireAuth || options.testTarget != nil
        ? nil : TileFastPath(cache: options.tileCache, metrics: options.metrics, crossOrigin: options.crossOrigin, logger: logger)
}

/// What runs beside the HTTP server in the application's service group (service-lifecycle):
/// the backend's own services (the WAL checkpointer), the result-file sweeper, the map
/// areas' scheduled refreshes and the locators' and networks' refreshes. The group
/// starts them before the server and stops them after it has drained, in reverse order. The
/// start-up housekeeping is the server's prelude (`beforeServerStarts`): it ends before the
/// first request is accepted.
func backgroundServices(store: some OutpostBackend, options: ServerOptions, logger: Logger) -> [any Service] {
    let files = ResultFiles(of: store, idleTime: options.resultFileIdleTime)
    let sweeper = ResultFileSweeper(files: files, store: store, interval: .seconds(60), logger: logger)
    let refresher = ScheduledRefresher(
        store: store, files: files, maxExportTiles: options.maxExportTiles, requireAuth: options.requireAuth, interval: .seconds(60),
        logger: logger)
    let tasks = TaskRefresher(store: store, interval: options.taskRefreshInterval, logger: logger)
    // A test target's clock moved: what these do at their intervals happens at once.
    options.testTarget?.onClockMoved { (try? await StoreCall.run { refresher.tick() }).map { $0.map { "refreshed \($0)" } } ?? [] }
    options.testTarget?.onClockMoved {
        _ = try? await StoreCall.run { sweeper.sweep() }
        return []
    }
    options.testTarget?.onClockMoved { await tasks.tickWhenFree().map { "refreshed \($0)" } }
    return store.backgroundServices + [
        sweeper, StoppedProcessJobReaper(jobs: store.jobs, clock: store.clock, interval: .seconds(15), logger: logger), refresher, tasks,
    ]
}

/// The ArcGIS REST routes. Every resource answers GET and POST (the ArcGIS API for Python
/// POSTs metadata requests); every failure is an ArcGIS error envelope.
public func buildRouter(store: some OutpostBackend, limits: UploadLimits) -> Router<OutpostRequestContext> {
    buildRouter(store: store, options: ServerOptions(limits: limits))
}

public func buildRouter(
    store: some OutpostBackend, options: ServerOptions = ServerOptions(),
    logger: Logger = .outpostDefault
) -> Router<OutpostRequestContext> {
    let router = Router(context: OutpostRequestContext.self)
    router.add(middleware: RequestLogMiddleware(logger: logger, metrics: options.metrics))
    if let target = options.testTarget { router.add(middleware: RequestJournalMiddleware(journal: target.journal)) }
    if options.testTarget != nil, IdentifierSeed.isSeeded { router.add(middleware: IdentifierStreamMiddleware()) }
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: CrossOriginMiddleware(policy: options.crossOrigin))
    router.add(middleware: ServerOriginMiddleware(origin: options.origin))
    let runner = JobRunner(limits: options.jobLimits, logger: logger, gate: options.testTarget?.faults)
    let files = ResultFiles(of: store, idleTime: options.resultFileIdleTime)
    let authenticator = Authenticator(
        store: store, required: options.requireAuth, defaultMinutes: options.tokenMinutes,
        maximumMinutes: options.maximumTokenMinutes)
    let services = ServicesController(store: store)

    // Health and metrics: plain HTTP, outside the ArcGIS envelope.
    HealthRoutes(store: store, metrics: options.metrics, runner: runner).addRoutes(to: router)

    // Everything under /arcgis answers in ArcGIS's forms: the HTML directory outermost (it
    // renders envelopes too), then the envelope, then per role the admission and the form.
    func answersInArcGISForms(_ group: RouterGroup<OutpostRequestContext>) -> RouterGroup<OutpostRequestContext> {
        group.add(middleware: HTMLDirectoryMiddleware()).add(middleware: ErrorEnvelopeMiddleware(logger: logger))
    }
    let arcgis = answersInArcGISForms(router.group("arcgis"))
    // After the admission, what an API key reaches by the route's row (`APIKeyReachMiddleware`).
    // A test target's faults fire once a request is admitted, as the route would answer.
    func admitted(
        _ group: RouterGroup<OutpostRequestContext>, role: UserRole?, identifies: Bool = false, faults: Bool = true
    ) -> RouterGroup<OutpostRequestContext> {
        let admitted = group.add(
            middleware: FormAdmissionMiddleware(
                role: role, identifies: identifies, authenticator: authenticator, limits: options.limits,
                temporaryDirectory: store.temporaryDirectory)
        )
        .add(middleware: APIKeyReachMiddleware(requireAuth: options.requireAuth))
        if faults, let target = options.testTarget { admitted.add(middleware: FaultMiddleware(board: target.faults)) }
        return admitted.add(middleware: HTMLFormMiddleware())
    }

    let open = RouteCollection(context: OutpostRequestContext.self)
        .read("rest/info") { request, c in
            services.info(
                c.form.parameters, request: request, origin: options.origin, requireAuth: options.requireAuth,
                tokenMinutes: options.tokenMinutes)
        }
        .read("rest/info/healthCheck") { _, c in
            guard try await StoreCall.run({ store.maintenance.health().isHealthy }) else {
                throw ArcGISError(kind: .unavailable, message: "Server is not ready.", details: ["The database does not answer."])
            }
            return RESTResponse.json(["success": true], parameters: c.form.parameters)
        }
        .stateChanging("tokens/generateToken", postOnly: options.requireAuth) { request, c in
            try await authenticator.generateToken(
                c.form.parameters, address: c.remoteAddress, server: options.origin.address(of: request), scheme: options.origin.scheme)
        }
        .read("tokens") { _, c in RESTResponse.json(["currentVersion": .double(FeatureServiceMetadata.currentVersion)], parameters: c.form.parameters)
        }
    admitted(arcgis.group(), role: nil).addRoutes(open)

    let exports = TileExportController(
        store: store, files: files, runner: runner, origin: options.origin, maxExportTiles: options.maxExportTiles,
        resultQuotaBytes: options.resultQuotaBytes, logger: logger)
    let directory = RouteCollection(context: OutpostRequestContext.self)
    exports.addOutputRoutes(to: directory)
    directory
        .read("rest/services", store: { request, c in try services.list(c.form.parameters, request: request) })
        .read("rest/services/:service", store: { _, c in try services.folder(c.form.parameters, context: c) })
        .read("rest/**") { request, _ in
            throw ArcGISError(kind: .notFound, message: "Requested resource not found.", details: ["Outpost has no resource at \(request.uri.path)."])
        }
    admitted(arcgis.group(), role: .viewer).addRoutes(directory)

    // A service's resources, each controller adding its own; reached directly and through a
    // folder (`services/<folder>/<name>/…`, ArcGIS Server's one level of folders).
    let routes = ArcGISRoutes(requireAuth: options.requireAuth)
    services.addServiceRoutes(to: routes)
    EditsController(store: store).addRoutes(to: routes)
    QueryController(store: store).addRoutes(to: routes)
    RelatedRecordsController(store: store).addRoutes(to: routes)
    AttachmentsController(store: store).addRoutes(to: routes)
    ReplicasController(
        store: store, files: files, runner: runner, origin: options.origin, syncLimits: options.syncLimits,
        resultQuotaBytes: options.resultQuotaBytes, logger: logger
    )
    .addRoutes(to: routes)
    UploadsController(store: store).addRoutes(to: routes)
    VersionsController(store: store).addRoutes(to: routes)
    TileServicesController(store: store, cache: options.tileCache, maxExportTiles: options.maxExportTiles).addRoutes(to: routes)
    GeocodeController(store: store).addRoutes(to: routes)
    RouteController(store: store).addRoutes(to: routes)
    exports.addRoutes(to: routes)
    PackagingController(
        store: store, files: files, runner: runner, origin: options.origin, requireAuth: options.requireAuth, maxExportTiles: options.maxExportTiles,
        maxMapAreas: options.maxMapAreas
    ).addRoutes(to: routes)
    for prefix in ServiceRoutes.prefixes {
        admitted(arcgis.group(RouterPath(prefix)), role: .viewer).addRoutes(routes.viewers)
        admitted(arcgis.group(RouterPath(prefix)), role: .editor).addRoutes(routes.editors)
    }

    // Layers' administrative definitions (`addToDefinition`): an admin's.
    let definitions = RouteCollection(context: OutpostRequestContext.self)
    LayerDefinitionController(store: store).addRoutes(to: definitions)
    BackupsController(backups: options.backups).addRoutes(to: definitions)
    JobsController(runner: runner).addRoutes(to: definitions)
    StorageController(store: store).addRoutes(to: definitions)
    admitted(arcgis.group(), role: .admin).addRoutes(definitions)

    // The portal: anyone may ask (item sharing decides what they see), a token names them;
    // changes need an editor. Served at /arcgis/sharing/rest and /sharing/rest.
    let portal = PortalController(
        store: store, requireAuth: options.requireAuth, origin: options.origin, tokenMinutes: options.tokenMinutes, files: files,
        maxMapAreas: options.maxMapAreas, itemQuotaBytes: options.itemQuotaBytes, tileCache: options.tileCache)
    let portalReads = RouteCollection(context: OutpostRequestContext.self)
    portal.addReadRoutes(to: portalReads)
    let portalChanges = RouteCollection(context: OutpostRequestContext.self)
    portal.addChangeRoutes(to: portalChanges)
    PublishingController(portal: portal, runner: runner, scratchDirectory: store.temporaryDirectory).addRoutes(to: portalChanges)
    portal.addMemberReadRoutes(to: portalReads)
    // A member's own sign-ins: any signed-in user's, read and ended (their rows say whose).
    portal.addSessionRoutes(to: portalReads)
    // The organisation's members: an administrator's to add, change and remove.
    let portalAdmin = RouteCollection(context: OutpostRequestContext.self)
    portal.addMemberAdminRoutes(to: portalAdmin)
    // The organisation's utility services: an administrator's to choose.
    portal.addHelperServiceRoutes(to: portalAdmin)
    let portalTokens = RouteCollection(context: OutpostRequestContext.self)
        .stateChanging("generateToken", postOnly: options.requireAuth) { request, c in
            try await authenticator.generateToken(
                c.form.parameters, address: c.remoteAddress, server: options.origin.address(of: request), scheme: options.origin.scheme)
        }
    let viewer = RouteCollection(context: OutpostRequestContext.self)
    portal.addViewerRoutes(to: viewer)
    admitted(arcgis.group(), role: nil, identifies: true).addRoutes(viewer)
    // Map previews' own files (Leaflet from Debian, the preview script): public, like a page's styles.
    MapPreview.addStaticRoutes(to: router)
    for root in [arcgis.group("sharing/rest"), answersInArcGISForms(router.group("sharing/rest"))] {
        admitted(root.group(), role: nil).addRoutes(portalTokens)
        admitted(root.group(), role: nil, identifies: true).addRoutes(portalReads)
        admitted(root.group(), role: .editor).addRoutes(portalChanges)
        admitted(root.group(), role: .admin).addRoutes(portalAdmin)
    }

    // The portal's OAuth 2.0 (docs/identity.md): pages and token endpoints, outside the HTML directory.
    let oauth = OAuthController(store: store, authenticator: authenticator, options: options).routes()
    for root in OAuthEndpoints.roots {
        let group = router.group(RouterPath(root)).add(middleware: ErrorEnvelopeMiddleware(logger: logger))
        admitted(group.group(), role: nil).addRoutes(oauth.open)
        admitted(group.group(), role: nil, identifies: true).addRoutes(oauth.identified)
        admitted(group.group(), role: .editor).addRoutes(oauth.editors)
    }

    // The organisation's home in the browser (docs/home.md): a client of the routes above,
    // reaching them in process through the finished router; it reads no token itself.
    let home = HomeController(gateway: HomeGateway(logger: logger), origin: options.origin, clock: store.clock)
    home.addRoutes(
        to: router,
        admission: FormAdmissionMiddleware(
            role: nil, identifies: false, authenticator: authenticator, limits: options.limits, temporaryDirectory: store.temporaryDirectory))

    // The test target's control API (docs/testing-your-app.md): only when asked for; an admin's
    // under token security; never faulted itself.
    if let target = options.testTarget {
        let control = RouteCollection(context: OutpostRequestContext.self)
        TestTargetController(store: store, target: target).addRoutes(to: control)
        let group = router.group(RouterPath(TestTargetPaths.root)).add(middleware: ControlAPIGuard(publicURL: options.publicURL))
            .add(middleware: ErrorEnvelopeMiddleware(logger: logger))
        admitted(group.group(), role: .admin, faults: false).addRoutes(control)
        TestTargetPage.addRoutes(to: group)
    }
    home.gateway.install(router.buildResponder())
    return router
}

/// How service routes are registered with and without a folder.
enum ServiceRoutes {
    /// Where a service's routes are mounted, below `/arcgis`: by name, and by folder and name.
    /// The folder takes the `:service` slot so both forms share one router node: the
    /// constants that follow a service name (`FeatureServer`, …) are tried before the second
    /// parameter, and no parameter of a branch that failed is left behind.
    static let prefixes = ["rest/services/:service", "rest/services/:service/:\(nameInFolder)"]
    /// The path parameter holding the service's name when `:service` holds its folder.
    static let nameInFolder = "serviceInFolder"

    /// What follows a service's name in a path (the service kind, or its result files).
    static let kinds: Set = [
        "FeatureServer", "VersionManagementServer", "MapServer", "VectorTileServer", "GPServer", "GeocodeServer", "NAServer", "replicafiles",
    ]

    /// Where the service kind sits in a path's segments (`arcgis`, `rest`, `services`, …):
    /// after the name (4), or after the folder and the name (5).
    static func kindIndex(_ segments: [String], among kinds: Set<String> = kinds) -> Int? {
        [4, 5].first { segments.count > $0 && kinds.contains(segments[$0]) }
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
            throw ArcGISError(
                kind: .notFound, message: "Layer or table not found.",
                details: ["'\(parameters.get("layer") ?? "")' is not a layer id."])
        }
        return id
    }

    func integer(_ name: String) throws -> Int64 {
        guard let text = parameters.get(name), let value = Int64(text) else {
            throw ArcGISError(
                kind: .notFound, message: "Requested resource not found.",
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
