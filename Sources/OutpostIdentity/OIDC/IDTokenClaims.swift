import OutpostWire

/// An ID token's claims, verified (`IDTokenVerifier`).
public struct IDTokenClaims: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    /// Seconds since 1970.
    public var expires: Int64
    public var nonce: String?
    /// Every claim, as sent.
    public var claims: JSONObject

    public init(issuer: String, subject: String, audience: [String], expires: Int64, nonce: String?, claims: JSONObject) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expires = expires
        self.nonce = nonce
        self.claims = claims
    }

    /// The claim `name` when it is a string.
    public func string(_ name: String) -> String? { claims[name]?.stringValue }
}
