import Hummingbird
import OutpostStorage
import OutpostWire

/// Server tokens for portal tokens (docs/portal.md, "Federation"). A client signed in to a
/// portal asks the portal's `generateToken` for a token of a server federated with it,
/// sending its portal `token` and the server's root as `serverUrl` (ArcGIS REST JS and the Maps
/// SDK for JavaScript; the ArcGIS API for Python adds `request=getToken`). Outpost is both the
/// portal and its one federated server, and its tokens are the same everywhere: the answer is
/// the portal token itself, with its own expiry, so an exchange mints nothing and extends no
/// token's life. Only this server is federated: a `serverUrl` naming another host is refused,
/// or any server claiming this portal as its `owningSystemUrl` would be handed the caller's token.
extension Authenticator {
    /// The token services' paths: every origin may use them (`CrossOriginPolicy`).
    static let tokenServices: Set = ["/arcgis/tokens/generateToken", "/arcgis/sharing/rest/generateToken", "/sharing/rest/generateToken"]

    /// The server token for `token` (a valid one: 498 otherwise) when `serverURL` is this
    /// server as the request addressed it (`authority`, its `Host`); another server is refused
    /// with ArcGIS's "Unable to generate token for this server" (which the ArcGIS API for
    /// Python recognises).
    func serverToken(_ p: RequestParameters, token: String, serverURL: String, authority: String) throws -> Response {
        let addressed = Self.authority(ofServer: serverURL) == Self.comparable(authority: authority)
        guard case .valid = try users.check(token: token), let expires = try users.expiry(of: token) else {
            throw Self.invalidToken
        }
        guard addressed else {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to generate token.",
                details: ["Unable to generate token for this server: '\(serverURL)' is not a server of this portal."])
        }
        return RESTResponse.json(["token": .string(token), "expires": .int(expires), "ssl": false], parameters: p)
    }

    /// `http(s)://authority[/…]`'s authority as `comparable(authority:)` gives it; nil for
    /// anything else (another scheme, user information, no host).
    static func authority(ofServer url: String) -> String? {
        let lowered = url.lowercased()
        guard let scheme = ["http", "https"].first(where: { lowered.hasPrefix($0 + "://") }) else { return nil }
        let rest = lowered.dropFirst(scheme.count + 3)
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        guard !authority.isEmpty, !authority.contains("@"), !authority.hasPrefix(":") else { return nil }
        return comparable(authority: authority)
    }

    /// An authority as two are compared: lower-cased, without a default port (either one: the
    /// request's scheme is not known here).
    static func comparable(authority: String) -> String {
        var authority = authority.lowercased()
        for port in [":443", ":80"] where authority.hasSuffix(port) { authority.removeLast(port.count) }
        return authority
    }
}
