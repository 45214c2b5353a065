import Foundation
import GRDB
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// Access tokens of a client, signing out, removing apps and users, the sealing key.
extension OAuthContractTests {
    @Test(arguments: RecordsContractBackend.all)
    func signingOutEndsTheTokensOfThatClientOnlyAndOfEveryClientWithoutOne(_ backend: RecordsContractBackend) throws {
        let store = try Self.opened(backend, clock: ManualClock()).records
        try store.users.addUser("bob", role: .editor, password: "long enough", rounds: 1_000)
        let bob = ServerUser(name: "bob", role: .editor)
        let (first, _) = try store.oauth.issueAccessToken(for: Self.ada, clientId: "client1", minutes: 60, refreshToken: nil)
        let (second, _) = try store.oauth.issueAccessToken(for: Self.ada, clientId: "client2", minutes: 60, refreshToken: nil)
        let (generated, _) = try store.users.issueToken(for: Self.ada, minutes: 60)
        let (bobs, _) = try store.oauth.issueAccessToken(for: bob, clientId: "client1", minutes: 60, refreshToken: nil)
        let (refresh1, _) = try store.oauth.issueRefreshToken(RefreshGrant(clientId: "client1", user: "ada", minutes: 60), minutes: 60)
        let (refresh2, _) = try store.oauth.issueRefreshToken(RefreshGrant(clientId: "client2", user: "ada", minutes: 60), minutes: 60)
        #expect(try store.users.check(token: first) == .valid(Self.ada), "a client's token is a user directory token")

        try store.oauth.signOut(user: "ADA", clientId: "client1")
        #expect(try store.users.check(token: first) == .unknown)
        #expect(try store.oauth.rotateRefreshToken(refresh1, clientId: "client1", minutes: 60) == .unknown)
        #expect(try store.users.check(token: second) == .valid(Self.ada), "another client's")
        #expect(try store.users.check(token: generated) == .valid(Self.ada), "generateToken's")
        #expect(try store.users.check(token: bobs) == .valid(bob), "another user's")
        guard case .rotated(_, let refresh2b, _) = try store.oauth.rotateRefreshToken(refresh2, clientId: "client2", minutes: 60) else {
            Issue.record("another client's refresh token ended")
            return
        }

        try store.oauth.signOut(user: "ada", clientId: nil)
        #expect(try store.users.check(token: second) == .unknown && store.users.check(token: generated) == .unknown)
        #expect(try store.oauth.rotateRefreshToken(refresh2b, clientId: "client2", minutes: 60) == .unknown)
        #expect(try store.users.check(token: bobs) == .valid(bob))

        #expect(try store.oauth.revokeAccessToken(bobs))
        #expect(try store.users.check(token: bobs) == .unknown)
        #expect(try !store.oauth.revokeAccessToken(bobs))
    }

