import OutpostWire

/// A request to `oauth2/token`, by grant type, checked for its form.
public enum TokenRequest: Sendable, Equatable {
    /// A code from the sign-in, with the same `redirect_uri`, and PKCE's verifier when the
    /// authorization request had a challenge.
    case authorizationCode(clientId: String, code: String, redirectURI: String, verifier: String?, clientSecret: String?)
    /// A refresh token for a new access token; the refresh token stays valid (ArcGIS's
    /// `refresh_token` grant: clients present the first one at every refresh).
    case refreshToken(clientId: String, token: String)
    /// A refresh token for a new refresh token of the same sign-in, the old one spent
    /// (ArcGIS's `exchange_refresh_token` grant), with a new access token.
    case exchangeRefreshToken(clientId: String, token: String)
    /// A registered app signing in as itself with its secret.
    case clientCredentials(clientId: String, secret: String)
    /// A registered app's secret for a new token of its API key slot (`apiToken` 1 or 2),
    /// which replaces the slot's previous one.
    case apiToken(clientId: String, secret: String, slot: Int)

    public var clientId: String {
        switch self {
        case .authorizationCode(let id, _, _, _, _), .refreshToken(let id, _), .exchangeRefreshToken(let id, _), .clientCredentials(let id, _),
            .apiToken(let id, _, _):
            id
        }
    }

    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> TokenRequest {
        guard let clientId = p.string("client_id"), AuthorizationRequest.isToken(clientId, length: 1...64) else {
            throw OAuthRefusal.invalidClient()
        }
        guard let grant = p.string("grant_type") else { throw OAuthRefusal.invalidRequest("grant_type is required") }
        switch grant {
        case "authorization_code":
            guard let code = p.string("code"), code.utf8.count <= 256 else { throw OAuthRefusal.invalidRequest("code is required") }
            guard let redirectURI = p.string("redirect_uri") else { throw OAuthRefusal.invalidRequest("redirect_uri is required") }
            let verifier = p.string("code_verifier")
            if let verifier, !PKCE.isVerifier(verifier) {
                throw OAuthRefusal.invalidRequest("Invalid code_verifier: 43 to 128 unreserved characters")
            }
            return .authorizationCode(
                clientId: clientId, code: code, redirectURI: redirectURI, verifier: verifier, clientSecret: p.string("client_secret"))
        case "refresh_token", "exchange_refresh_token":
            guard let token = p.string("refresh_token"), token.utf8.count <= 256 else {
                throw OAuthRefusal.invalidRequest("refresh_token is required")
            }
            return grant == "refresh_token"
                ? .refreshToken(clientId: clientId, token: token) : .exchangeRefreshToken(clientId: clientId, token: token)
        case "client_credentials":
            guard let secret = p.string("client_secret"), secret.utf8.count <= 256 else {
                throw OAuthRefusal.invalidClient("client_secret is required")
            }
            if let slot = p.string("apiToken") {
                guard slot == "1" || slot == "2" else { throw OAuthRefusal.invalidRequest("apiToken is 1 or 2") }
                return .apiToken(clientId: clientId, secret: secret, slot: slot == "1" ? 1 : 2)
            }
            return .clientCredentials(clientId: clientId, secret: secret)
        default:
            throw OAuthRefusal.unsupportedGrantType(grant)
        }
    }
}
