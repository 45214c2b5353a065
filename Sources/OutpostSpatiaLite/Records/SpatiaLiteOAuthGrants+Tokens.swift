import Foundation
import GRDB
import OutpostStorage

/// Refresh tokens (used as they are, or exchanged for a successor of the same family) and the access tokens of a client, which live in the
/// user directory's `outpost_tokens` with the client and the most the token may carry.
extension SpatiaLiteOAuthGrants {
    public func issueRefreshToken(_ grant: RefreshGrant, minutes: Int) throws -> (token: String, expires: Int64) {
        let token = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_oauth_refresh_tokens WHERE expires_at <= ?", arguments: [now])
            try Self.insertRefreshToken(db, token: token, family: Credentials.newFamily(), grant: grant, expires: expires, now: now)
        }
        return (token, expires)
    }

    public func useRefreshToken(_ token: String, clientId: String) throws -> RefreshOutcome {
        let now = clock.milliseconds()
        return try pool.write { db in
            switch try Self.presented(db, token: token, clientId: clientId, now: now) {
            case .refused(let outcome): outcome
            case .live(_, let grant): .valid(grant)
            }
        }
    }

    public func rotateRefreshToken(_ token: String, clientId: String, minutes: Int) throws -> RefreshOutcome {
        let successor = Credentials.newToken()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        return try pool.write { db in
            let (family, grant): (String, RefreshGrant)
            switch try Self.presented(db, token: token, clientId: clientId, now: now) {
            case .refused(let outcome): return outcome
            case .live(let liveFamily, let liveGrant): (family, grant) = (liveFamily, liveGrant)
            }
            try db.execute(
                sql: "UPDATE outpost_oauth_refresh_tokens SET spent_at = ? WHERE token_hash = ?",
                arguments: [now, Data(Credentials.tokenHash(token))])
            try db.execute(sql: "DELETE FROM outpost_oauth_refresh_tokens WHERE expires_at <= ?", arguments: [now])
            try Self.insertRefreshToken(db, token: successor, family: family, grant: grant, expires: expires, now: now)
            return .rotated(grant, token: successor, expires: expires)
        }
    }

    /// What a presented refresh token is, inside the caller's write: refused (unknown, another
    /// client's, expired; spent, which revokes its family here), or live with its family.
    private static func presented(_ db: Database, token: String, clientId: String, now: Int64) throws -> PresentedRefreshToken {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT family, client_id, user, minutes, expires_at, spent_at FROM outpost_oauth_refresh_tokens WHERE token_hash = ?",
                arguments: [Data(Credentials.tokenHash(token))]),
            (row[1] as String) == clientId
        else { return .refused(.unknown) }
        if (row[4] as Int64) <= now { return .refused(.expired) }
        let family: String = row[0]
        if (row[5] as Int64?) != nil {
            try Self.revokeFamily(db, family)
            return .refused(.reused)
        }
        return .live(family: family, RefreshGrant(clientId: clientId, user: row[2], minutes: row[3]))
    }

    @discardableResult public func revokeRefreshToken(_ token: String) throws -> Bool {
        try pool.write { db in
            guard
                let family = try String.fetchOne(
                    db, sql: "SELECT family FROM outpost_oauth_refresh_tokens WHERE token_hash = ?", arguments: [Data(Credentials.tokenHash(token))])
            else { return false }
            try Self.revokeFamily(db, family)
            return true
        }
    }

    public func sessions(user: String?) throws -> [SignInSession] {
        let now = clock.milliseconds()
        return try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT family, MIN(client_id), MIN(user), MIN(created_at), MAX(created_at),
                        MAX(CASE WHEN spent_at IS NULL THEN expires_at END) AS live_until
                    FROM outpost_oauth_refresh_tokens WHERE ? IS NULL OR lower(user) = lower(?)
                    GROUP BY family HAVING live_until > ? ORDER BY MAX(created_at) DESC, family
                    """, arguments: [user, user, now]
            ).map { SignInSession(family: $0[0], clientId: $0[1], user: $0[2], started: $0[3], renewed: $0[4], expires: $0[5]) }
        }
    }

    @discardableResult public func endSession(family: String, user: String?) throws -> Bool {
        try pool.write { db in
            let found =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM outpost_oauth_refresh_tokens WHERE family = ? AND (? IS NULL OR lower(user) = lower(?))",
                    arguments: [family, user, user]) ?? 0
            guard found > 0 else { return false }
            try Self.revokeFamily(db, family)
            return true
        }
    }

    /// A refresh token family goes with the access tokens issued from it, in the caller's write.
    private static func revokeFamily(_ db: Database, _ family: String) throws {
        try db.execute(sql: "DELETE FROM outpost_oauth_refresh_tokens WHERE family = ?", arguments: [family])
        try db.execute(sql: "DELETE FROM outpost_tokens WHERE refresh_family = ?", arguments: [family])
    }

    public func issueAccessToken(
        for user: ServerUser, clientId: String, minutes: Int, refreshToken: String?
    ) throws -> (token: String, expires: Int64) {
        try SpatiaLiteUserDirectory(database: database).issueToken(for: user, minutes: minutes, clientId: clientId, refreshToken: refreshToken)
    }

    @discardableResult public func revokeAccessToken(_ token: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_tokens WHERE token_hash = ?", arguments: [Data(Credentials.tokenHash(token))])
            return db.changesCount > 0
        }
    }

    /// With no client, every token of the user goes, `generateToken`'s too.
    public func signOut(user: String, clientId: String?) throws {
        // API keys are not sessions: signing out leaves them (`revokeAPIKeyTokens` ends them).
        try pool.write { db in
            for (table, keys) in [("outpost_tokens", " AND api_slot IS NULL"), ("outpost_oauth_refresh_tokens", "")] {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE lower(user) = lower(?) AND (? IS NULL OR client_id = ?)\(keys)",
                    arguments: [user, clientId, clientId])
            }
        }
    }

    static func insertRefreshToken(_ db: Database, token: String, family: String, grant: RefreshGrant, expires: Int64, now: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO outpost_oauth_refresh_tokens(token_hash, family, client_id, user, minutes, expires_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [Data(Credentials.tokenHash(token)), family, grant.clientId, grant.user, grant.minutes, expires, now])
    }
}
