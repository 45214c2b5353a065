import OutpostWire

/// A request to `oauth2/registerApp`, checked for its form: the `Application` item, the kind
/// of app and where a sign-in may send the browser back to. Whether the caller owns the item
/// is the route's to decide.
public struct AppRegistration: Sendable, Equatable {
    /// The kinds of app `registerApp` takes, as ArcGIS names them.
    public static let appTypes: Set = ["browser", "native", "server", "multiple"]
    public static let maximumRedirectURIs = 32
    /// Schemes a browser must never be sent to with a code or token in the address.
    static let refusedSchemes: Set = ["javascript", "data", "vbscript", "file", "blob", "about"]

    public var itemId: String
    public var appType: String
    public var redirectURIs: [String]

    public init(itemId: String, appType: String, redirectURIs: [String]) {
        self.itemId = itemId
        self.appType = appType
        self.redirectURIs = redirectURIs
    }

    /// `itemId`, `appType` and `redirect_uris` (a JSON array of strings, empty when absent).
    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> AppRegistration {
        guard let itemId = p.string("itemId") else { throw ArcGISError.missingParameter("itemId") }
        guard AuthorizationRequest.isToken(itemId, length: 1...64) else { throw ArcGISError.invalidParameter("itemId", "an item id") }
        guard let appType = p.string("appType")?.lowercased() else { throw ArcGISError.missingParameter("appType") }
        guard appTypes.contains(appType) else { throw ArcGISError.invalidParameter("appType", "browser, native, server or multiple") }
        return AppRegistration(itemId: itemId, appType: appType, redirectURIs: try redirectURIs(p.string("redirect_uris")))
    }

    /// The URIs of a JSON array, each checked (`isRedirectURI`), duplicates dropped.
    public static func redirectURIs(_ text: String?) throws(ArcGISError) -> [String] {
        guard let text else { return [] }
        guard text.utf8.count <= 64 * 1024, let value = try? JSONParser.parse(text), let list = value.arrayValue else {
            throw ArcGISError.invalidParameter("redirect_uris", "a JSON array of URIs")
        }
        guard list.count <= maximumRedirectURIs else { throw ArcGISError.invalidParameter("redirect_uris", "at most \(maximumRedirectURIs) URIs") }
        var uris: [String] = []
        for entry in list {
            guard let uri = entry.stringValue, isRedirectURI(uri) else {
                throw ArcGISError.invalidParameter(
                    "redirect_uris",
                    "'\(entry.stringValue?.prefix(100) ?? "?")' is no redirect URI: https, http on this machine, or an app's own scheme")
            }
            if !uris.contains(uri) { uris.append(uri) }
        }
        return uris
    }

    /// An absolute URI without a fragment, white space or control characters: `https://…`,
    /// `http://` on a loopback host only (RFC 8252, 7.3), or an app's own scheme
    /// (`com.example.app:/callback`); never one that runs or shows what it carries.
    public static func isRedirectURI(_ uri: String) -> Bool {
        guard (1...2048).contains(uri.utf8.count), uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0.isASCII }),
            !uri.contains("#"), let colon = uri.firstIndex(of: ":")
        else { return false }
        let scheme = uri[..<colon].lowercased()
        guard let first = scheme.utf8.first, AuthorizationRequest.isAlphanumeric(first), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
            scheme.utf8.allSatisfy({
                AuthorizationRequest.isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
            }),
            !refusedSchemes.contains(scheme), uri.utf8.count > scheme.utf8.count + 1
        else { return false }
        switch scheme {
        case "https": return ServerAddress(url: uri) != nil && !authorityHasUserInfo(uri)
        case "http":
            guard let address = ServerAddress(url: uri), !authorityHasUserInfo(uri) else { return false }
            return ["localhost", "127.0.0.1", "[::1]"].contains(address.host)
        default: return true
        }
    }

    static func authorityHasUserInfo(_ uri: String) -> Bool {
        guard let start = uri.range(of: "://") else { return false }
        return uri[start.upperBound...].prefix { $0 != "/" && $0 != "?" }.contains("@")
    }
}
