import OutpostWire

/// The portal's OAuth 2.0 refusals (RFC 6749, 4.1.2.1 and 5.2), as ArcGIS answers them: an
/// ArcGIS envelope (code 400) that also carries the OAuth `error` and `error_description`.
public enum OAuthRefusal {
    public static func invalidRequest(_ message: String) -> ArcGISError { refusal("invalid_request", message) }
    public static func invalidClient(_ message: String = "Invalid client_id") -> ArcGISError { refusal("invalid_client", message) }
    public static func invalidGrant(_ message: String) -> ArcGISError { refusal("invalid_grant", message) }
    public static func unauthorizedClient(_ message: String) -> ArcGISError { refusal("unauthorized_client", message) }
    public static func unsupportedResponseType(_ value: String) -> ArcGISError {
        refusal("unsupported_response_type", "Invalid response_type '\(value.prefix(40))': code or token")
    }
    public static func unsupportedGrantType(_ value: String) -> ArcGISError {
        refusal(
            "unsupported_grant_type",
            "Invalid grant_type '\(value.prefix(40))': authorization_code, refresh_token, exchange_refresh_token or client_credentials")
    }
    /// ArcGIS's wording, which the ArcGIS API for Python looks for to try its next redirect URI.
    public static let invalidRedirectURI = refusal("invalid_request", "Invalid redirect_uri")

    static func refusal(_ code: String, _ message: String) -> ArcGISError {
        ArcGISError(kind: .invalidParameter, message: message, details: [], oauthError: code)
    }
}
