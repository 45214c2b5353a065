import OutpostWire

/// A request to `oauth2/registerApp`, checked for its form: the `Application` (or `API Key`)
/// item, the kind of app, where a sign-in may send the browser back to, and what its API keys
/// may do and from which pages. Whether the caller owns the item is the route's to decide.
public struct AppRegistration: Sendable, Equatable {
    /// The kinds of app `registerApp` takes, as ArcGIS names them.
    public static let appTypes: Set = ["browser", "native", "server", "multiple", "apikey"]
    public static let maximumRedirectURIs = 32
    /// Schemes a browser must never be sent to with a code or token in the address.
    static let refusedSchemes: Set = ["javascript", "data", "vbscript", "file", "blob", "about"]

    public var itemId: String
    public var appType: String
    public var redirectURIs: [String]
    /// `APIKeyPrivileges`, in order.
    public var privileges: [String]
    /// Pages whose `Referer` may carry the app's keys (`httpReferrers`); empty: any.
    public var httpReferrers: [String]

    public init(itemId: String, appType: String, redirectURIs: [String], privileges: [String] = [], httpReferrers: [String] = []) {
        self.itemId = itemId
        self.appType = appType
        self.redirectURIs = redirectURIs
        self.privileges = privileges
        self.httpReferrers = httpReferrers
    }

    /// `itemId`, `appType`, `redirect_uris`, `privileges` and `httpReferrers` (JSON arrays of
    /// strings, empty when absent).
    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> AppRegistration {
        guard let itemId = p.string("itemId") else { throw ArcGISError.missingParameter("itemId") }
        guard AuthorizationRequest.isToken(itemId, length: 1...64) else { throw ArcGISError.invalidParameter("itemId", "an item id") }
        guard let appType = p.string("appType")?.lowercased() else { throw ArcGISError.missingParameter("appType") }
        guard appTypes.contains(appType) else { throw ArcGISError.invalidParameter("appType", "browser, native, server, multiple or apikey") }
        return AppRegistration(
            itemId: itemId, appType: appType, redirectURIs: try redirectURIs(p.string("redirect_uris")),
            privileges: try APIKeyPrivileges.parse(p.string("privileges")) ?? [], httpReferrers: try httpReferrers(p.string("httpReferrers")) ?? [])
    }

    /// The referrers of a JSON array (nil when absent), each checked (`isReferrer`), duplicates dropped.
    public static func httpReferrers(_ text: String?) throws(ArcGISError) -> [String]? {
        guard let text else { return nil }
        guard text.utf8.count <= 96 * 1024, let value = try? JSONParser.parse(text), let list = value.arrayValue else {
            throw ArcGISError.invalidParameter("httpReferrers", "a JSON array of URLs")
        }
        guard list.count <= maximumRedirectURIs else { throw ArcGISError.invalidParameter("httpReferrers", "at most \(maximumRedirectURIs) URLs") }
        var referrers: [String] = []
        for entry in list {
            guard let referrer = entry.stringValue, isReferrer(referrer) else {
                throw ArcGISError.invalidParameter(
                    "httpReferrers", "'\(entry.stringValue?.prefix(100) ?? "?")' is no referrer: an http(s) URL or prefix, '*' for any characters")
            }
            if !referrers.contains(referrer) { referrers.append(referrer) }
        }
        return referrers
    }

    /// An `http://` or `https://` URL or prefix of at most 2,048 bytes, without white space,
    /// control characters or a fragment; `*` stands for any run of characters, at most
    /// `ReferrerRule.maximumStars` times (a match's work grows with them).
    public static func isReferrer(_ text: String) -> Bool {
        guard (1...2048).contains(text.utf8.count), text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0.isASCII }),
            !text.contains("#"), text.utf8.count(where: { $0 == UInt8(ascii: "*") }) <= ReferrerRule.maximumStars
        else { return false }
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: lowered.hasPrefix) else { return false }
        let host = lowered.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" }
        return !host.isEmpty && !host.contains("@")
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
