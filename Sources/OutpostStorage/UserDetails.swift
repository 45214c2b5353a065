/// What the portal tells of users and tokens beyond `UserDirectory` (docs/portal.md, "Users"):
/// when a user was added (a portal user's `created`), and when a token expires (the server
/// token `generateToken` answers for a portal token is that token, with its own expiry).
///
/// Contract: names compare without case; an expired or unknown token has no expiry.
public protocol UserDetails: Sendable {
    /// When the user of that name was added (epoch milliseconds); nil when there is none.
    func created(user name: String) throws -> Int64?
    /// When `token` expires (epoch milliseconds), while it is valid; nil otherwise.
    func expiry(of token: String) throws -> Int64?
}
