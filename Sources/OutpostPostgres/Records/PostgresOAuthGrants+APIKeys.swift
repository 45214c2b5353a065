import OutpostStorage

/// An app's API keys (docs/identity.md, "API keys"): what they reach, kept on the app, and
/// their tokens, user directory tokens of the app's client with a slot (one live per slot, by
/// a unique index), so `PostgresUserDirectory.check(token:)` reads key and app in one query.
extension PostgresOAuthGrants {
    public func sealedSecret(clientId: String) throws -> String? {
        try pool.query("SELECT secret_sealed FROM outpost_oauth_apps WHERE client_id = \(clientId)").first?.string(0)
    }

    public func updateApp(clientId: String, privileges: [String]?, httpReferrers: [String]?, redirectURIs: [String]?) throws {
        let updated = try pool.query(
            """
            UPDATE outpost_oauth_apps SET privileges = coalesce(\(try privileges.map(Self.json))::text, privileges),
                http_referrers = coalesce(\(try httpReferrers.map(Self.json))::text, http_referrers),
                redirect_uris = coalesce(\(try redirectURIs.map(Self.json))::text, redirect_uris), modified = \(clock.milliseconds())
            WHERE client_id = \(clientId)
            """)
        guard updated.affectedRows > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
    }

    public func setAPITokenExpiration(clientId: String, slot: Int, expires: Int64?) throws {
        let column = try Self.expirationColumn(slot: slot)
        let updated = try pool.query("UPDATE outpost_oauth_apps SET \(identifier: column) = \(expires)::bigint WHERE client_id = \(clientId)")
        guard updated.affectedRows > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
    }

    public func apps(owner: String?) throws -> [RegisteredApp] {
        try pool.query(
            """
            \(unescaped: Self.appColumns) WHERE \(owner)::text IS NULL OR lower(owner) = lower(\(owner)::text) ORDER BY registered, client_id
            """
        ).rows.map(Self.app)
    }

    /// One statement: the slot's token replaced (processes issuing one slot at once: the
    /// later waits for the first and replaces it), only while the app exists.
    public func issueAPIKeyToken(_ token: String, clientId: String, slot: Int, user: String, expires: Int64, sealed: String?) throws {
        guard (0...2).contains(slot) else { throw PortalFailure.invalid("An API key slot is 0, 1 or 2, not \(slot).") }
        let now = clock.milliseconds()
        let kept = slot == 0 ? sealed : nil
        // No role of its own: the owner's role now, capped by the key's privileges at each check.
        let issued = try pool.query(
            """
            INSERT INTO outpost_tokens(token_hash, user_name, expires_at, created_at, client_id, api_slot, api_key_sealed)
            SELECT \(Credentials.tokenHash(token)), \(user)::text, \(expires)::bigint, \(now)::bigint, client_id, \(slot)::integer,
                \(kept)::text
            FROM outpost_oauth_apps WHERE client_id = \(clientId)
            ON CONFLICT (client_id, api_slot) WHERE api_slot IN (0, 1, 2) DO UPDATE SET
                token_hash = excluded.token_hash, user_name = excluded.user_name, expires_at = excluded.expires_at,
                created_at = excluded.created_at, api_key_sealed = excluded.api_key_sealed, role = NULL, refresh_family = NULL
            """)
        guard issued.affectedRows > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
    }

    /// Only while the app exists; at most a viewer's role, whatever the app's privileges.
    public func issueAppToken(clientId: String, user: String, minutes: Int) throws -> (token: String, expires: Int64) {
        let token = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        let issued = try pool.query(
            """
            INSERT INTO outpost_tokens(token_hash, user_name, expires_at, created_at, client_id, role, api_slot)
            SELECT \(Credentials.tokenHash(token)), \(user)::text, \(expires)::bigint, \(now)::bigint, client_id, \(UserRole.viewer.rawValue)::text,
                \(APIKeySlot.appToken)::integer
            FROM outpost_oauth_apps WHERE client_id = \(clientId)
            """)
        guard issued.affectedRows > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
        return (token, expires)
    }

    @discardableResult public func revokeAPIKeyTokens(clientId: String, slot: Int?) throws -> Bool {
        let now = clock.milliseconds()
        return try pool.query(
            """
            DELETE FROM outpost_tokens WHERE client_id = \(clientId) AND api_slot IS NOT NULL
                AND (\(slot)::integer IS NULL OR api_slot = \(slot)::integer)
            RETURNING expires_at
            """
        ).rows.contains { try $0.required(0, $0.int64) > now }
    }

    public func apiKeySlots(clientId: String) throws -> [APIKeySlot] {
        try pool.query(
            """
            SELECT api_slot, expires_at FROM outpost_tokens
            WHERE client_id = \(clientId) AND api_slot IN (0, 1, 2) AND expires_at > \(clock.milliseconds()) ORDER BY api_slot
            """
        ).rows.map { APIKeySlot(slot: try $0.required(0, $0.int), expires: try $0.required(1, $0.int64)) }
    }

    public func sealedAPIKey(clientId: String) throws -> String? {
        try pool.query(
            """
            SELECT api_key_sealed FROM outpost_tokens WHERE client_id = \(clientId) AND api_slot = 0 AND expires_at > \(clock.milliseconds())
            """
        ).first?.string(0)
    }

    /// The app's column keeping the expiration date of `slot`: a fixed name, never the caller's text.
    static func expirationColumn(slot: Int) throws -> String {
        switch slot {
        case 1: "token1_expires_at"
        case 2: "token2_expires_at"
        default: throw PortalFailure.invalid("An apiToken slot is 1 or 2, not \(slot).")
        }
    }
}
