import OutpostStorage
import OutpostSync

/// Users and tokens on PostgreSQL (`UserDirectory`), with `Credentials`' rules: a name is
/// unique without case by index, so two processes adding one name at once add it once.
public struct PostgresUserDirectory: UserDirectory {
    let pool: PostgresPool
    let clock: any WallClock

    public func addUser(_ name: String, role: UserRole, password: String, rounds: Int) throws {
        try Credentials.check(name: name, password: password)
        let salt = Credentials.randomBytes(16)
        let hash = try Credentials.passwordHash(password, salt: salt, rounds: rounds)
        do {
            try pool.query(
                """
                INSERT INTO outpost_users(name, role, salt, hash, rounds, created_at)
                VALUES (\(name), \(role.rawValue), \(salt), \(hash), \(rounds), \(clock.milliseconds()))
                """)
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw UserFailure.exists(name)
        }
    }

    public func removeUser(_ name: String) throws {
        try pool.transaction { connection in
            guard try connection.query("DELETE FROM outpost_users WHERE lower(name) = lower(\(name))").affectedRows > 0 else {
                throw UserFailure.notFound(name)
            }
            for table in ["outpost_tokens", "outpost_oauth_codes", "outpost_oauth_refresh_tokens"] {
                try connection.query("DELETE FROM \(identifier: table) WHERE lower(user_name) = lower(\(name))")
            }
        }
    }

    public func setRole(_ role: UserRole, of name: String) throws {
        guard try pool.query("UPDATE outpost_users SET role = \(role.rawValue) WHERE lower(name) = lower(\(name))").affectedRows > 0 else {
            throw UserFailure.notFound(name)
        }
    }

    public func users() throws -> [ServerUser] {
        try pool.query("SELECT name, role FROM outpost_users ORDER BY lower(name) COLLATE \"C\"").rows.map { row in
            ServerUser(name: try row.required(0, row.string), role: row.string(1).flatMap(UserRole.init(rawValue:)) ?? .viewer)
        }
    }

    public var hasUsers: Bool {
        get throws { try pool.query("SELECT EXISTS (SELECT 1 FROM outpost_users)").first?.bool(0) ?? false }
    }

    public func verify(user name: String, password: String) throws -> ServerUser? {
        guard let row = try pool.query("SELECT name, role, salt, hash, rounds FROM outpost_users WHERE lower(name) = lower(\(name))").first
        else {
            Credentials.spendVerificationTime(password)
            return nil
        }
        let matches = try Credentials.verify(
            password, stored: try row.required(3, row.bytes), salt: try row.required(2, row.bytes), rounds: try row.required(4, row.int))
        return matches ? ServerUser(name: try row.required(0, row.string), role: row.string(1).flatMap(UserRole.init(rawValue:)) ?? .viewer) : nil
    }

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
        try pool.transaction { connection in
            try connection.query("DELETE FROM outpost_tokens WHERE expires_at <= \(now)")
            try connection.query(
                """
                INSERT INTO outpost_tokens(token_hash, user_name, expires_at, created_at, client_id, role, refresh_family)
                VALUES (\(Credentials.tokenHash(token)), \(user.name), \(expires), \(now), \(clientId), \(user.role.rawValue),
                    (SELECT family FROM outpost_oauth_refresh_tokens WHERE token_hash = \(refreshToken.map(Credentials.tokenHash))))
                """)
        }
        return (token, expires)
    }

    /// One round trip (every request's): the token, its user and, for an API key's, its app
    /// (the key's owner's still), whose privileges are read now.
    public func check(token: String) throws -> TokenCheck { try check(token: token, longest: .standard) }

    public func check(token: String, longest: TokenLifetimes) throws -> TokenCheck {
        guard
            let row = try pool.query(
                """
                SELECT t.expires_at, u.name, u.role, t.role, t.api_slot, a.client_id, a.item_id, a.privileges, a.http_referrers
                FROM outpost_tokens t JOIN outpost_users u ON lower(u.name) = lower(t.user_name)
                LEFT JOIN outpost_oauth_apps a ON t.api_slot IS NOT NULL AND a.client_id = t.client_id AND lower(a.owner) = lower(t.user_name)
                WHERE t.token_hash = \(Credentials.tokenHash(token))
                """
            ).first
        else { return .unknown }
        let slot = try row.int(4)
        if slot != nil, row.isNull(5) { return .unknown }
        let (expires, now) = (try row.required(0, row.int64), clock.milliseconds())
        if expires <= now || longest.mintedInAnotherTime(expires: expires, now: now, apiSlot: slot) { return .expired }
        // The lower of the user's role now and the most the token may carry.
        let role = Credentials.effectiveRole(
            user: row.string(2).flatMap(UserRole.init(rawValue:)) ?? .viewer, token: row.string(3).flatMap(UserRole.init(rawValue:)))
        let name = try row.required(1, row.string)
        guard let slot else { return .valid(ServerUser(name: name, role: role)) }
        let scope = try APIKeyScope(
            clientId: try row.required(5, row.string), itemId: try row.required(6, row.string), slot: slot,
            storedPrivileges: try row.required(7, row.string), storedHTTPReferrers: try row.required(8, row.string))
        return .valid(scope.user(named: name, role: role))
    }
}
