import Hummingbird
import OutpostWire

/// Where clients reach this server, as every URL Outpost writes names it (result files, job
/// status, `rest/info`'s `owningSystemUrl`, the portal's `portalHostname`, packaged maps):
/// `public-url` when the operator gives one (ArcGIS's web context URL: a proxy's address),
/// otherwise the scheme served and the `Host` each request names. A `Host` that is no
/// `host[:port]` is refused before routing (`ServerOriginMiddleware`), and without a
/// `public-url` answers that may name it are not stored by caches.
public struct ServerOrigin: Sendable, Equatable {
    /// The scheme this process serves.
    public let servedScheme: String
    /// `scheme://host[:port]`, lower-cased, no default port, no path; nil: from each request.
    public let publicURL: String?

    public init(servedScheme: String, publicURL: String? = nil) {
        self.servedScheme = servedScheme
        self.publicURL = publicURL
    }

    /// `--public-url` in its written form (`ServerAddress.origin(ofPublicURL:)`); nil for
    /// anything else.
    public static func publicURL(_ text: String) -> String? { ServerAddress.origin(ofPublicURL: text) }

    /// The scheme clients reach this server by.
    public var scheme: String { publicURL.flatMap { ServerAddress(url: $0)?.scheme } ?? servedScheme }

    /// `scheme://host[:port]` of this server as a client of `request` reaches it.
    func of(_ request: Request) -> String { publicURL ?? "\(servedScheme)://\(request.head.authority ?? "127.0.0.1")" }

    /// `host[:port]` of `of(_:)`.
    func authority(of request: Request) -> String {
        let origin = of(request)
        return String(origin[origin.range(of: "://")!.upperBound...])
    }

    /// This server's address as `request` reached it, for comparing with a client's URL.
    func address(of request: Request) -> ServerAddress? {
        if let publicURL { return ServerAddress(url: publicURL) }
        return request.head.authority.flatMap { ServerAddress(scheme: servedScheme, authority: $0) }
    }
}
