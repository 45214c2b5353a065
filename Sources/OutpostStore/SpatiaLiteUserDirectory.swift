import Crypto
import CryptoExtras
import Foundation
import GRDB
import OutpostStorage
import OutpostSync

/// Users and tokens in the embedded database (`UserDirectory`).
public struct SpatiaLiteUserDirectory: UserDirectory, StoreRepository {
    public let database: StoreDatabase

    static func passwordHash(_ password: String, salt: Data, rounds: Int) throws -> Data {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(password.utf8), salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Data($0) }
    }

    public func addUser(_ name: String, role: UserRole, password: String, rounds: Int) throws {
        guard (1...64).contains(name.count), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) else {
            throw UserFailure.invalidName(name)
        }
        guard password.count >= 8 else { throw UserFailure.weakPassword }
        var salt = Data(count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255, using: &generator) }
        let hash = try Self.passwordHash(password, salt: salt, rounds: rounds)
        try pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name]) == true {
                throw UserFailure.exists(name)
            }
            try db.execute(
                sql: "INSERT INTO outpost_users(name, role, salt, hash, rounds, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [name, role.rawValue, salt, hash, rounds, clock.milliseconds()])
        }
    }

    public func removeUser(_ name: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name])
            guard db.changesCount > 0 else { throw UserFailure.notFound(name) }
            try db.execute(sql: "DELETE FROM outpost_tokens WHERE lower(user) = lower(?)", arguments: [name])
        }
    }

    public func users() throws -> [ServerUser] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, role FROM outpost_users ORDER BY name").map {
                ServerUser(name: $0[0], role: UserRole(rawValue: $0[1]) ?? .viewer)
            }
        }
    }

    public var hasUsers: Bool {
        get throws { try pool.read { db in try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_users") ?? false } }
    }

    /// The user, when the password is theirs (compared in constant time).
    public func verify(user name: String, password: String) throws -> ServerUser? {
        guard
            let row = try pool.read({ db in
                try Row.fetchOne(db, sql: "SELECT name, role, salt, hash, rounds FROM outpost_users WHERE lower(name) = lower(?)", arguments: [name])
            })
        else {
            // The same work for an unknown user: no timing difference to probe names with.
            _ = try Self.passwordHash(password, salt: Data(count: 16), rounds: passwordRounds)
            return nil
        }
        let stored: Data = row[3]
        let computed = try Self.passwordHash(password, salt: row[2], rounds: row[4])
        var difference: UInt8 = stored.count == computed.count ? 0 : 1
        for (a, b) in zip(stored, computed) { difference |= a ^ b }
        return difference == 0 ? ServerUser(name: row[0], role: UserRole(rawValue: row[1]) ?? .viewer) : nil
    }

    /// A new token for `user`, valid for `minutes`.
    public func issueToken(for user: ServerUser, minutes: Int) throws -> (token: String, expires: Int64) {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        let token = bytes.map { String(format: "%02x", $0) }.joined()
        let now = clock.milliseconds()
        let expires = now + Int64(minutes) * 60_000
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_tokens WHERE expires_at <= ?", arguments: [now])
            // Stored hashed: a copy of the database hands out no live token.
            try db.execute(
                sql: "INSERT INTO outpost_tokens(token_hash, user, expires_at, created_at) VALUES (?, ?, ?, ?)",
                arguments: [Self.tokenHash(token), user.name, expires, now])
        }
        return (token, expires)
    }

    public func check(token: String) throws -> TokenCheck {
        let now = clock.milliseconds()
        return try pool.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT t.expires_at, u.name, u.role FROM outpost_tokens t JOIN outpost_users u ON lower(u.name) = lower(t.user)
                        WHERE t.token_hash = ?
                        """, arguments: [Self.tokenHash(token)])
            else { return .unknown }
            if (row[0] as Int64) <= now { return .expired }
            return .valid(ServerUser(name: row[1], role: UserRole(rawValue: row[2]) ?? .viewer))
        }
    }

    static func tokenHash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }
}
