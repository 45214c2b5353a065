import Foundation
import HTTPTypes
import OutpostWire

/// Which web pages may read Outpost's answers (CORS), as ArcGIS Server's REST API decides it
/// (docs/web-clients.md, "Cross-origin requests"): every origin by default; with an allowed list
/// only those, the server's own pages and the token service. An allowed origin is echoed in
/// `Access-Control-Allow-Origin`. With a list, a browser's request from a page that is not
/// allowed is refused before it is routed — `<script>` and `<img>` loads included, which carry
/// no `Origin` — so a page elsewhere can neither read nor change through its visitor.
///
/// Pure: `decide` takes what the request says and returns what to do.
public struct CrossOriginPolicy: Sendable, Equatable {
    /// nil: every origin.
    public let allowed: Set<String>?

    public static let anyOrigin = CrossOriginPolicy(allowed: nil)

    /// The methods a preflight is told are allowed: every route answers GET and POST.
    static let allowedMethods = "GET, POST, HEAD, OPTIONS"
    /// How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours).
    static let preflightSeconds = 86400

    private init(allowed: Set<String>?) {
        self.allowed = allowed
    }

    /// Parses `--allowed-origins`: `*`, or a comma-separated list of origins
    /// (`scheme://host[:port]`, no path); nil when one is malformed.
    public init?(allowedOrigins text: String) {
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !entries.isEmpty else { return nil }
        if entries == ["*"] {
            self.init(allowed: nil)
            return
        }
        var origins = Set<String>()
        for entry in entries {
            guard let origin = WebOrigin.canonical(entry) else { return nil }
            origins.insert(origin)
        }
        self.init(allowed: origins)
    }

    /// What to do with one request.
    public enum Decision: Equatable, Sendable {
        /// Not a cross-origin read: route it; its answer only says it varies by `Origin`.
        case route
        /// Route it and add these headers to its answer.
        case allow(HTTPFields)
        /// A preflight: answer it here, empty, with these headers.
        case preflight(HTTPFields)
        /// A page that is not allowed: refuse it before routing.
        case refuse(origin: String)
    }

    /// What a request says about the page that sent it.
    public struct Request: Sendable {
        public var method: HTTPRequest.Method
        public var path: String
        /// `Origin`: sent by browsers with every CORS request and every POST.
        public var origin: String?
        /// `Host` (the `:authority`).
        public var host: String?
        /// `Sec-Fetch-Site`: sent by browsers with every request, `Origin` or not (a `<script>`
        /// or `<img>` elsewhere sends no `Origin`); other clients send none.
        public var fetchSite: String?
        /// `Referer`: the page's address, or at least its origin under browsers' default policy.
        public var referer: String?
        public var requestedMethod: String?
        public var requestedHeaders: String?

        public init(
            method: HTTPRequest.Method, path: String, origin: String? = nil, host: String? = nil, fetchSite: String? = nil,
            referer: String? = nil, requestedMethod: String? = nil, requestedHeaders: String? = nil
        ) {
            (self.method, self.path, self.origin, self.host, self.fetchSite) = (method, path, origin, host, fetchSite)
            (self.referer, self.requestedMethod, self.requestedHeaders) = (referer, requestedMethod, requestedHeaders)
        }
    }

    public func decide(_ request: Request) -> Decision {
        let isPreflight = request.method == .options && request.requestedMethod != nil
        if let allowed, !Self.isTokenService(request.path), let page = Self.page(of: request) {
            guard let origin = page, Self.admits(origin, allowed: allowed, host: request.host, isPreflight: isPreflight) else {
                return .refuse(origin: page ?? "a page that names no origin")
            }
        }
        guard let origin = request.origin else { return .route }
        if !isPreflight, let host = request.host, WebOrigin.authority(of: origin)?.lowercased() == host.lowercased() { return .route }
        var headers: HTTPFields = [.accessControlAllowOrigin: origin, .accessControlAllowCredentials: "true", .vary: "Origin"]
        guard isPreflight else { return .allow(headers) }
        headers[.accessControlAllowMethods] = Self.allowedMethods
        if let requested = request.requestedHeaders, WebOrigin.isHeaderList(requested) { headers[.accessControlAllowHeaders] = requested }
        headers[.accessControlMaxAge] = String(Self.preflightSeconds)
        return .preflight(headers)
    }

    /// The headers a cached tile's answer carries (the fast path answers only plain GETs);
    /// nil when the request is refused.
    func headersForGET(_ request: Request) -> HTTPFields? {
        switch decide(request) {
        case .route: return [.vary: "Origin"]
        case .allow(let headers), .preflight(let headers): return headers
        case .refuse: return nil
        }
    }

    /// The page a browser's request comes from: `Origin`, else the `Referer`'s origin, else,
    /// for the browser's own idea of a same-origin request, the host. nil: not a browser's
    /// page (other clients send neither `Origin` nor `Sec-Fetch-Site`; a typed address says
    /// `none`); `.some(nil)`: a browser's page that names no origin.
    private static func page(of request: Request) -> String?? {
        if let origin = request.origin { return origin }
        guard let site = request.fetchSite?.lowercased(), site != "none" else { return nil }
        if let origin = request.referer.flatMap(WebOrigin.origin(ofAddress:)) { return origin }
        return .some(site == "same-origin" ? request.host.map { "http://" + $0 } : nil)
    }

    /// A listed origin, or the server's own page — by a name only when it is listed: once its
    /// name resolves to the server's address, a page of any name is the server's own to the
    /// browser (DNS rebinding); addressed by IP or `localhost` it cannot be.
    private static func admits(_ page: String, allowed: Set<String>, host: String?, isPreflight: Bool) -> Bool {
        guard let canonical = WebOrigin.canonical(page) else { return false }
        if allowed.contains(canonical) { return true }
        guard !isPreflight, let host, WebOrigin.authority(of: page)?.lowercased() == host.lowercased() else { return false }
        return WebOrigin.isAddressOrLocalhost(host)
    }

    /// ArcGIS: "The token service supports cross-origin access and will always allow access to
    /// all domains."
    static func isTokenService(_ path: String) -> Bool {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return Authenticator.tokenServices.contains(bare) || OAuthEndpoints.tokenServices.contains(bare)
    }
}
