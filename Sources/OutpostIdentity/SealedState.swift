import OutpostWire

/// The sign-in page's `oauth_state`: the checked authorization request, when it was made and
/// the nonce of the browser it was shown to, sealed with AES-GCM under the backend's key
/// (`OAuthGrantStore.sealingKey`). Nothing is stored per page view, so anonymous requests for
/// the page cost no storage; any process of the server opens it; it cannot be forged or
/// altered, and it lapses after `lifetime`.
public struct SealedState: Sendable, Equatable, Codable {
    /// How long a sign-in page may stay open.
    public static let lifetime: Int64 = 15 * 60_000

    public var request: AuthorizationRequest
    /// Milliseconds since 1970.
    public var issued: Int64
    /// Also set as a cookie on the sign-in page: the sign-in must come from that browser
    /// (a login CSRF then needs the victim's cookie).
    public var browserNonce: String

    public init(request: AuthorizationRequest, issued: Int64, browserNonce: String) {
        self.request = request
        self.issued = issued
        self.browserNonce = browserNonce
    }

    /// The sealed text, base64url.
    public func sealed(key: [UInt8]) throws -> String { try Sealing.seal(self, key: key) }

    /// The state `text` seals, when it is genuine and still fresh at `now`; 400
    /// `invalid_request` otherwise (nothing says which, so nothing can be probed).
    public static func open(_ text: String, key: [UInt8], now: Int64) throws(ArcGISError) -> SealedState {
        let refused = OAuthRefusal.invalidRequest("Invalid or expired oauth_state: open the sign-in page again")
        guard let state = Sealing.open(text, as: SealedState.self, key: key, maximumBytes: 8192) else { throw refused }
        guard state.issued <= now + 60_000, now - state.issued <= lifetime else { throw refused }
        return state
    }
}
