import Foundation
import GRDB
import OutpostStorage

extension SpatiaLiteUserDirectory {
    public func created(user name: String) throws -> Int64? {
        try pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT created_at FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name])
        }
    }

    public func expiry(of token: String) throws -> Int64? {
        let now = clock.milliseconds()
        return try pool.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT t.expires_at FROM outpost_tokens t JOIN outpost_users u ON lower(u.name) = lower(t.user)
                    WHERE t.token_hash = ? AND t.expires_at > ?
                    """, arguments: [Data(Credentials.tokenHash(token)), now])
        }
    }
}
