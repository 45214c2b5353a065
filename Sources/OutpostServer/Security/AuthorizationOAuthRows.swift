/// The portal's OAuth 2.0 rows (`AuthorizationTable`, docs/identity.md). The sign-in and token
/// endpoints are open: what they are sent (a password, a code, a refresh token, an app's
/// secret, a token to revoke) is the credential. An app's registration and its API keys are its
/// item owner's (and the admins').
extension AuthorizationTable {
    static let oauthRows: [Row] = [
        Row(
            .sharing, "oauth2/authorize", .read, .open, .nothing, .admitted,
            "the sign-in page for a known client_id and a redirect_uri it allows; any other request is an error page, never a redirect"),
        Row(
            .sharing, "oauth2/signin", .change, .open, .user, .admitted,
            "the sealed oauth_state, the cookie of the page's browser, the password (throttled as generateToken)"),
        Row(.sharing, "oauth2/approval", .get, .open, .nothing, .admitted, "the out-of-band page: shows the code it is given"),
        Row(
            .sharing, "oauth2/oidc/start", .get, .open, .nothing, .admitted,
            "the sealed oauth_state and its browser's cookie; a redirect to the configured OpenID provider only"),
        Row(
            .sharing, "oauth2/oidc/callback", .get, .open, .user, .admitted,
            "the sealed provider state, the browser's cookie, and an ID token the provider signed for this portal"),
        Row(.sharing, "oauth2/token", .change, .open, .user, .admitted, "the code, refresh token or app secret is the credential"),
        Row(.sharing, "oauth2/revokeToken", .change, .open, .user, .admitted, "the token sent is the credential"),
        Row(.sharing, "oauth2/signout", .read, .identifies, .user, .admitted, "ends the tokens of the caller the token names"),
        Row(.sharing, "oauth2/registerApp", .change, .editor, .item, .changeable(hidden: .itemHidden), "an Application item"),
        Row(.sharing, "oauth2/apps/:clientId", .read, .identifies, .item, .owner(refusal: .appHidden), "the app's item's owner"),
        Row(
            .sharing, "oauth2/apps/:clientId/update", .change, .editor, .item, .owner(refusal: .appHidden),
            "the app's item's owner; privileges may name only items the owner may see; never an API key"),
        Row(
            .sharing, "oauth2/apps/:clientId/resetApiKey", .change, .editor, .item, .owner(refusal: .appHidden),
            "the app's item's owner; a new apiKey, the old one ends; never an API key"),
        Row(
            .sharing, "oauth2/apps/:clientId/unregister", .change, .editor, .item, .owner(refusal: .appHidden),
            "the app's item's owner; its keys end, the item stays; never an API key"),
        Row(
            .sharing, "oauth2/validateApiKey", .read, .identifies, .item, .owner(refusal: .forbidden),
            "the key's owner (the app's); an unknown or ended key is {valid:false}; never an API key"),
    ]
}

extension AuthorizationTable.Refusal {
    /// An app the caller may not see is answered as an unknown client id.
    public static let appHidden = AuthorizationTable.Refusal(400, "Invalid client_id")
}
