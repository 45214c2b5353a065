import HTTPTypes
import Hummingbird
import OutpostWire

/// Keeps web pages elsewhere away from a test target's control API and its page
/// (docs/testing-your-app.md, "The page and who may use the control API"): without
/// `--require-auth` anyone who reaches the port may drive it, so a browser's visit must not.
/// A request whose `Origin` is not the request's own (`null` included) is refused, as is one
/// whose `Host` is a name other than `localhost` or the `--public-url`'s: once a page's name
/// resolves to this server (DNS rebinding) it is the page's own origin to the browser, but
/// the name gives it away. Refused requests get ArcGIS's 403 envelope; nothing is done.
/// `CrossOriginMiddleware` adds no CORS headers below `/_outpost` (`TestTargetPaths.isControl`).
struct ControlAPIGuard: RouterMiddleware {
    typealias Context = OutpostRequestContext

    /// The `--public-url`: its host is the one name besides `localhost` admitted, and its origin
    /// a page's (a proxy may pass on its own `Host`).
    let publicAddress: ServerAddress?

    init(publicURL: String?) {
        publicAddress = publicURL.flatMap(ServerAddress.init(url:))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = refusal(origin: request.headers[.origin], host: request.head.authority) {
            // HTTP 403 as well as the envelope: a browser or proxy in between acts on the status.
            var refused = RESTResponse.error(ArcGISError(kind: .forbidden, message: "Control API request not allowed.", details: [refusal]))
            refused.status = .forbidden
            return refused
        }
        return try await next(request, context)
    }

    /// Why a request that names `origin` and `host` is refused; nil: admitted. Pure.
    func refusal(origin: String?, host: String?) -> String? {
        if let host, !admits(host: host) {
            return "The control API answers only at localhost, an IP address or the public URL's host, not \(host.prefix(200))."
        }
        if let origin, !admits(origin: origin, host: host) {
            return "The control API answers only its own page, not a page at \(origin.prefix(200))."
        }
        return nil
    }

    /// The request's own origin (`Origin`'s host and port are `Host`'s) or the public URL's;
    /// `null` and anything malformed are not.
    func admits(origin: String, host: String?) -> Bool {
        guard let page = WebOrigin.canonical(origin).flatMap(ServerAddress.init(url:)) else { return false }
        if let publicAddress, page == publicAddress { return true }
        guard let host, let own = ServerAddress(scheme: page.scheme, authority: host) else { return false }
        return own.host == page.host && own.port == page.port
    }

    /// An IP literal, `localhost` or a name below it, or the public URL's host.
    func admits(host: String) -> Bool {
        guard let name = ServerAddress(scheme: "http", authority: host)?.host else { return false }
        return WebOrigin.isAddressOrLocalhost(name) || name.hasSuffix(".localhost") || name == publicAddress?.host
    }
}
