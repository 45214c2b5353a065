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
        let hash = Credentials.tokenHash(token)
        return try pool.transaction { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT family, client_id, user_name, minutes, expires_at, spent_at FROM outpost_oauth_refresh_tokens
                    WHERE token_hash = \(hash) FOR UPDATE
                    """
                ).first,
                row.string(1) == clientId
            else { return .unknown }
            if try row.required(4, row.int64) <= now { return .expired }
            if !row.isNull(5) {
                try connection.query("DELETE FROM outpost_oauth_refresh_tokens WHERE family = \(try row.required(0, row.string))")
                return .reused
            }
            return .valid(RefreshGrant(clientId: clientId, user: try row.required(2, row.string), minutes: try row.required(3, row.int)))
        }
    }

    public func rotateRefreshToken(_ token: String, clientId: String, minutes: Int) throws -> RefreshOutcome {
        let successor = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        let hash = Credentials.tokenHash(token)
        // The row lock orders processes presenting the same token: the second finds it spent.
        return try pool.transaction { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT family, client_id, user_name, minutes, expires_at, spent_at FROM outpost_oauth_refresh_tokens
                    WHERE token_hash = \(hash) FOR UPDATE
                    """
                ).first,
                row.string(1) == clientId
            else { return .unknown }
            if try row.required(4, row.int64) <= now { return .expired }
            let family = try row.required(0, row.string)
            if !row.isNull(5) {
                try connection.query("DELETE FROM outpost_oauth_refresh_tokens WHERE family = \(family)")
                return .reused
            }
            try connection.query("UPDATE outpost_oauth_refresh_tokens SET spent_at = \(now) WHERE token_hash = \(hash)")
            try connection.query("DELETE FROM outpost_oauth_refresh_tokens WHERE expires_at <= \(now)")
            let grant = RefreshGrant(clientId: clientId, user: try row.required(2, row.string), minutes: try row.required(3, row.int))
            try Self.insertRefreshToken(connection, token: successor, family: family, grant: grant, expires: expires, now: now)
            return .rotated(grant, token: successor, expires: expires)
        }
    }

    @discardableResult public func revokeRefreshToken(_ token: String) throws -> Bool {
        try pool.query(
            """
            DELETE FROM outpost_oauth_refresh_tokens
            WHERE family = (SELECT family FROM outpost_oauth_refresh_tokens WHERE token_hash = \(Credentials.tokenHash(token)))
            """
        ).affectedRows > 0
    }

    public func issueAccessToken(for user: ServerUser, clientId: String, minutes: Int) throws -> (token: String, expires: Int64) {
        let token = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        try pool.transaction { connection in
            try connection.query("DELETE FROM outpost_tokens WHERE expires_at <= \(now)")
            try connection.query(
                """
                INSERT INTO outpost_tokens(token_hash, user_name, expires_at, created_at, client_id, role)
                VALUES (\(Credentials.tokenHash(token)), \(user.name), \(expires), \(now), \(clientId), \(user.role.rawValue))
                """)
        }
        return (token, expires)
    }

    @discardableResult public func revokeAccessToken(_ token: String) throws -> Bool {
        try pool.query("DELETE FROM outpost_tokens WHERE token_hash = \(Credentials.tokenHash(token))").affectedRows > 0
    }

    /// With no client, every token of the user goes, `generateToken`'s too.
    public func signOut(user: String, clientId: String?) throws {
        try pool.transaction { connection in
            for table in ["outpost_tokens", "outpost_oauth_refresh_tokens"] {
                try connection.query(
                    """
                    DELETE FROM \(identifier: table) WHERE lower(user_name) = lower(\(user)) AND (\(clientId)::text IS NULL OR client_id = \(clientId))
                    """)
            }
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
