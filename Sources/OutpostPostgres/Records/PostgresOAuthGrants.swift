import Foundation
import OutpostStorage
import OutpostSync

/// The portal's OAuth 2.0 records on PostgreSQL (`OAuthGrantStore`), shared by every process
/// serving the database. Codes, refresh tokens and app secrets are kept as SHA-256 hashes (32
/// random bytes each: a slow hash would add nothing). A code is taken by one `DELETE …
/// RETURNING`, a refresh token rotated under its row lock: of processes racing, one wins.
public struct PostgresOAuthGrants: OAuthGrantStore {
    let pool: PostgresPool
    let clock: any WallClock

    public func registerApp(_ app: RegisteredApp, secret: String, sealedSecret: String?) throws {
        let expirations = (app.apiTokenExpirations.first ?? nil, app.apiTokenExpirations.dropFirst().first ?? nil)
        do {
            try pool.query(
                """
                INSERT INTO outpost_oauth_apps(client_id, item_id, owner, app_type, redirect_uris, secret_hash, registered, modified,
                    privileges, http_referrers, secret_sealed, token1_expires_at, token2_expires_at)
                VALUES (\(app.clientId), \(app.itemId), \(app.owner), \(app.appType), \(try Self.json(app.redirectURIs)),
                    \(Credentials.tokenHash(secret)), \(app.registered), \(app.modified), \(try Self.json(app.privileges)),
                    \(try Self.json(app.httpReferrers)), \(sealedSecret), \(expirations.0), \(expirations.1))
                """)
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw PortalFailure.invalid("Item \(app.itemId) is registered as an app already.")
        }
    }

    public func app(clientId: String) throws -> RegisteredApp? {
        try pool.query("\(unescaped: Self.appColumns) WHERE client_id = \(clientId)").first.map(Self.app)
    }

    public func app(itemId: String) throws -> RegisteredApp? {
        try pool.query("\(unescaped: Self.appColumns) WHERE item_id = \(itemId)").first.map(Self.app)
    }

    public func verifyAppSecret(clientId: String, secret: String) throws -> Bool {
        let stored = try pool.query("SELECT secret_hash FROM outpost_oauth_apps WHERE client_id = \(clientId)").first.map {
            try $0.required(0, $0.bytes)
        }
        // An unknown app is compared too: no timing difference tells which client ids exist.
        return Credentials.sameBytes(Credentials.tokenHash(secret), stored ?? []) && stored != nil
    }

    public func updateRedirectURIs(clientId: String, _ uris: [String]) throws {
        let updated = try pool.query(
            """
            UPDATE outpost_oauth_apps SET redirect_uris = \(try Self.json(uris)), modified = \(clock.milliseconds()) WHERE client_id = \(clientId)
            """)
        guard updated.affectedRows > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
    }

    public func removeApp(clientId: String) throws {
        try pool.transaction { connection in
            for table in ["outpost_oauth_apps", "outpost_oauth_codes", "outpost_oauth_refresh_tokens", "outpost_tokens"] {
                try connection.query("DELETE FROM \(identifier: table) WHERE client_id = \(clientId)")
            }
        }
    }

    public func saveCode(_ code: String, grant: AuthorizationGrant, expires: Int64) throws {
        try pool.transaction { connection in
            try connection.query("DELETE FROM outpost_oauth_codes WHERE expires_at <= \(clock.milliseconds())")
            try connection.query(
                """
                INSERT INTO outpost_oauth_codes(code_hash, client_id, redirect_uri, user_name, code_challenge, minutes, expires_at)
                VALUES (\(Credentials.tokenHash(code)), \(grant.clientId), \(grant.redirectURI), \(grant.user), \(grant.codeChallenge),
                    \(grant.minutes), \(expires))
                """)
        }
    }

    public func takeCode(_ code: String) throws -> AuthorizationGrant? {
        // Of processes deleting the same row at once, one gets it back; the others wait for it
        // and find nothing.
        guard
            let row = try pool.query(
                """
                DELETE FROM outpost_oauth_codes WHERE code_hash = \(Credentials.tokenHash(code))
                RETURNING client_id, redirect_uri, user_name, code_challenge, minutes, expires_at
                """
            ).first,
            try row.required(5, row.int64) > clock.milliseconds()
        else { return nil }
        return AuthorizationGrant(
            clientId: try row.required(0, row.string), redirectURI: try row.required(1, row.string), user: try row.required(2, row.string),
            codeChallenge: row.string(3), minutes: try row.required(4, row.int))
    }

    /// 32 random bytes, inserted if absent then read: of processes asking at once, the later
    /// insert waits for the first one's commit and keeps it.
    public func sealingKey() throws -> [UInt8] {
        if let key = try pool.query("SELECT key FROM outpost_oauth_sealing_key").first { return try key.required(0, key.bytes) }
        try pool.query("INSERT INTO outpost_oauth_sealing_key(key) VALUES (\(Credentials.randomBytes(32))) ON CONFLICT DO NOTHING")
        guard let row = try pool.query("SELECT key FROM outpost_oauth_sealing_key").first, let key = try row.bytes(0), key.count == 32 else {
            throw StoreError.database("the sealing key could not be kept")
        }
        return key
    }

    static let appColumns = """
        SELECT client_id, item_id, owner, app_type, redirect_uris, registered, modified, privileges, http_referrers, token1_expires_at,
            token2_expires_at
        FROM outpost_oauth_apps
        """

    static func app(_ row: PostgresRow) throws -> RegisteredApp {
        RegisteredApp(
            clientId: try row.required(0, row.string), itemId: try row.required(1, row.string), owner: try row.required(2, row.string),
            appType: try row.required(3, row.string), redirectURIs: try APIKeyScope.list(stored: try row.required(4, row.string)),
            registered: try row.required(5, row.int64), modified: try row.required(6, row.int64),
            privileges: try APIKeyScope.list(stored: try row.required(7, row.string)),
            httpReferrers: try APIKeyScope.list(stored: try row.required(8, row.string)),
            apiTokenExpirations: [try row.int64(9), try row.int64(10)])
    }

    static func json(_ list: [String]) throws -> String { try APIKeyScope.json(list) }
}
