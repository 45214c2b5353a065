import OutpostWire

/// Where a successful sign-in sends the browser (RFC 6749, 4.1.2 and 4.2.2): the client's
/// `redirect_uri` with the code in the query, or the access token in the fragment; for the
/// out-of-band URI, the portal's approval page (`…/sharing/oauth2/approval`), whose title
/// carries the code (`<title>SUCCESS code=…</title>`, what the ArcGIS API for Python reads).
/// `state` goes back untouched.
public enum OAuthRedirect {
    public static func code(_ code: String, for request: AuthorizationRequest, approvalURL: String) -> String {
        append(to: target(request, approvalURL), separator: "?", [("code", code)] + stateParameter(request))
    }

    public static func token(
        _ token: String, expiresInSeconds: Int64, user: String, ssl: Bool, for request: AuthorizationRequest, approvalURL: String
    )
        -> String
    {
        let pairs = [
            ("access_token", token), ("token_type", "Bearer"), ("expires_in", String(expiresInSeconds)), ("username", user), ("ssl", String(ssl)),
        ]
        return append(to: target(request, approvalURL), separator: "#", pairs + stateParameter(request))
    }

    static func target(_ request: AuthorizationRequest, _ approvalURL: String) -> String {
        request.redirectURI == OAuthClient.outOfBand ? approvalURL : request.redirectURI
    }

    static func stateParameter(_ request: AuthorizationRequest) -> [(String, String)] {
        request.state.map { [("state", $0)] } ?? []
    }

    /// `pairs` after `url`'s query (`?`: joined to one it has) or as its fragment (`#`).
    static func append(to url: String, separator: Character, _ pairs: [(String, String)]) -> String {
        let encoded = pairs.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        if separator == "?", url.contains("?") { return url + "&" + encoded }
        return url + String(separator) + encoded
    }
}
