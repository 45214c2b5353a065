import OutpostWire

/// A request to `oauth2/authorize`, checked: what the sign-in page carries (sealed in its
/// `oauth_state`) until the user has signed in.
public struct AuthorizationRequest: Sendable, Equatable, Codable {
    public enum ResponseType: String, Sendable, Codable {
        /// The authorization code flow: a code, exchanged at `oauth2/token`.
        case code
        /// The implicit flow: the access token in the redirect's fragment (the ArcGIS API for
        /// Python's default sign-in).
        case token
    }

    public var clientId: String
    public var responseType: ResponseType
    public var redirectURI: String
    /// The client's own value, sent back untouched (at most 1,024 bytes).
    public var state: String?
    /// Minutes the access token should live, as asked (`expiration`); capped by the server.
    public var minutes: Int?
    /// PKCE's S256 challenge (43 base64url characters).
    public var codeChallenge: String?

    public init(
        clientId: String, responseType: ResponseType, redirectURI: String, state: String? = nil, minutes: Int? = nil,
        codeChallenge: String? = nil
    ) {
        self.clientId = clientId
        self.responseType = responseType
        self.redirectURI = redirectURI
        self.state = state
        self.minutes = minutes
        self.codeChallenge = codeChallenge
    }

    /// The request's parameters, checked for their form; whether the client and redirect URI
    /// go together is `OAuthClient.allowsRedirect`'s to say. `plain` PKCE is refused: a
    /// challenge that is its own verifier protects nothing.
    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> AuthorizationRequest {
        guard let clientId = p.string("client_id"), isToken(clientId, length: 1...64) else {
            throw OAuthRefusal.invalidRequest("Invalid client_id")
        }
        guard let redirectURI = p.string("redirect_uri") else { throw OAuthRefusal.invalidRedirectURI }
        guard let type = p.string("response_type") else { throw OAuthRefusal.invalidRequest("response_type is required: code or token") }
        guard let responseType = ResponseType(rawValue: type) else { throw OAuthRefusal.unsupportedResponseType(type) }
        let state = p.string("state")
        if let state, state.utf8.count > 1024 { throw OAuthRefusal.invalidRequest("state is longer than 1024 bytes") }
        var minutes: Int?
        if let text = p.string("expiration") {
            guard let value = Int(text), value != 0, value >= -1 else {
                throw OAuthRefusal.invalidRequest("Invalid expiration: minutes, a positive integer")
            }
            // -1: the longest the portal allows (ArcGIS's "never", capped).
            minutes = value == -1 ? Int.max : value
        }
        var challenge: String?
        if let text = p.string("code_challenge") {
            guard (p.string("code_challenge_method") ?? "plain") == "S256" else {
                throw OAuthRefusal.invalidRequest("Invalid code_challenge_method: S256 only")
            }
            guard PKCE.isChallenge(text) else { throw OAuthRefusal.invalidRequest("Invalid code_challenge: 43 base64url characters") }
            challenge = text
        } else if p.string("code_challenge_method") != nil {
            throw OAuthRefusal.invalidRequest("code_challenge_method without code_challenge")
        }
        if challenge != nil, responseType == .token { throw OAuthRefusal.invalidRequest("PKCE goes with response_type=code") }
        return AuthorizationRequest(
            clientId: clientId, responseType: responseType, redirectURI: redirectURI, state: state, minutes: minutes, codeChallenge: challenge)
    }

    /// Letters, digits, `_`, `-` and `.` only.
    static func isToken(_ text: String, length: ClosedRange<Int>) -> Bool {
        length.contains(text.utf8.count)
            && text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
