import Foundation
import HTTPTypes

/// Which web pages may read Outpost's answers (CORS), as ArcGIS Server's REST API decides it
/// (docs/web-clients.md, "Cross-origin requests"): every origin by default; with an allowed list
/// only those, the server's own pages and the token service. An allowed origin is echoed in
/// `Access-Control-Allow-Origin`. A request from an origin that is not allowed is refused
/// before it is routed, so a page elsewhere cannot even make a change it cannot read.
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
    /// The longest `Access-Control-Request-Headers` echoed back.
    static let maximumRequestedHeadersBytes = 1024

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
            guard let origin = Self.canonical(entry) else { return nil }
            origins.insert(origin)
        }
        self.init(allowed: origins)
    }

    /// What to do with one request.
    public enum Decision: Equatable, Sendable {
        /// Not a cross-origin request (no `Origin`, or the server's own): route it, add nothing.
        case sameOrigin
        /// Route it and add these headers to its answer.
        case allow(HTTPFields)
        /// A preflight: answer it here, empty, with these headers.
        case preflight(HTTPFields)
        /// An origin that is not allowed: refuse it before routing (403).
        case refuse(origin: String)
    }

    /// - Parameters:
    ///   - origin: the request's `Origin` header.
    ///   - host: the request's `Host` header (the server's own origin is always allowed, whatever
    ///     the scheme a proxy in front speaks).
    ///   - path: the request's path (the token service allows every origin).
    ///   - requestedMethod: `Access-Control-Request-Method` of an `OPTIONS` request.
    ///   - requestedHeaders: `Access-Control-Request-Headers` of an `OPTIONS` request.
    public func decide(
        method: HTTPRequest.Method, origin: String?, host: String?, path: String, requestedMethod: String? = nil,
        requestedHeaders: String? = nil
    ) -> Decision {
        guard let origin else { return .sameOrigin }
        let isPreflight = method == .options && requestedMethod != nil
        if !isPreflight, let host, Self.hostPart(of: origin)?.lowercased() == host.lowercased() { return .sameOrigin }
        guard admits(origin, path: path) else { return .refuse(origin: origin) }
        var headers: HTTPFields = [
            .accessControlAllowOrigin: origin, .accessControlAllowCredentials: "true", .vary: "Origin",
        ]
        guard isPreflight else { return .allow(headers) }
        headers[.accessControlAllowMethods] = Self.allowedMethods
        if let requested = requestedHeaders, Self.isHeaderList(requested) { headers[.accessControlAllowHeaders] = requested }
        headers[.accessControlMaxAge] = String(Self.preflightSeconds)
        return .preflight(headers)
    }

    /// The headers a cached tile's answer carries (the fast path answers only plain GETs);
    /// nil when the request is refused.
    func headersForGET(origin: String?, host: String?, path: String) -> HTTPFields? {
        switch decide(method: .get, origin: origin, host: host, path: path) {
        case .sameOrigin: return [:]
        case .allow(let headers), .preflight(let headers): return headers
        case .refuse: return nil
        }
    }

    private func admits(_ origin: String, path: String) -> Bool {
        guard let allowed else { return true }
        if Self.isTokenService(path) { return true }
        guard let canonical = Self.canonical(origin) else { return false }
        return allowed.contains(canonical)
    }

    /// ArcGIS: "The token service supports cross-origin access and will always allow access to
    /// all domains."
    static func isTokenService(_ path: String) -> Bool {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return ["/arcgis/tokens/generateToken", "/arcgis/tokens", "/arcgis/sharing/rest/generateToken", "/arcgis/sharing/generateToken"]
            .contains(bare)
    }

    /// `scheme://host[:port]` lowercased, the default port dropped; nil for anything else
    /// (a path, a query, user info, `null`).
    static func canonical(_ origin: String) -> String? {
        let lowered = origin.lowercased()
        let scheme: String
        let defaultPort: String
        if lowered.hasPrefix("https://") {
            (scheme, defaultPort) = ("https", "443")
        } else if lowered.hasPrefix("http://") {
            (scheme, defaultPort) = ("http", "80")
        } else {
            return nil
        }
        var authority = String(lowered.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, authority.utf8.count <= 255,
            authority.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) }), authority.first != ":"
        else { return nil }
        if authority.hasSuffix(":" + defaultPort) { authority.removeLast(defaultPort.count + 1) }
        return scheme + "://" + authority
    }

    /// `host[:port]` of an origin as the browser sends it.
    private static func hostPart(of origin: String) -> Substring? {
        guard let range = origin.range(of: "://") else { return nil }
        return origin[range.upperBound...]
    }

    /// Header names separated by commas: echoed back only when they look like that.
    private static func isHeaderList(_ text: String) -> Bool {
        text.utf8.count <= maximumRequestedHeadersBytes
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_, ".unicodeScalars.contains($0))
            }
    }
}
