import Foundation
import OutpostWire

/// What an OpenID provider's discovery document (`<issuer>/.well-known/openid-configuration`)
/// says (OpenID Connect Discovery 1.0, section 3): where to send the browser, where to trade
/// the code, where its signing keys are, and how it signs ID tokens.
public struct OIDCProviderMetadata: Sendable, Equatable {
    /// The signature algorithms `IDTokenVerifier` checks.
    public static let supportedAlgorithms = ["RS256", "ES256"]
    /// What the authorization request asks for: an ID token with the user's name and address.
    public static let scope = "openid profile email"
    static let maximumURLLength = 2048

    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String
    public var idTokenSigningAlgorithms: [String]
    /// How the portal proves itself at the token endpoint.
    public var clientAuthentication: ClientAuthentication

    /// The two ways of sending the client secret (RFC 6749, 2.3.1).
    public enum ClientAuthentication: String, Sendable, Equatable {
        /// `Authorization: Basic` with the id and secret, each form-encoded: what every provider
        /// must accept and the discovery document's default.
        case basic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form.
        case post = "client_secret_post"
    }

    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String, idTokenSigningAlgorithms: [String],
        clientAuthentication: ClientAuthentication = .basic
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
        self.clientAuthentication = clientAuthentication
    }

    /// Refused unless `issuer` equals `expectedIssuer` exactly (the spec allows no
    /// normalisation, not even of a trailing slash: section 4.3), the issuer and endpoints are
    /// https (or http on a loopback host: tests), the code flow is supported
    /// (`response_types_supported` contains `code` when present) and ID tokens are signed with
    /// an algorithm Outpost checks (RS256 or ES256).
    public static func parse(_ document: JSONValue, expectedIssuer: String) throws(ArcGISError) -> OIDCProviderMetadata {
        guard let object = document.objectValue else { throw refusal("the discovery document is not a JSON object") }
        let issuer = try url(object, "issuer")
        guard issuer == expectedIssuer else {
            throw refusal("the discovery document's issuer '\(issuer.prefix(200))' is not '\(expectedIssuer.prefix(200))'")
        }
        guard !issuer.contains("?"), !issuer.contains("#") else { throw refusal("the issuer has a query or fragment") }
        if let responseTypes = object["response_types_supported"] {
            guard let list = responseTypes.arrayValue, list.contains(.string("code")) else {
                throw refusal("the provider does not support the authorization code flow (response_types_supported)")
            }
        }
        let algorithms = object["id_token_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard algorithms.contains(where: supportedAlgorithms.contains) else {
            throw refusal("the provider signs ID tokens with none of RS256, ES256 (id_token_signing_alg_values_supported)")
        }
        return OIDCProviderMetadata(
            issuer: issuer, authorizationEndpoint: try url(object, "authorization_endpoint"), tokenEndpoint: try url(object, "token_endpoint"),
            jwksURI: try url(object, "jwks_uri"), idTokenSigningAlgorithms: algorithms, clientAuthentication: try clientAuthentication(object))
    }

    /// `client_secret_basic` unless the provider lists methods without it and with
    /// `client_secret_post` (absent, the list is `client_secret_basic` alone: Discovery 1.0, 3).
    static func clientAuthentication(_ object: JSONObject) throws(ArcGISError) -> ClientAuthentication {
        guard let listed = object["token_endpoint_auth_methods_supported"] else { return .basic }
        let methods = listed.arrayValue?.compactMap(\.stringValue) ?? []
        if methods.contains(ClientAuthentication.basic.rawValue) { return .basic }
        if methods.contains(ClientAuthentication.post.rawValue) { return .post }
        throw refusal(
            "the provider takes a client secret neither as client_secret_basic nor as client_secret_post (token_endpoint_auth_methods_supported)")
    }

    /// The token request's form and `Authorization` header for a code: the secret where the
    /// provider takes it, PKCE's verifier always.
    public func codeExchange(
        code: String, redirectURI: String, verifier: String, clientId: String, clientSecret: String
    ) -> (
        form: String, authorization: String?
    ) {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        var authorization: String?
        switch clientAuthentication {
        case .post: fields += [("client_id", clientId), ("client_secret", clientSecret)]
        case .basic:
            let pair = FormURLEncoding.percentEncode(clientId) + ":" + FormURLEncoding.percentEncode(clientSecret)
            authorization = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        return (fields.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&"), authorization)
    }

    /// Where the browser goes to sign in: the authorization endpoint with a code request
    /// (`response_type=code`), PKCE (S256) and the nonce the ID token must carry back.
    public func authorizationURL(clientId: String, redirectURI: String, state: String, nonce: String, codeChallenge: String) -> String {
        let parameters = [
            ("response_type", "code"), ("client_id", clientId), ("redirect_uri", redirectURI), ("scope", Self.scope), ("state", state),
            ("nonce", nonce), ("code_challenge", codeChallenge), ("code_challenge_method", "S256"),
        ]
        let query = parameters.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        // An endpoint may carry a query of its own (Azure AD B2C's policy, for one): keep it.
        let separator =
            !authorizationEndpoint.contains("?") ? "?" : authorizationEndpoint.hasSuffix("?") || authorizationEndpoint.hasSuffix("&") ? "" : "&"
        return authorizationEndpoint + separator + query
    }

    /// `https://…`, or `http://` on `localhost`, `127.0.0.1` or `[::1]` (a provider in tests);
    /// no user information, fragment, white space or control characters.
    public static func isProviderURL(_ text: String) -> Bool {
        guard (1...maximumURLLength).contains(text.utf8.count), text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }),
            !text.contains("#"), let address = ServerAddress(url: text), !AppRegistration.authorityHasUserInfo(text)
        else { return false }
        // ServerAddress lower-cases; the scheme must be written as such too, since it is compared exactly.
        switch address.scheme {
        case "https": return text.hasPrefix("https://")
        case "http": return text.hasPrefix("http://") && ["localhost", "127.0.0.1", "[::1]"].contains(address.host)
        default: return false
        }
    }

    static func url(_ object: JSONObject, _ name: String) throws(ArcGISError) -> String {
        guard let value = object[name] else { throw refusal("the discovery document has no \(name)") }
        guard let text = value.stringValue, isProviderURL(text) else {
            throw refusal("the discovery document's \(name) is not an https URL (http only on localhost)")
        }
        return text
    }

    /// The provider, not the person signing in, is at fault: 503 (the sign-in cannot go on
    /// until it is fixed), with OAuth's `server_error`.
    static func refusal(_ message: String) -> ArcGISError {
        ArcGISError(kind: .unavailable, message: "Invalid OpenID provider: " + message, oauthError: "server_error")
    }
}
