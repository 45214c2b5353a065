import Foundation
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// What an app keeps for its keys (sealed secret, privileges, referrers, slot expirations),
/// the owner's listing, refresh token families ending their access tokens, and two processes.
extension APIKeyContractTests {
    @Test(arguments: RecordsContractBackend.all)
    func theSealedSecretRoundTripsAndIsNilWhenNotGiven(_ backend: RecordsContractBackend) throws {
        let store = try Self.opened(backend, clock: ManualClock()).records
        let sealed = Self.app()
        let plain = Self.app("PlainApp12345678", item: String(repeating: "a", count: 32))
        try store.oauth.registerApp(sealed, secret: "the secret", sealedSecret: "sealed copy")
        try store.oauth.registerApp(plain, secret: "the secret", sealedSecret: nil)
        #expect(try store.oauth.sealedSecret(clientId: sealed.clientId) == "sealed copy")
        #expect(try store.oauth.sealedSecret(clientId: plain.clientId) == nil)
        #expect(try store.oauth.sealedSecret(clientId: "NoSuchApp1234567") == nil)
        #expect(try store.oauth.verifyAppSecret(clientId: sealed.clientId, secret: "the secret"), "the hash stays the check")
    }

    @Test(arguments: RecordsContractBackend.all)
    func appsAreListedByOwnerWithoutCaseOrAllByRegistration(_ backend: RecordsContractBackend) throws {
        let store = try Self.opened(backend, clock: ManualClock()).records
        let adaLater = Self.app("AdaLater12345678", item: String(repeating: "1", count: 32), owner: "ada", registered: 3_000)
        let eves = Self.app("EvesApp123456789", item: String(repeating: "2", count: 32), owner: "eve", registered: 2_000)
        let adaFirst = Self.app("AdaFirst12345678", item: String(repeating: "3", count: 32), owner: "Ada", registered: 1_000)
        for app in [adaLater, eves, adaFirst] { try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil) }
        #expect(try store.oauth.apps(owner: "ADA") == [adaFirst, adaLater])
        #expect(try store.oauth.apps(owner: "eve") == [eves])
        #expect(try store.oauth.apps(owner: "vic") == [])
        #expect(try store.oauth.apps(owner: nil) == [adaFirst, eves, adaLater])
    }

    @Test(arguments: RecordsContractBackend.all)
    func updatesAndSlotExpirationsShowInTheApp(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        var app = Self.app(privileges: ["premium:user:geocode"], referrers: ["https://a.example/"])
        app.apiTokenExpirations = [5_000, nil]
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        #expect(try store.oauth.app(clientId: app.clientId) == app, "as registered")

        try store.oauth.setAPITokenExpiration(clientId: app.clientId, slot: 2, expires: 9_000)
        try store.oauth.setAPITokenExpiration(clientId: app.clientId, slot: 1, expires: nil)
        app.apiTokenExpirations = [nil, 9_000]
        #expect(try store.oauth.app(clientId: app.clientId) == app)
        #expect(throws: PortalFailure.self) { try store.oauth.setAPITokenExpiration(clientId: app.clientId, slot: 0, expires: 1) }
        #expect(throws: PortalFailure.self) { try store.oauth.setAPITokenExpiration(clientId: "NoSuchApp1234567", slot: 1, expires: 1) }

        clock.advance(milliseconds: 10_000)
        try store.oauth.updateApp(clientId: app.clientId, privileges: ["features:user:edit"], httpReferrers: nil, redirectURIs: nil)
        app.privileges = ["features:user:edit"]
        app.modified = clock.milliseconds()
        #expect(try store.oauth.app(itemId: app.itemId) == app, "what is nil is kept")
        try store.oauth.updateApp(clientId: app.clientId, privileges: nil, httpReferrers: [], redirectURIs: ["https://b.example/cb"])
        app.httpReferrers = []
        app.redirectURIs = ["https://b.example/cb"]
        #expect(try store.oauth.app(clientId: app.clientId) == app)
        #expect(throws: PortalFailure.self) {
            try store.oauth.updateApp(clientId: "NoSuchApp1234567", privileges: [], httpReferrers: nil, redirectURIs: nil)
        }
    }

    /// An access token joins its refresh token's family: revoking the family (`revokeToken`, or
    /// a spent token presented again) ends the access tokens bought with it, not the others.
    @Test(arguments: RecordsContractBackend.all)
    func revokingARefreshFamilyEndsItsAccessTokensOnReuseToo(_ backend: RecordsContractBackend) throws {
        let store = try Self.opened(backend, clock: ManualClock()).records
        let ada = ServerUser(name: "ada", role: .admin)
        let grant = RefreshGrant(clientId: "client1", user: "ada", minutes: 30)
        func access(_ refresh: String?) throws -> String {
            try store.oauth.issueAccessToken(for: ada, clientId: "client1", minutes: 30, refreshToken: refresh).token
        }

        let (revoked, _) = try store.oauth.issueRefreshToken(grant, minutes: 60)
        let (kept, _) = try store.oauth.issueRefreshToken(grant, minutes: 60)
        let (ofRevoked, ofKept, alone) = (try access(revoked), try access(kept), try access(nil))
        #expect(try store.oauth.revokeRefreshToken(revoked))
        #expect(try store.users.check(token: ofRevoked) == .unknown)
        #expect(try store.users.check(token: ofKept) == .valid(ada) && store.users.check(token: alone) == .valid(ada))

        // Exchanged: the successor's access token is of the same family; the spent token
        // presented again (to use it, or to exchange it) takes all of them.
        for reuse in [true, false] {
            let (first, _) = try store.oauth.issueRefreshToken(grant, minutes: 60)
            let ofFirst = try access(first)
            guard case .rotated(_, let successor, _) = try store.oauth.rotateRefreshToken(first, clientId: "client1", minutes: 60) else {
                Issue.record("not rotated")
                return
            }
            let ofSuccessor = try access(successor)
            let outcome =
                reuse
                ? try store.oauth.useRefreshToken(first, clientId: "client1")
                : try store.oauth.rotateRefreshToken(first, clientId: "client1", minutes: 60)
            #expect(outcome == .reused)
            #expect(try store.users.check(token: ofFirst) == .unknown && store.users.check(token: ofSuccessor) == .unknown)
        }
        #expect(try store.users.check(token: ofKept) == .valid(ada), "another family's")
    }

    /// Two processes on one database: a revocation or a privileges update by one is what the
    /// other's next check answers.
    @Test(arguments: RecordsContractBackend.all)
    func anotherProcessSeesARevocationAtOnce(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let opened = try Self.opened(backend, clock: clock)
        let (first, second) = (try opened.restart(), try opened.restart())
        let app = Self.app()
        try first.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let (key, token) = (Self.keyToken(slot: 0), Self.keyToken(slot: 1))
        let expires = clock.milliseconds() + 60_000
        try first.oauth.issueAPIKeyToken(key, clientId: app.clientId, slot: 0, user: "ada", expires: expires, sealed: nil)
        try first.oauth.issueAPIKeyToken(token, clientId: app.clientId, slot: 1, user: "ada", expires: expires, sealed: nil)
        #expect(try second.users.check(token: key) == .valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(app, slot: 0))))

        try second.oauth.updateApp(clientId: app.clientId, privileges: ["features:user:edit"], httpReferrers: nil, redirectURIs: nil)
        guard case .valid(let user) = try first.users.check(token: key) else {
            Issue.record("the key ended")
            return
        }
        #expect(user.role == .editor && user.apiKey?.mayEdit == true)

        try second.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: 0)
        #expect(try first.users.check(token: key) == .unknown)
        #expect(try first.oauth.apiKeySlots(clientId: app.clientId).map(\.slot) == [1])
        let replacement = Self.keyToken(slot: 1)
        try second.oauth.issueAPIKeyToken(replacement, clientId: app.clientId, slot: 1, user: "ada", expires: expires, sealed: nil)
        #expect(try first.users.check(token: token) == .unknown)
        #expect(try first.users.check(token: replacement) != .unknown)
    }

    /// Processes issuing one slot at once leave one live token, never an error.
    @Test(arguments: RecordsContractBackend.all)
    func processesIssuingOneSlotAtOnceLeaveOneLiveToken(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let opened = try Self.opened(backend, clock: clock)
        let processes = [try opened.restart(), try opened.restart()]
        let app = Self.app()
        try processes[0].oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let tokens = (0..<8).map { _ in Self.keyToken(slot: 2) }
        let expires = clock.milliseconds() + 60_000
        _ = try onThreads(8) { index in
            try processes[index % 2].oauth.issueAPIKeyToken(
                tokens[index], clientId: app.clientId, slot: 2, user: "ada", expires: expires, sealed: nil)
        }
        let live = try tokens.filter { try processes[0].users.check(token: $0) != .unknown }
        #expect(live.count == 1, "\(live.count) live tokens")
        #expect(try processes[1].oauth.apiKeySlots(clientId: app.clientId) == [APIKeySlot(slot: 2, expires: expires)])
    }

    /// Signing out ends sessions, not API keys: a key lives until it is revoked or runs out.
    @Test(arguments: RecordsContractBackend.all)
    func signingOutLeavesTheOwnersKeys(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let app = Self.app()
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let key = Self.keyToken(slot: 1)
        try store.oauth.issueAPIKeyToken(key, clientId: app.clientId, slot: 1, user: "ada", expires: clock.milliseconds() + 60_000, sealed: nil)
        let session = try store.oauth.issueAccessToken(
            for: ServerUser(name: "ada", role: .admin), clientId: app.clientId, minutes: 5, refreshToken: nil)
        try store.oauth.signOut(user: "ada", clientId: app.clientId)
        try store.oauth.signOut(user: "ADA", clientId: nil)
        #expect(try store.users.check(token: session.token) == .unknown)
        #expect(try store.users.check(token: key) != .unknown)
    }
}
