import Foundation
import GRDB
import OutpostStorage
import OutpostSync

/// Users and tokens in the embedded database (`UserDirectory`).
public struct SpatiaLiteUserDirectory: UserDirectory, StoreRepository {
    public let database: StoreDatabase

    public func addUser(_ name: String, role: UserRole, password: String, rounds: Int) throws {
        try Credentials.check(name: name, password: password)
        let salt = Credentials.randomBytes(16)
        let hash = try Credentials.passwordHash(password, salt: salt, rounds: rounds)
        try pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name]) == true {
                throw UserFailure.exists(name)
            }
            try db.execute(
                sql: "INSERT INTO outpost_users(name, role, salt, hash, rounds, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [name, role.rawValue, Data(salt), Data(hash), rounds, clock.milliseconds()])
        }
    }

    public func removeUser(_ name: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name])
            guard db.changesCount > 0 else { throw UserFailure.notFound(name) }
            for table in ["outpost_tokens", "outpost_oauth_codes", "outpost_oauth_refresh_tokens"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE lower(user) = lower(?)", arguments: [name])
            }
        }
    }

    public func setRole(_ role: UserRole, of name: String) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE outpost_users SET role = ? WHERE lower(name) = lower(?)", arguments: [role.rawValue, name])
            guard db.changesCount > 0 else { throw UserFailure.notFound(name) }
        }
    }

    public func users() throws -> [ServerUser] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, role FROM outpost_users ORDER BY name").map {
                ServerUser(name: $0[0], role: UserRole(rawValue: $0[1]) ?? .viewer)
            }
        }
    }

    public var hasUsers: Bool {
        get throws { try pool.read { db in try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_users") ?? false } }
    }

    /// The user, when the password is theirs (compared in constant time).
    public func verify(user name: String, password: String) throws -> ServerUser? {
        guard
            let row = try pool.read({ db in
                try Row.fetchOne(db, sql: "SELECT name, role, salt, hash, rounds FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name])
            })
        else {
            Credentials.spendVerificationTime(password)
            return nil
        }
        let matches = try Credentials.verify(password, stored: [UInt8](row[3] as Data), salt: [UInt8](row[2] as Data), rounds: row[4])
        return matches ? ServerUser(name: row[0], role: UserRole(rawValue: row[1]) ?? .viewer) : nil
    }

    /// A new token for `user`, valid for `minutes`.
    public func issueToken(for user: ServerUser, minutes: Int) throws -> (token: String, expires: Int64) {
        try issueToken(for: user, minutes: minutes, clientId: nil, refreshToken: nil)
    }

    /// A new token for `user` carrying at most `user.role`, of an OAuth client or of none
    /// (`generateToken`'s): one table, one check (`check(token:)`). With `refreshToken`, it
    /// joins that token's family (revoking the family ends it).
    func issueToken(for user: ServerUser, minutes: Int, clientId: String?, refreshToken: String?) throws -> (token: String, expires: Int64) {
        let token = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_tokens WHERE expires_at <= ?", arguments: [now])
            try db.execute(
                sql: """
                    INSERT INTO outpost_tokens(token_hash, user, expires_at, created_at, client_id, role, refresh_family)
                    VALUES (?, ?, ?, ?, ?, ?, (SELECT family FROM outpost_oauth_refresh_tokens WHERE token_hash = ?))
                    """,
                arguments: [
                    Data(Credentials.tokenHash(token)), user.name, expires, now, clientId, user.role.rawValue,
                    refreshToken.map { Data(Credentials.tokenHash($0)) },
                ])
        }
        return (token, expires)
    }

    /// One query: the token, its user and, for an API key's, its app (the key's owner's still),
    /// whose privileges are read now.
    public func check(token: String) throws -> TokenCheck { try check(token: token, longest: .standard) }

    public func check(token: String, longest: TokenLifetimes) throws -> TokenCheck {
        let now = clock.milliseconds()
        return try pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT t.expires_at, u.name, u.role, t.role, t.api_slot, a.client_id, a.item_id, a.privileges, a.http_referrers
                        FROM outpost_tokens t JOIN outpost_users u ON lower(u.name) = lower(t.user)
                        LEFT JOIN outpost_oauth_apps a ON t.api_slot IS NOT NULL AND a.client_id = t.client_id AND lower(a.owner) = lower(t.user)
                        WHERE t.token_hash = ?
                        """, arguments: [Data(Credentials.tokenHash(token))])
            else { return .unknown }
            let slot: Int? = row[4]
            if slot != nil, (row[5] as String?) == nil { return .unknown }
            let expires: Int64 = row[0]
            if expires <= now || longest.mintedInAnotherTime(expires: expires, now: now, apiSlot: slot) { return .expired }
            // The lower of the user's role now and the most the token may carry.
            let role = Credentials.effectiveRole(
                user: UserRole(rawValue: row[2]) ?? .viewer, token: (row[3] as String?).flatMap(UserRole.init(rawValue:)))
            guard let slot else { return .valid(ServerUser(name: row[1], role: role)) }
            let scope = try APIKeyScope(clientId: row[5], itemId: row[6], slot: slot, storedPrivileges: row[7], storedHTTPReferrers: row[8])
            return .valid(scope.user(named: row[1], role: role))
        }
    }
}
