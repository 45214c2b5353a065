/// The longest life each kind of access token can be issued with, and the rule a token check
/// applies with them: a token whose remaining life exceeds its kind's longest was minted in
/// another time (a test target's clock set far ahead, docs/testing-your-app.md) and is invalid.
public struct TokenLifetimes: Sendable, Equatable {
    /// User tokens (`generateToken`), OAuth access tokens and app tokens: the server's maximum
    /// token minutes.
    public var userTokenMinutes: Int
    /// API keys (`apiToken` slots 1 and 2, and the legacy slot 0): their expiration date, at most a year.
    public static let apiKeyMinutes = 366 * 24 * 60
    /// Leeway for a clock corrected a little between issue and check.
    public static let leewayMinutes = 5

    public init(userTokenMinutes: Int) {
        self.userTokenMinutes = userTokenMinutes
    }

    /// When the server's maximum is not at hand: the longest any server may be set to issue
    /// (a checked-in token of a server set to longer still counts as minted in another time).
    public static let standard = TokenLifetimes(userTokenMinutes: apiKeyMinutes)

    /// Whether a token expiring at `expires` (ms) and checked at `now` (ms) outlives what its
    /// kind can be issued with (`apiSlot`: the API key slot, nil for other tokens).
    public func mintedInAnotherTime(expires: Int64, now: Int64, apiSlot: Int?) -> Bool {
        let minutes = (apiSlot.map { (0...2).contains($0) } ?? false) ? Self.apiKeyMinutes : max(userTokenMinutes, 1)
        let longest = Int64(minutes + Self.leewayMinutes) * 60_000
        return expires - now > longest
    }
}
