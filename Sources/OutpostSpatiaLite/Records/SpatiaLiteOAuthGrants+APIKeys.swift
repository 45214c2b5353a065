import Foundation
import GRDB
import OutpostStorage

/// An app's API keys (docs/identity.md, "API keys"): what they reach, kept on the app, and
/// their tokens, user directory tokens of the app's client with a slot (one live per slot, by
/// a unique index), so `SpatiaLiteUserDirectory.check(token:)` reads key and app together.
extension SpatiaLiteOAuthGrants {
    public func sealedSecret(clientId: String) throws -> String? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT secret_sealed FROM outpost_oauth_apps WHERE client_id = ?", arguments: [clientId])
        }
    }

    public func updateApp(clientId: String, privileges: [String]?, httpReferrers: [String]?, redirectURIs: [String]?) throws {
        let privileges = try privileges.map(Self.json)
        let referrers = try httpReferrers.map(Self.json)
        let uris = try redirectURIs.map(Self.json)
        let now = clock.milliseconds()
        try pool.write { db in
            try db.execute(
                sql: """
                    UPDATE outpost_oauth_apps SET privileges = coalesce(?, privileges), http_referrers = coalesce(?, http_referrers),
                        redirect_uris = coalesce(?, redirect_uris), modified = ?
                    WHERE client_id = ?
                    """, arguments: [privileges, referrers, uris, now, clientId])
            guard db.changesCount > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
        }
    }

    public func setAPITokenExpiration(clientId: String, slot: Int, expires: Int64?) throws {
        let column = try Self.expirationColumn(slot: slot)
        try pool.write { db in
            try db.execute(sql: "UPDATE outpost_oauth_apps SET \(column) = ? WHERE client_id = ?", arguments: [expires, clientId])
            guard db.changesCount > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
        }
    }

    public func apps(owner: String?) throws -> [RegisteredApp] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "\(Self.appColumns) WHERE ? IS NULL OR lower(owner) = lower(?) ORDER BY registered, client_id",
                arguments: [owner, owner]
            ).map(Self.app)
        }
    }

    public func issueAPIKeyToken(_ token: String, clientId: String, slot: Int, user: String, expires: Int64, sealed: String?) throws {
        guard (0...2).contains(slot) else { throw PortalFailure.invalid("An API key slot is 0, 1 or 2, not \(slot).") }
        let now = clock.milliseconds()
        try pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_oauth_apps WHERE client_id = ?", arguments: [clientId]) == true
            else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
            try db.execute(
                sql: "DELETE FROM outpost_tokens WHERE (client_id = ? AND api_slot = ?) OR expires_at <= ?", arguments: [clientId, slot, now])
            // No role of its own: the owner's role now, capped by the key's privileges at each check.
            try db.execute(
                sql: """
                    INSERT INTO outpost_tokens(token_hash, user, expires_at, created_at, client_id, api_slot, api_key_sealed)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [Data(Credentials.tokenHash(token)), user, expires, now, clientId, slot, slot == 0 ? sealed : nil])
        }
    }

    /// Only while the app exists; at most a viewer's role, whatever the app's privileges.
    public func issueAppToken(clientId: String, user: String, minutes: Int) throws -> (token: String, expires: Int64) {
        let token = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_tokens WHERE expires_at <= ?", arguments: [now])
            try db.execute(
                sql: """
                    INSERT INTO outpost_tokens(token_hash, user, expires_at, created_at, client_id, role, api_slot)
                    SELECT ?, ?, ?, ?, client_id, ?, ? FROM outpost_oauth_apps WHERE client_id = ?
                    """,
                arguments: [Data(Credentials.tokenHash(token)), user, expires, now, UserRole.viewer.rawValue, APIKeySlot.appToken, clientId])
            guard db.changesCount > 0 else { throw PortalFailure.invalid("No app has the client id \(clientId).") }
        }
        return (token, expires)
    }

    @discardableResult public func revokeAPIKeyTokens(clientId: String, slot: Int?) throws -> Bool {
        let now = clock.milliseconds()
        return try pool.write { db in
            try Int64.fetchAll(
                db,
                sql: """
                    DELETE FROM outpost_tokens WHERE client_id = ? AND api_slot IS NOT NULL AND (? IS NULL OR api_slot = ?) RETURNING expires_at
                    """, arguments: [clientId, slot, slot]
            ).contains { $0 > now }
        }
    }

    public func apiKeySlots(clientId: String) throws -> [APIKeySlot] {
        let now = clock.milliseconds()
        return try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT api_slot, expires_at FROM outpost_tokens WHERE client_id = ? AND api_slot IN (0, 1, 2) AND expires_at > ? ORDER BY api_slot
                    """, arguments: [clientId, now]
            ).map { APIKeySlot(slot: $0[0], expires: $0[1]) }
        }
    }

    public func sealedAPIKey(clientId: String) throws -> String? {
        let now = clock.milliseconds()
        return try pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT api_key_sealed FROM outpost_tokens WHERE client_id = ? AND api_slot = 0 AND expires_at > ?",
                arguments: [clientId, now])
        }
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
