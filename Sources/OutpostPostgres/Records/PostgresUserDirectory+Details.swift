import OutpostStorage

extension PostgresUserDirectory {
    public func created(user name: String) throws -> Int64? {
        try pool.query("SELECT created_at FROM outpost_users WHERE lower(name) = lower(\(name))").first.flatMap { try $0.required(0, $0.int64) }
    }

    public func expiry(of token: String) throws -> Int64? {
        try pool.query(
            """
            SELECT t.expires_at FROM outpost_tokens t JOIN outpost_users u ON lower(u.name) = lower(t.user_name)
            WHERE t.token_hash = \(Credentials.tokenHash(token)) AND t.expires_at > \(clock.milliseconds())
            """
        ).first.flatMap { try $0.required(0, $0.int64) }
    }
}
