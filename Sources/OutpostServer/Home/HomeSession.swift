import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// Who is using the home, as the portal answers `portals/self` for the token the browser's
/// cookie holds, and the per-browser secret its forms carry against cross-site requests.
///
/// The cookies are the home's alone (`Path=/arcgis/home`, HttpOnly): `outpost_home` holds the
/// access token, `outpost_home_refresh` the refresh token of the sign-in (the token is renewed
/// with it when it ends), `outpost_home_csrf` the forms' secret (SameSite=Strict; a POST must
/// carry the same value as its `csrf` field and come from this origin).
struct HomeSession: Sendable {
    /// The signed-in user; nil: nobody signed in.
    var user: User?
    /// The access token the home sends on the user's behalf.
    var token: String?
    /// Whether the server requires a token (`serve --require-auth`): without it, anyone may
    /// do what the REST API lets anyone do.
    var securityOn: Bool
    /// The value every form of the page carries as `csrf`.
    var csrf: String
    /// Cookies the page's answer sets (a renewed token, a new forms' secret, a spent message).
    var setCookies: [String] = []
    /// A message the previous action left for this page.
    var flash: HomeFlash?
    /// Whether the home's cookies are marked `Secure` (the server is reached over HTTPS).
    var secureCookies = false

    struct User: Sendable, Equatable {
        var username: String
        var fullName: String
        /// ArcGIS's role: `org_admin`, `org_publisher`, `org_user`.
        var role: String

        var isAdmin: Bool { role == "org_admin" }
        /// May create content (an editor's or an admin's role).
        var mayCreate: Bool { role == "org_admin" || role == "org_publisher" }
    }

    /// Whether the page may offer what needs an editor: a signed-in editor or admin, or
    /// anyone while token security is off (the REST API still decides).
    var mayCreate: Bool { user?.mayCreate ?? !securityOn }
    /// Whether the page may offer the organisation's administration.
    var isAdmin: Bool { user?.isAdmin ?? !securityOn }

    static let tokenCookie = "outpost_home"
    static let refreshCookie = "outpost_home_refresh"
    static let csrfCookie = "outpost_home_csrf"
    static let flashCookie = "outpost_home_flash"
    static let path = "/arcgis/home"

    /// The value of the cookie `name` the request carries, if any.
    static func cookie(_ name: String, of request: Request) -> String? {
        HomeInputs.cookie(name, headers: request.headers[values: .cookie])
    }

    /// A `Set-Cookie` value for one of the home's cookies; nil `value` removes it.
    static func setCookie(_ name: String, _ value: String?, secure: Bool, sameSite: String = "Lax", maxAge: Int? = nil) -> String {
        var parts = ["\(name)=\(value ?? "")", "Path=\(path)", "HttpOnly", "SameSite=\(sameSite)"]
        if value == nil {
            parts.append("Max-Age=0")
        } else if let maxAge {
            parts.append("Max-Age=\(maxAge)")
        }
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    /// A new forms' secret: 24 random bytes (the system's generator: the kernel's), base64url.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether `given` is the session's forms' secret, compared in constant time.
    func acceptsCSRF(_ given: String?) -> Bool {
        guard let given, !csrf.isEmpty else { return false }
        let a = Array(given.utf8)
        let b = Array(csrf.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The user `portals/self` names, read from its answer.
    static func user(fromPortalSelf json: JSONValue) -> User? {
        guard let user = json["user"], let name = user["username"]?.stringValue else { return nil }
        return User(username: name, fullName: user["fullName"]?.stringValue ?? name, role: user["role"]?.stringValue ?? "org_user")
    }
}
