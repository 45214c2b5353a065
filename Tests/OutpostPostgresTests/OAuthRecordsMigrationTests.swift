import Foundation
import OutpostMigration
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import Testing

/// `outpost migrate-to-postgres` moves the OAuth 2.0 records too: registered apps keep their
/// secrets, codes and refresh tokens stay good, a client's access token keeps the most it may
/// carry, and sealed states keep opening (the same key).
@Suite(.serialized) struct OAuthRecordsMigrationTests {
    @Test func appsCodesRefreshTokensClientTokensAndTheSealingKeyMove() throws {
        let store = try makeTemporaryStore()
        try store.users.addUser("ada", role: .admin, password: "ada-password-1", rounds: 1000)
        let app = RegisteredApp(
            clientId: "AbCdEfGh12345678", itemId: PortalNames.newId(), owner: "ada", appType: "browser", redirectURIs: ["https://app.example/cb"],
            registered: 1, modified: 2)
        try store.oauth.registerApp(app, secret: "app secret", sealedSecret: nil)
        let grant = AuthorizationGrant(
            clientId: app.clientId, redirectURI: "https://app.example/cb", user: "ada", codeChallenge: "challenge", minutes: 30)
        let code = Credentials.newToken()
        try store.oauth.saveCode(code, grant: grant, expires: store.clock.milliseconds() + 600_000)
        let refresh = try store.oauth.issueRefreshToken(RefreshGrant(clientId: app.clientId, user: "ada", minutes: 30), minutes: 60).token
        let access = try store.oauth.issueAccessToken(
            for: ServerUser(name: "ada", role: .viewer), clientId: app.clientId, minutes: 60, refreshToken: nil
        ).token
        let key = try store.oauth.sealingKey()

        let backend = try PostgresBackend(try TestPostgres.makeDatabase(), dataDirectory: store.directory, maximumConnections: 4)
        defer { backend.close() }
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        #expect(report.records["oauth apps"] == 1 && report.records["oauth codes"] == 1, "\(report.records)")
        #expect(report.records["oauth refresh tokens"] == 1 && report.records["oauth sealing key"] == 1, "\(report.records)")

        #expect(try backend.oauth.app(clientId: app.clientId) == app)
        #expect(try backend.oauth.verifyAppSecret(clientId: app.clientId, secret: "app secret"))
        #expect(try backend.oauth.takeCode(code) == grant)
        #expect(try backend.users.check(token: access) == .valid(ServerUser(name: "ada", role: .viewer)))
        #expect(try backend.oauth.sealingKey() == key)
        guard case .rotated = try backend.oauth.rotateRefreshToken(refresh, clientId: app.clientId, minutes: 60) else {
            Issue.record("the refresh token issued before the move is refused")
            return
        }
    }

    /// An API key app keeps what it reaches and its sealed secret; its keys keep working as
    /// they were (slot, sealed `apiKey`), and an access token stays in its refresh family.
    @Test func apiKeysAndRefreshFamiliesMove() throws {
        let store = try makeTemporaryStore()
        try store.users.addUser("ada", role: .admin, password: "ada-password-1", rounds: 1000)
        let app = RegisteredApp(
            clientId: "ApiKeyApp1234567", itemId: PortalNames.newId(), owner: "ada", appType: "apikey", redirectURIs: [], registered: 1,
            modified: 2, privileges: ["features:user:edit", "portal:app:access:item:0123456789abcdef0123456789abcdef"],
            httpReferrers: ["https://maps.example/*"], apiTokenExpirations: [nil, 9_000_000_000_000])
        try store.oauth.registerApp(app, secret: "app secret", sealedSecret: "sealed secret")
        let expires = store.clock.milliseconds() + 3_600_000
        let apiKey = "AAPK" + Credentials.newToken()
        try store.oauth.issueAPIKeyToken(apiKey, clientId: app.clientId, slot: 0, user: "ada", expires: expires, sealed: "sealed key")
        let apiToken = "AAPT" + Credentials.newToken()
        try store.oauth.issueAPIKeyToken(apiToken, clientId: app.clientId, slot: 2, user: "ada", expires: expires, sealed: nil)
        let refresh = try store.oauth.issueRefreshToken(RefreshGrant(clientId: "client1", user: "ada", minutes: 30), minutes: 60).token
        let access = try store.oauth.issueAccessToken(
            for: ServerUser(name: "ada", role: .admin), clientId: "client1", minutes: 60, refreshToken: refresh
        )
        .token

        let backend = try PostgresBackend(try TestPostgres.makeDatabase(), dataDirectory: store.directory, maximumConnections: 4)
        defer { backend.close() }
        _ = try SpatiaLiteToPostgres.migrate(store, to: backend)

        #expect(try backend.oauth.app(clientId: app.clientId) == app)
        #expect(try backend.oauth.sealedSecret(clientId: app.clientId) == "sealed secret")
        #expect(try backend.oauth.sealedAPIKey(clientId: app.clientId) == "sealed key")
        #expect(
            try backend.oauth.apiKeySlots(clientId: app.clientId) == [APIKeySlot(slot: 0, expires: expires), APIKeySlot(slot: 2, expires: expires)])
        let scope = APIKeyScope(clientId: app.clientId, itemId: app.itemId, slot: 0, privileges: app.privileges, httpReferrers: app.httpReferrers)
        #expect(try backend.users.check(token: apiKey) == .valid(ServerUser(name: "ada", role: .editor, apiKey: scope)))
        #expect(try backend.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: 2))
        #expect(try backend.users.check(token: apiToken) == .unknown)
        #expect(try backend.users.check(token: access) == .valid(ServerUser(name: "ada", role: .admin)))
        #expect(try backend.oauth.revokeRefreshToken(refresh))
        #expect(try backend.users.check(token: access) == .unknown, "the access token kept its refresh family")
    }
}