    @Test(arguments: RecordsContractBackend.all)
    func aTokenCarriesAtMostTheRoleItWasIssuedWith(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let asViewer = ServerUser(name: "ada", role: .viewer)
        let (viewer, expires) = try store.oauth.issueAccessToken(for: asViewer, clientId: "client1", minutes: 5, refreshToken: nil)
        #expect(expires == clock.milliseconds() + 300_000)
        #expect(try store.users.check(token: viewer) == .valid(asViewer), "an admin's token issued as viewer checks as viewer")
        let (generated, _) = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 5)
        #expect(try store.users.check(token: generated) == .valid(ServerUser(name: "ada", role: .editor)), "generateToken's too")
        // A row from before the role was kept carries the user's role.
        try Self.forgetTokenRoles(store)
        #expect(try store.users.check(token: generated) == .valid(Self.ada))
        clock.advance(milliseconds: 300_000)
        #expect(try store.users.check(token: viewer) == .expired)
    }

    @Test(arguments: RecordsContractBackend.all)
    func removingAnAppEndsItsCodesAndTokensAndRemovingAUserTheirs(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let app = Self.app("AbCdEfGh12345678", item: "0123456789abcdef0123456789abcdef")
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        func grants(_ clientId: String, user: String) throws -> (code: String, refresh: String) {
            let code = Credentials.newToken()
            try store.oauth.saveCode(
                code, grant: AuthorizationGrant(clientId: clientId, redirectURI: "r", user: user, codeChallenge: nil, minutes: 5),
                expires: clock.milliseconds() + 60_000)
            return (code, try store.oauth.issueRefreshToken(RefreshGrant(clientId: clientId, user: user, minutes: 5), minutes: 60).token)
        }
        let ofApp = try grants(app.clientId, user: "ada")
        let ofOther = try grants("client2", user: "ada")
        let (access, _) = try store.oauth.issueAccessToken(for: Self.ada, clientId: app.clientId, minutes: 60, refreshToken: nil)
        let (otherAccess, _) = try store.oauth.issueAccessToken(for: Self.ada, clientId: "client2", minutes: 60, refreshToken: nil)

        try store.oauth.removeApp(clientId: app.clientId)
        #expect(try store.oauth.app(clientId: app.clientId) == nil && store.oauth.app(itemId: app.itemId) == nil)
        #expect(try !store.oauth.verifyAppSecret(clientId: app.clientId, secret: "secret"))
        #expect(try store.oauth.takeCode(ofApp.code) == nil)
        #expect(try store.oauth.rotateRefreshToken(ofApp.refresh, clientId: app.clientId, minutes: 60) == .unknown)
        #expect(try store.users.check(token: access) == .unknown)
        #expect(try store.users.check(token: otherAccess) == .valid(Self.ada), "another client's")
        try store.oauth.registerApp(app, secret: "again", sealedSecret: nil)
        #expect(try store.oauth.verifyAppSecret(clientId: app.clientId, secret: "again"), "the item may be registered again")

        try store.users.addUser("bob", role: .editor, password: "long enough", rounds: 1_000)
        let bobs = try grants("client2", user: "bob")
        try store.users.removeUser("ada")
        #expect(try store.oauth.takeCode(ofOther.code) == nil)
        #expect(try store.oauth.rotateRefreshToken(ofOther.refresh, clientId: "client2", minutes: 60) == .unknown)
        #expect(try store.oauth.takeCode(bobs.code)?.user == "bob", "another user's")
        guard case .rotated = try store.oauth.rotateRefreshToken(bobs.refresh, clientId: "client2", minutes: 60) else {
            Issue.record("another user's refresh token ended")
            return
        }
    }

    @Test(arguments: RecordsContractBackend.all)
    func theSealingKeyIsMadeOnceForEveryProcess(_ backend: RecordsContractBackend) throws {
        let opened = try backend.open(ManualClock())
        let processes = [try opened.restart(), try opened.restart()]
        // Two processes asking at once, on first use, end with one key.
        let keys = try onThreads(6) { index in try processes[index % 2].oauth.sealingKey() }
        #expect(keys[0].count == 32 && Set(keys).count == 1, "\(Set(keys).count) keys")
        #expect(keys[0] != [UInt8](repeating: 0, count: 32))
        let next = try opened.restart()
        #expect(try next.oauth.sealingKey() == keys[0], "kept for the next process")
    }

    /// Every value of every row of `table`, as text (blobs in lowercase hex): what a copy of
    /// the database would show.
    static func storedText(_ records: any ServerRecords, table: String) throws -> String {
        switch records {
        case let store as SpatiaLiteBackend:
            return try store.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").flatMap { row in
                    row.databaseValues.map { value in
                        if case .blob(let data) = value.storage { return hex([UInt8](data)) + String(decoding: data, as: UTF8.self) }
                        return value.description
                    }
                }.joined(separator: "\n")
            }
        case let backend as PostgresBackend:
            return try backend.pool.query("SELECT t::text FROM \(identifier: table) t").rows.compactMap { $0.string(0) }.joined(separator: "\n")
        default:
            throw StoreError.database("no raw reader for \(type(of: records))")
        }
    }

    /// Leaves every token as a row written before tokens kept a role.
    static func forgetTokenRoles(_ records: any ServerRecords) throws {
        switch records {
        case let store as SpatiaLiteBackend: try store.write { db in try db.execute(sql: "UPDATE outpost_tokens SET role = NULL") }
        case let backend as PostgresBackend: try backend.pool.query("UPDATE outpost_tokens SET role = NULL")
        default: throw StoreError.database("no raw writer for \(type(of: records))")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Whether `stored` shows `secret` as text or as the bytes of its text.
    static func holds(_ secret: String, _ stored: String) -> Bool {
        stored.contains(secret) || stored.contains(hex(Array(secret.utf8)))
    }
}
