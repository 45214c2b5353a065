import Foundation
import GRDB
import OutpostStorage
import OutpostSync

/// The portal's OAuth 2.0 records in the embedded database (`OAuthGrantStore`). Codes,
/// refresh tokens and app secrets are kept as SHA-256 hashes: they are 32 random bytes, so a
/// slow hash would add nothing (as for access tokens). SQLite serialises writers across
/// processes, so each read-then-write below runs in one write transaction.
public struct SpatiaLiteOAuthGrants: OAuthGrantStore, StoreRepository {
    public let database: StoreDatabase

    public func registerApp(_ app: RegisteredApp, secret: String, sealedSecret: String?) throws {
        let uris = try Self.json(app.redirectURIs)
        let (privileges, referrers) = (try Self.json(app.privileges), try Self.json(app.httpReferrers))
        try pool.write { db in
            let taken = try Bool.fetchOne(
                db, sql: "SELECT count(*) > 0 FROM outpost_oauth_apps WHERE item_id = ? OR client_id = ?", arguments: [app.itemId, app.clientId])
            guard taken != true else { throw PortalFailure.invalid("Item \(app.itemId) is registered as an app already.") }
            try db.execute(
                sql: """
                    INSERT INTO outpost_oauth_apps(client_id, item_id, owner, app_type, redirect_uris, secret_hash, registered, modified,
                        privileges, http_referrers, secret_sealed, token1_expires_at, token2_expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    app.clientId, app.itemId, app.owner, app.appType, uris, Data(Credentials.tokenHash(secret)), app.registered, app.modified,
                    privileges, referrers, sealedSecret, app.apiTokenExpirations.first ?? nil, app.apiTokenExpirations.dropFirst().first ?? nil,
                ])
        }
    }

    public func app(clientId: String) throws -> RegisteredApp? {
        try pool.read { db in try Self.app(db, where: "client_id = ?", clientId) }
    }

    public func app(itemId: String) throws -> RegisteredApp? {
        try pool.read { db in try Self.app(db, where: "item_id = ?", itemId) }
    }

    public func verifyAppSecret(clientId: String, secret: String) throws -> Bool {
        let stored = try pool.read { db in
            try Data.fetchOne(db, sql: "SELECT secret_hash FROM outpost_oauth_apps WHERE client_id = ?", arguments: [clientId])
        }
        // An unknown app is compared too: no timing difference tells which client ids exist.
        return Credentials.sameBytes(Credentials.tokenHash(secret), stored.map { [UInt8]($0) } ?? []) && stored != nil
    }

    public func updateRedirectURIs(clientId: String, _ uris: [String]) throws {
        let text = try Self.json(uris)
        let now = clock.milliseconds()
        try pool.write { db in
            try db.execute(
                sql: "UPDATE outpost_oauth_apps SET redirect_uris = ?, modified = ? WHERE client_id = ?", arguments: [text, now, clientId])
            guard db.changesCount > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
        }
    }

    public func removeApp(clientId: String) throws {
        try pool.write { db in
            for table in ["outpost_oauth_apps", "outpost_oauth_codes", "outpost_oauth_refresh_tokens", "outpost_tokens"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE client_id = ?", arguments: [clientId])
            }
        }
    }

    public func saveCode(_ code: String, grant: AuthorizationGrant, expires: Int64) throws {
        let now = clock.milliseconds()
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_oauth_codes WHERE expires_at <= ?", arguments: [now])
            try db.execute(
                sql: """
                    INSERT INTO outpost_oauth_codes(code_hash, client_id, redirect_uri, user, code_challenge, minutes, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(Credentials.tokenHash(code)), grant.clientId, grant.redirectURI, grant.user, grant.codeChallenge, grant.minutes, expires,
                ])
        }
    }

    public func takeCode(_ code: String) throws -> AuthorizationGrant? {
        let now = clock.milliseconds()
        // One statement deletes and reads: whoever deletes the row has the code, once.
        let row = try pool.write { db in
            try Row.fetchOne(
                db,
                sql: """
                    DELETE FROM outpost_oauth_codes WHERE code_hash = ?
                    RETURNING client_id, redirect_uri, user, code_challenge, minutes, expires_at
                    """, arguments: [Data(Credentials.tokenHash(code))])
        }
        guard let row, (row[5] as Int64) > now else { return nil }
        return AuthorizationGrant(clientId: row[0], redirectURI: row[1], user: row[2], codeChallenge: row[3], minutes: row[4])
    }

    /// 32 random bytes, inserted if absent then read: processes asking at once keep the one
    /// that was written first.
    public func sealingKey() throws -> [UInt8] {
        if let key = try pool.read({ db in try Data.fetchOne(db, sql: "SELECT key FROM outpost_oauth_sealing_key WHERE one = 1") }) {
            return [UInt8](key)
        }
        let made = Data(Credentials.randomBytes(32))
        let key = try pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO outpost_oauth_sealing_key(one, key) VALUES (1, ?)", arguments: [made])
            return try Data.fetchOne(db, sql: "SELECT key FROM outpost_oauth_sealing_key WHERE one = 1")
        }
        guard let key, key.count == 32 else { throw StoreError.database("the sealing key could not be kept") }
        return [UInt8](key)
    }

    static func app(_ db: Database, where condition: String, _ value: String) throws -> RegisteredApp? {
        try Row.fetchOne(db, sql: "\(appColumns) WHERE \(condition)", arguments: [value]).map(app)
    }

    static let appColumns = """
        SELECT client_id, item_id, owner, app_type, redirect_uris, registered, modified, privileges, http_referrers, token1_expires_at,
            token2_expires_at
        FROM outpost_oauth_apps
        """

    /// An app as `appColumns` reads it.
    static func app(_ row: Row) throws -> RegisteredApp {
        RegisteredApp(
            clientId: row[0], itemId: row[1], owner: row[2], appType: row[3], redirectURIs: try APIKeyScope.list(stored: row[4]),
            registered: row[5], modified: row[6], privileges: try APIKeyScope.list(stored: row[7]),
            httpReferrers: try APIKeyScope.list(stored: row[8]), apiTokenExpirations: [row[9], row[10]])
    }

    static func json(_ list: [String]) throws -> String { try APIKeyScope.json(list) }
}
