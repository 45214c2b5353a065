import Hummingbird
import OutpostIdentity
import OutpostStorage
import OutpostWire

/// Where the portal's OAuth 2.0 endpoints are (`OAuthController`) and what they share: the
/// sign-in's cookie, lifetimes, the built-in clients' titles.
enum OAuthEndpoints {
    /// Below each of these, `oauth2/…`: ArcGIS answers the sign-in below `/sharing` (the ArcGIS
    /// API for Python posts it to `…/sharing/oauth2/signin`) and the rest below `/sharing/rest`
    /// too; every endpoint is answered at all four.
    static let roots = ["arcgis/sharing", "sharing", "arcgis/sharing/rest", "sharing/rest"]
    /// The token endpoints' paths: every origin may use them (`CrossOriginPolicy`), as ArcGIS's
    /// token service.
    static let tokenServices: Set<String> = Set(roots.flatMap { ["/\($0)/oauth2/token", "/\($0)/oauth2/revokeToken"] })
    /// The cookie holding the browser's nonce, which the sign-in must send back.
    static let cookie = "outpost_signin"
    /// Milliseconds an authorization code may wait for its exchange.
    static let codeLifetime: Int64 = 5 * 60_000
    /// Minutes a refresh token lives (rotated at each use).
    static let refreshMinutes = 14 * 24 * 60

    /// The built-in clients, as the sign-in page names them.
    static let builtInTitles = [
        "arcgisonline": "ArcGIS", "pythonapi": "ArcGIS API for Python", "arcgisprojects": "ArcGIS Projects", "arcgispro": "ArcGIS Pro",
        "arcgisnotebooks": "ArcGIS Notebooks", "arcgisfieldmaps": "ArcGIS Field Maps",
    ]

    /// What comes before `/sharing` in `path`: `/arcgis`, or nothing.
    static func base(of path: String) -> String {
        path.hasPrefix("/arcgis/") ? "/arcgis" : ""
    }

    /// A new browser nonce: 16 random bytes, hex.
    static func newNonce() -> String {
        Credentials.randomBytes(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The nonce the browser's cookie carries, if it is one.
    static func browserNonce(of request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0] == cookie else { continue }
                let value = parts[1]
                if value.utf8.count == 32, value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) { return value }
            }
        }
        return nil
    }

    /// `expiration` as `authorize` reads it (minutes; -1 the most); nil when absent or not one.
    static func minutes(_ text: String?) -> Int? {
        guard let text, let value = Int(text), value == -1 || value > 0 else { return nil }
        return value == -1 ? Int.max : value
    }

    /// The page's language: a language tag as asked (`locale`), else English.
    static func locale(_ p: RequestParameters) -> String {
        guard let text = p.string("locale"), (2...35).contains(text.utf8.count),
            text.utf8.allSatisfy({ isTagByte($0) })
        else { return "en" }
        return text
    }

    /// What the sign-in page's `form-action` must allow besides itself for its redirect to be
    /// followed: the redirect's origin, or an app's own scheme; nil for the out-of-band page.
    static func redirectOrigin(_ uri: String) -> String? {
        if uri == OAuthClient.outOfBand { return nil }
        if let address = ServerAddress(url: uri) { return address.origin }
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon].lowercased()
        guard !scheme.isEmpty, scheme.utf8.allSatisfy({ isSchemeByte($0) }) else { return nil }
        return scheme + ":"
    }

    static func isTagByte(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte)
    }
}
