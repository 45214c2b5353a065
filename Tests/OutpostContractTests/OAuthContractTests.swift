import Foundation
import GRDB
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// The `OAuthGrantStore` contract (docs/identity.md) on every backend: apps, codes taken once,
/// refresh tokens rotated in families, access tokens of a client, the sealing key.
@Suite struct OAuthContractTests {
    static let ada = ServerUser(name: "ada", role: .admin)

    /// Records with the user `ada` (admin) and the app `pythonapi`-like client `client1`.
    static func opened(_ backend: RecordsContractBackend, clock: ManualClock) throws -> RecordsContractBackend.Opened {
        let opened = try backend.open(clock)
        try opened.records.users.addUser(ada.name, role: ada.role, password: "long enough", rounds: 1_000)
        return opened
    }

    static func app(_ clientId: String, item: String) -> RegisteredApp {
        RegisteredApp(
            clientId: clientId, itemId: item, owner: "ada", appType: "browser",
            redirectURIs: ["https://app.example/callback", "urn:ietf:wg:oauth:2.0:oob"],
            registered: 1_000, modified: 2_000)
    }

    @Test(arguments: RecordsContractBackend.all)
    func appsRoundTripRefuseASecondRegistrationOfAnItemAndKeepOnlyTheirSecretsHash(_ backend: RecordsContractBackend) throws {
        let store = try Self.opened(backend, clock: ManualClock()).records
        let app = Self.app("AbCdEfGh12345678", item: "0123456789abcdef0123456789abcdef")
        let secret = Credentials.newToken()
        try store.oauth.registerApp(app, secret: secret, sealedSecret: nil)
        #expect(try store.oauth.app(clientId: app.clientId) == app)
        #expect(try store.oauth.app(itemId: app.itemId) == app)
        #expect(try store.oauth.app(clientId: "abcdefgh12345678") == nil, "client ids compare exactly")
        #expect(try store.oauth.verifyAppSecret(clientId: app.clientId, secret: secret))
        #expect(try !store.oauth.verifyAppSecret(clientId: app.clientId, secret: Credentials.newToken()))
        #expect(try !store.oauth.verifyAppSecret(clientId: app.clientId, secret: ""))
        #expect(try !store.oauth.verifyAppSecret(clientId: "unknown", secret: secret))
        #expect(throws: PortalFailure.self) {
            try store.oauth.registerApp(Self.app("Other12345678901", item: app.itemId), secret: "x", sealedSecret: nil)
        }
        #expect(try store.oauth.app(clientId: "Other12345678901") == nil)

        try store.oauth.updateRedirectURIs(clientId: app.clientId, ["https://other.example/cb"])
        let updated = try #require(try store.oauth.app(clientId: app.clientId))
        #expect(updated.redirectURIs == ["https://other.example/cb"] && updated.itemId == app.itemId)

