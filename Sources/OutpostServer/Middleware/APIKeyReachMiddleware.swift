import Hummingbird
import OutpostIdentity
import OutpostService
import OutpostStorage
import OutpostWire

/// What an API key reaches (docs/identity.md, "API keys: what a key reaches"), after the
/// admission named the caller: the page carrying the key must be one its app allows
/// (`ReferrerRule`), then, by what the route's row of the authorization table says
/// (`Row.apiKeys`, found by the route the router matched; a route of no row is refused), a
/// service route needs the service's item in the key's reach, a route refused to keys
/// answers 403, and the portal's reads are left to `PortalCaller`. Callers without a key
/// pass untouched.
struct APIKeyReachMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    /// Token security: the services' items are the organisation's (else public: every key's).
    let requireAuth: Bool

    /// What keys reach by method and router path (`Row.routerPaths`), built once: a key's
    /// request looks its route up instead of walking the table.
    static let reachByRoute: [String: AuthorizationTable.KeyReach] = {
        var index: [String: AuthorizationTable.KeyReach] = [:]
        for row in AuthorizationTable.server.rows {
            for method in row.routerMethods {
                for path in row.routerPaths where index["\(method) \(path)"] == nil { index["\(method) \(path)"] = row.apiKeys }
            }
        }
        return index
    }()

    static let deniedMessage = "Token is valid but access is denied."
    static let denied = ArcGISError(kind: .forbidden, message: deniedMessage)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let user = context.user, let scope = user.apiKey else { return try await next(request, context) }
        let reach = context.endpointPath.flatMap { Self.reachByRoute["\(request.method) \($0)"] } ?? .refused
        guard reach != .open else { return try await next(request, context) }
        let page = ReferrerRule(scope.httpReferrers)
        guard page.allows(referer: request.headers[.referer], origin: request.headers[.origin]) else { throw Self.denied }
        switch reach {
        case .open, .items: break
        case .refused: throw Self.denied
        case .services:
            guard let item = try Self.serviceItem(request.uri.path, context: context),
                PortalCaller.user(user).maySee(Self.serviceItem(id: item, requireAuth: requireAuth))
            else { throw Self.denied }
        }
        return try await next(request, context)
    }

    /// The portal item of the service a path is below (`ServiceItems`): a feature service's
    /// for FeatureServer, VersionManagementServer and replicafiles, a tile service's for
    /// MapServer and VectorTileServer; nil for anything else (GPServer).
    static func serviceItem(_ path: String, context: Context) throws -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard let index = ServiceRoutes.kindIndex(segments) else { return nil }
        let name = try context.serviceName()
        switch segments[index] {
        case "FeatureServer", "VersionManagementServer", "replicafiles": return ServiceItems.id(forService: name)
        case "MapServer", "VectorTileServer": return ServiceItems.id(forService: "\(segments[index]):\(name)")
        default: return nil
        }
    }

    /// A service's item as `ServiceItems` makes it, for the sharing rule.
    static func serviceItem(id: String, requireAuth: Bool) -> PortalItem {
        PortalItem(id: id, owner: ServiceItems.owner, title: "", type: "Feature Service", access: requireAuth ? .org : .public, created: 0)
    }
}
