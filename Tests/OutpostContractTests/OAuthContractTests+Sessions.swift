import Foundation
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// Sign-ins as sessions (docs/identity.md, "Sessions"): each refresh-token family with a live
/// token is one, listed per user or for everyone; ending one ends its access tokens too, and a
/// user's end only their own.
extension OAuthContractTests {
    @Test(arguments: RecordsContractBackend.all)
    func liveSignInsAreListedAndEndedWithTheirAccessTokens(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let first = try store.oauth.issueRefreshToken(RefreshGrant(clientId: "arcgisonline", user: "ada", minutes: 30), minutes: 60)
        clock.advance(milliseconds: 1_000)
        let second = try store.oauth.issueRefreshToken(RefreshGrant(clientId: "pythonapi", user: "Ada", minutes: 30), minutes: 60)
        let bobs = try store.oauth.issueRefreshToken(RefreshGrant(clientId: "arcgisonline", user: "bob", minutes: 30), minutes: 60)
        let access = try store.oauth.issueAccessToken(
            for: ServerUser(name: "ada", role: .editor), clientId: "arcgisonline", minutes: 30, refreshToken: first.token)
        // A rotation keeps the family: one session, renewed.
        clock.advance(milliseconds: 1_000)
        guard case .rotated = try store.oauth.rotateRefreshToken(first.token, clientId: "arcgisonline", minutes: 60) else {
            Issue.record("the refresh token did not rotate")
            return
        }
        let adas = try store.oauth.sessions(user: "ADA")
        #expect(adas.map(\.clientId) == ["arcgisonline", "pythonapi"], "\(adas)")
        #expect(adas[0].started < adas[0].renewed && adas[0].user == "ada")
        #expect(try store.oauth.sessions(user: nil).count == 3)
        // Bob cannot end Ada's; Ada ends hers, its access token with it.
        #expect(try !store.oauth.endSession(family: adas[0].family, user: "bob"))
        #expect(try store.oauth.endSession(family: adas[0].family, user: "ada"))
        #expect(try store.users.check(token: access.token) == .unknown)
        #expect(try store.oauth.sessions(user: "ada").map(\.clientId) == ["pythonapi"])
        #expect(try !store.oauth.endSession(family: adas[0].family, user: nil), "ended once")
        // An expired family is no session.
        clock.advance(milliseconds: 3_600_000)
        #expect(try store.oauth.sessions(user: nil).isEmpty)
        _ = (second, bobs)
    }
}
