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
        try store.oauth.registerApp(app, secret: "app secret")
        let grant = AuthorizationGrant(
            clientId: app.clientId, redirectURI: "https://app.example/cb", user: "ada", codeChallenge: "challenge", minutes: 30)
        let code = Credentials.newToken()
        try store.oauth.saveCode(code, grant: grant, expires: store.clock.milliseconds() + 600_000)
        let refresh = try store.oauth.issueRefreshToken(RefreshGrant(clientId: app.clientId, user: "ada", minutes: 30), minutes: 60).token
        let access = try store.oauth.issueAccessToken(for: ServerUser(name: "ada", role: .viewer), clientId: app.clientId, minutes: 60).token
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
}
