import OutpostStorage
import OutpostWire

/// Who asks for a sign-in: one of the portal's built-in clients, or a registered app.
public enum OAuthClient: Sendable, Equatable {
    /// A client every portal knows without registration (the portal's own pages, the ArcGIS
    /// API for Python, ArcGIS Pro, …): it may be sent back only to the portal itself or to the
    /// out-of-band page.
    case builtIn(String)
    case registered(RegisteredApp)

    /// The built-in client ids, as ArcGIS Enterprise's portal answers them.
    public static let builtInIds: Set = ["arcgisonline", "pythonapi", "arcgisprojects", "arcgispro", "arcgisnotebooks", "arcgisfieldmaps"]
    /// The out-of-band redirect: the code or token is shown on a page of the portal.
    public static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"

    public var id: String {
        switch self {
        case .builtIn(let id): id
        case .registered(let app): app.clientId
        }
    }

    /// Whether the browser may be sent back to `uri`: exactly one of a registered app's URIs
    /// (or the out-of-band page); for a built-in client, the out-of-band page or an address of
    /// the portal itself (`portal`, as the request reached it: same host and port, over
    /// HTTPS or the portal's own scheme). No other address, so a sign-in never hands a token
    /// to a page an attacker named (RFC 6749, 10.6).
    public func allowsRedirect(to uri: String, portal: ServerAddress?) -> Bool {
        guard !uri.isEmpty, uri.utf8.count <= 2048, !uri.contains(where: { $0.isWhitespace || $0 == "#" }) else { return false }
        switch self {
        case .registered(let app): return uri == Self.outOfBand || app.redirectURIs.contains(uri)
        case .builtIn:
            if uri == Self.outOfBand { return true }
            guard let portal, let target = ServerAddress(url: uri), !uri.contains("@") else { return false }
            return target.host == portal.host && target.port == portal.port && (target.scheme == "https" || target.scheme == portal.scheme)
        }
    }
}