        let stored = try Self.storedText(store, table: "outpost_oauth_apps")
        #expect(stored.contains(Self.hex(Credentials.tokenHash(secret))), "the row holds the secret's hash")
        #expect(!Self.holds(secret, stored), "the secret is not stored in clear")
    }

    @Test(arguments: RecordsContractBackend.all)
    func aCodeIsTakenOnceAndNotOnceExpired(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let grant = AuthorizationGrant(
            clientId: "client1", redirectURI: "https://app.example/callback", user: "ada",
            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            minutes: 120)
        let code = Credentials.newToken()
        try store.oauth.saveCode(code, grant: grant, expires: clock.milliseconds() + 60_000)
        let stored = try Self.storedText(store, table: "outpost_oauth_codes")
        #expect(stored.contains(Self.hex(Credentials.tokenHash(code))) && !Self.holds(code, stored), "the code is stored only hashed")
        #expect(try store.oauth.takeCode(Credentials.newToken()) == nil)
        #expect(try store.oauth.takeCode(code) == grant)
        #expect(try store.oauth.takeCode(code) == nil, "taken already")

        var plain = grant
        plain.codeChallenge = nil
        let late = Credentials.newToken()
        try store.oauth.saveCode(late, grant: plain, expires: clock.milliseconds() + 60_000)
        clock.advance(milliseconds: 59_999)
        let early = Credentials.newToken()
        try store.oauth.saveCode(early, grant: plain, expires: clock.milliseconds() + 60_000)
        clock.advance(milliseconds: 1)
        #expect(try store.oauth.takeCode(late) == nil, "expired by the backend's clock")
        #expect(try store.oauth.takeCode(early) == plain)
    }

    @Test(arguments: RecordsContractBackend.all)
    func aCodeRacedForByTwoProcessesIsTakenOnce(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let opened = try Self.opened(backend, clock: clock)
        let processes = [try opened.restart(), try opened.restart()]
        for _ in 0..<5 {
            let code = Credentials.newToken()
            let grant = AuthorizationGrant(
                clientId: "client1", redirectURI: "urn:ietf:wg:oauth:2.0:oob", user: "ada", codeChallenge: nil, minutes: 30)
            try processes[0].oauth.saveCode(code, grant: grant, expires: clock.milliseconds() + 60_000)
            let taken = try onThreads(8) { index in try processes[index % 2].oauth.takeCode(code) }
            #expect(taken.compactMap { $0 } == [grant], "one taker of eight")
        }
    }

    @Test(arguments: RecordsContractBackend.all)
    func aRotatedRefreshTokenIsSpentAndPresentingItAgainRevokesItsSuccessor(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let grant = RefreshGrant(clientId: "client1", user: "ada", minutes: 30)
        let (first, firstExpires) = try store.oauth.issueRefreshToken(grant, minutes: 60)
        #expect(firstExpires == clock.milliseconds() + 3_600_000)
        let stored = try Self.storedText(store, table: "outpost_oauth_refresh_tokens")
        #expect(stored.contains(Self.hex(Credentials.tokenHash(first))) && !Self.holds(first, stored), "stored only hashed")

        #expect(try store.oauth.rotateRefreshToken(first, clientId: "client2", minutes: 60) == .unknown, "another client's")
        #expect(try store.oauth.rotateRefreshToken(Credentials.newToken(), clientId: "client1", minutes: 60) == .unknown)
        clock.advance(milliseconds: 1_000)
        guard case .rotated(let rotated, let second, let secondExpires) = try store.oauth.rotateRefreshToken(first, clientId: "client1", minutes: 90)
        else {
            Issue.record("not rotated")
            return
        }
        #expect(rotated == grant && second != first && secondExpires == clock.milliseconds() + 90 * 60_000)
        guard case .rotated(_, let third, _) = try store.oauth.rotateRefreshToken(second, clientId: "client1", minutes: 90) else {
            Issue.record("the successor does not rotate")
            return
        }
        // `second` is spent: presented again, it is a stolen copy, and `third` goes with it.
        #expect(try store.oauth.rotateRefreshToken(second, clientId: "client1", minutes: 90) == .reused)
        #expect(try store.oauth.rotateRefreshToken(third, clientId: "client1", minutes: 90) == .unknown)
        #expect(try store.oauth.rotateRefreshToken(first, clientId: "client1", minutes: 90) == .unknown)

        // Another family is untouched, and expires by the backend's clock.
        let (other, _) = try store.oauth.issueRefreshToken(grant, minutes: 10)
        let (kept, _) = try store.oauth.issueRefreshToken(grant, minutes: 20)
        clock.advance(milliseconds: 10 * 60_000)
        #expect(try store.oauth.rotateRefreshToken(other, clientId: "client1", minutes: 10) == .expired)
        guard case .rotated = try store.oauth.rotateRefreshToken(kept, clientId: "client1", minutes: 10) else {
            Issue.record("another family was revoked")
            return
        }
    }

    /// `refresh_token` as ArcGIS answers it: a live token serves every refresh and stays; one
    /// spent by an exchange is a stolen copy, and presenting it revokes the family.
    @Test(arguments: RecordsContractBackend.all)
    func aUsedRefreshTokenStaysValidUntilItIsExchanged(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let grant = RefreshGrant(clientId: "client1", user: "ada", minutes: 30)
        let (token, _) = try store.oauth.issueRefreshToken(grant, minutes: 60)
        #expect(try store.oauth.useRefreshToken(token, clientId: "client2") == .unknown, "another client's")
        #expect(try store.oauth.useRefreshToken(Credentials.newToken(), clientId: "client1") == .unknown)
        for _ in 0..<3 { #expect(try store.oauth.useRefreshToken(token, clientId: "client1") == .valid(grant)) }
        guard case .rotated(_, let successor, _) = try store.oauth.rotateRefreshToken(token, clientId: "client1", minutes: 60) else {
            Issue.record("not exchanged")
            return
        }
        #expect(try store.oauth.useRefreshToken(successor, clientId: "client1") == .valid(grant))
        #expect(try store.oauth.useRefreshToken(token, clientId: "client1") == .reused)
        #expect(try store.oauth.useRefreshToken(successor, clientId: "client1") == .unknown, "the family went with the reuse")
        let (later, _) = try store.oauth.issueRefreshToken(grant, minutes: 1)
        clock.advance(milliseconds: 60_000)
        #expect(try store.oauth.useRefreshToken(later, clientId: "client1") == .expired)
    }

    @Test(arguments: RecordsContractBackend.all)
    func revokingARefreshTokenEndsItsFamily(_ backend: RecordsContractBackend) throws {
        let store = try Self.opened(backend, clock: ManualClock()).records
        let grant = RefreshGrant(clientId: "client1", user: "ada", minutes: 30)
        let (token, _) = try store.oauth.issueRefreshToken(grant, minutes: 60)
        let (other, _) = try store.oauth.issueRefreshToken(grant, minutes: 60)
        guard case .rotated(_, let successor, _) = try store.oauth.rotateRefreshToken(token, clientId: "client1", minutes: 60) else {
            Issue.record("not rotated")
            return
        }
        #expect(try store.oauth.revokeRefreshToken(token), "a spent token still names its family")
        #expect(try store.oauth.rotateRefreshToken(successor, clientId: "client1", minutes: 60) == .unknown)
        #expect(try !store.oauth.revokeRefreshToken(successor))
        #expect(try !store.oauth.revokeRefreshToken(Credentials.newToken()))
        guard case .rotated = try store.oauth.rotateRefreshToken(other, clientId: "client1", minutes: 60) else {
            Issue.record("another sign-in was revoked")
            return
        }
    }
}
