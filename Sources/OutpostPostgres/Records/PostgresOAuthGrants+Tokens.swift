import OutpostStorage

/// Refresh tokens (rotated in families) and the access tokens of a client, which live in the
/// user directory's `outpost_tokens` with the client and the most the token may carry.
extension PostgresOAuthGrants {
    public func issueRefreshToken(_ grant: RefreshGrant, minutes: Int) throws -> (token: String, expires: Int64) {
        let token = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        try pool.transaction { connection in
            try connection.query("DELETE FROM outpost_oauth_refresh_tokens WHERE expires_at <= \(now)")
            try Self.insertRefreshToken(connection, token: token, family: Credentials.newFamily(), grant: grant, expires: expires, now: now)
        }
        return (token, expires)
    }

    public func useRefreshToken(_ token: String, clientId: String) throws -> RefreshOutcome {
        let now = clock.milliseconds()
        return try pool.transaction { connection in
            switch try Self.presented(connection, token: token, clientId: clientId, now: now) {
            case .refused(let outcome): outcome
            case .live(_, let grant): .valid(grant)
            }
        }
    }

    public func rotateRefreshToken(_ token: String, clientId: String, minutes: Int) throws -> RefreshOutcome {
        let successor = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        return try pool.transaction { connection in
            let (family, grant): (String, RefreshGrant)
            switch try Self.presented(connection, token: token, clientId: clientId, now: now) {
            case .refused(let outcome): return outcome
            case .live(let liveFamily, let liveGrant): (family, grant) = (liveFamily, liveGrant)
            }
            try connection.query("UPDATE outpost_oauth_refresh_tokens SET spent_at = \(now) WHERE token_hash = \(Credentials.tokenHash(token))")
            try connection.query("DELETE FROM outpost_oauth_refresh_tokens WHERE expires_at <= \(now)")
            try Self.insertRefreshToken(connection, token: successor, family: family, grant: grant, expires: expires, now: now)
            return .rotated(grant, token: successor, expires: expires)
        }
    }

    /// What a presented refresh token is, inside the caller's transaction; its row locked, so
    /// processes presenting the same token are ordered and the second finds it spent.
    private static func presented(_ connection: PostgresConnection, token: String, clientId: String, now: Int64) throws -> PresentedRefreshToken {
        guard
            let row = try connection.query(
                """
                SELECT family, client_id, user_name, minutes, expires_at, spent_at FROM outpost_oauth_refresh_tokens
                WHERE token_hash = \(Credentials.tokenHash(token)) FOR UPDATE
                """
            ).first,
            row.string(1) == clientId
        else { return .refused(.unknown) }
        if try row.required(4, row.int64) <= now { return .refused(.expired) }
        let family = try row.required(0, row.string)
        if !row.isNull(5) {
            try connection.query("DELETE FROM outpost_oauth_refresh_tokens WHERE family = \(family)")
            try connection.query("DELETE FROM outpost_tokens WHERE refresh_family = \(family)")
            return .refused(.reused)
        }
        return .live(family: family, RefreshGrant(clientId: clientId, user: try row.required(2, row.string), minutes: try row.required(3, row.int)))
    }

    /// One statement: the family and the access tokens issued from it go together.
    @discardableResult public func revokeRefreshToken(_ token: String) throws -> Bool {
        try pool.query(
            """
            WITH family AS (SELECT family FROM outpost_oauth_refresh_tokens WHERE token_hash = \(Credentials.tokenHash(token))),
                access AS (DELETE FROM outpost_tokens WHERE refresh_family IN (SELECT family FROM family))
            DELETE FROM outpost_oauth_refresh_tokens WHERE family IN (SELECT family FROM family)
            """
        ).affectedRows > 0
    }

    public func sessions(user: String?) throws -> [SignInSession] {
        try pool.query(
            """
            SELECT family, min(client_id), min(user_name), min(created_at), max(created_at),
                max(CASE WHEN spent_at IS NULL THEN expires_at END) AS live_until
            FROM outpost_oauth_refresh_tokens WHERE \(user)::text IS NULL OR lower(user_name) = lower(\(user)::text)
            GROUP BY family HAVING max(CASE WHEN spent_at IS NULL THEN expires_at END) > \(clock.milliseconds())
            ORDER BY max(created_at) DESC, family
            """
        ).rows.map { row in
            SignInSession(
                family: try row.required(0, row.string), clientId: try row.required(1, row.string), user: try row.required(2, row.string),
                started: try row.required(3, row.int64), renewed: try row.required(4, row.int64), expires: try row.required(5, row.int64))
        }
    }

    /// One statement: the family (of `user` when given) and its access tokens go together.
    @discardableResult public func endSession(family: String, user: String?) throws -> Bool {
        try pool.query(
            """
            WITH family AS (
                SELECT DISTINCT family FROM outpost_oauth_refresh_tokens
                WHERE family = \(family) AND (\(user)::text IS NULL OR lower(user_name) = lower(\(user)::text))),
                access AS (DELETE FROM outpost_tokens WHERE refresh_family IN (SELECT family FROM family))
            DELETE FROM outpost_oauth_refresh_tokens WHERE family IN (SELECT family FROM family)
            """
        ).affectedRows > 0
    }

    public func issueAccessToken(
        for user: ServerUser, clientId: String, minutes: Int, refreshToken: String?
    ) throws -> (token: String, expires: Int64) {
        try PostgresUserDirectory(pool: pool, clock: clock).issueToken(for: user, minutes: minutes, clientId: clientId, refreshToken: refreshToken)
    }

    @discardableResult public func revokeAccessToken(_ token: String) throws -> Bool {
        try pool.query("DELETE FROM outpost_tokens WHERE token_hash = \(Credentials.tokenHash(token))").affectedRows > 0
    }

    /// With no client, every token of the user goes, `generateToken`'s too.
    public func signOut(user: String, clientId: String?) throws {
        // API keys are not sessions: signing out leaves them (`revokeAPIKeyTokens` ends them).
        try pool.transaction { connection in
            try connection.query(
                """
                DELETE FROM outpost_tokens
                WHERE lower(user_name) = lower(\(user)) AND (\(clientId)::text IS NULL OR client_id = \(clientId)) AND api_slot IS NULL
                """)
            try connection.query(
                """
                DELETE FROM outpost_oauth_refresh_tokens
                WHERE lower(user_name) = lower(\(user)) AND (\(clientId)::text IS NULL OR client_id = \(clientId))
                """)
        }
    }

    static func insertRefreshToken(
        _ connection: PostgresConnection, token: String, family: String, grant: RefreshGrant, expires: Int64, now: Int64
    ) throws {
        try connection.query(
            """
            INSERT INTO outpost_oauth_refresh_tokens(token_hash, family, client_id, user_name, minutes, expires_at, created_at)
            VALUES (\(Credentials.tokenHash(token)), \(family), \(grant.clientId), \(grant.user), \(grant.minutes), \(expires), \(now))
            """)
    }
}
