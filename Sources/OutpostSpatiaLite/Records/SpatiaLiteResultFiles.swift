import GRDB
import OutpostStorage

/// Who may download each result file, in the embedded database (`ResultFileRegistry`).
public struct SpatiaLiteResultFiles: ResultFileRegistry, StoreRepository {
    public let database: StoreDatabase

    /// Remembers who may download a result file.
    public func recordResultFile(_ name: String, owner: String, service: String?) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO outpost_result_file_owners(name, owner, service, created_at) VALUES (?, ?, ?, ?)",
                arguments: [name, owner, service, clock.milliseconds()])
        }
    }

    /// Forgets the owners of result files that were removed.
    public func forgetResultFiles(_ names: [String]) throws {
        guard !names.isEmpty else { return }
        try pool.write { db in
            for name in names { try db.execute(sql: "DELETE FROM outpost_result_file_owners WHERE name = ?", arguments: [name]) }
        }
    }

    public func resultFiles(ownedBy owner: String) throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM outpost_result_file_owners WHERE owner = ?", arguments: [owner]) }
    }

    public func resultFiles(madeFor service: String) throws -> [String] {
        try pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM outpost_result_file_owners WHERE lower(service) = lower(?)", arguments: [service])
        }
    }

    /// The owner of a result file ('' when it was made without a user, or before owners were kept).
    public func resultFileOwner(_ name: String) throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "SELECT owner FROM outpost_result_file_owners WHERE name = ?", arguments: [name]) } ?? ""
    }

    public func resultFileService(_ name: String) throws -> String? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT service FROM outpost_result_file_owners WHERE name = ?", arguments: [name])
        }
    }
}
