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
    /// server as the request reached it (`ServerOrigin.address(of:)`: the public URL, else the
    /// scheme served and the request's `Host`), default ports being the scheme's. Another
    /// server (another scheme or port on the same host included; so is any request without a
    /// `Host`) is refused with ArcGIS's "Unable to generate token for this server" (which the
    /// ArcGIS API for Python recognises).
    func serverToken(_ p: RequestParameters, token: String, serverURL: String, this: ServerAddress?, scheme: String) throws -> Response {
        let addressed = this != nil && ServerAddress(url: serverURL) == this
        guard case .valid = try users.check(token: token), let expires = try users.expiry(of: token) else {
            throw Self.invalidToken
        }
        guard addressed else {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to generate token.",
                details: ["Unable to generate token for this server: '\(serverURL.prefix(300))' is not a server of this portal."])
        }
        return Self.tokenAnswer(token: token, expires: expires, scheme: scheme, parameters: p)
    }

    /// A token service's answer. `ssl` is ArcGIS's "the token must always be passed back via
    /// HTTPS", answered for organisations that allow HTTPS only (`portals/self.allSSL`): here,
    /// a server that serves HTTPS, which is what `allSSL` says; clients (the Maps SDK's
    /// `Credential.ssl`) then send the token over HTTPS only.
    static func tokenAnswer(token: String, expires: Int64, scheme: String, parameters p: RequestParameters) -> Response {
        RESTResponse.json(["token": .string(token), "expires": .int(expires), "ssl": .bool(scheme.lowercased() == "https")], parameters: p)
    }
}
