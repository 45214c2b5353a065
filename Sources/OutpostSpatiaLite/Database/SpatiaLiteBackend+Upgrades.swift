import Foundation
import GRDB
import OutpostStorage

/// What opening a data folder would change (`outpost migrate --dry-run`, docs/operations.md,
/// "Upgrades"): its migrations are forward-only and run when the store opens.
extension SpatiaLiteBackend {
    /// Every migration this version knows, in order.
    public static var knownMigrations: [String] { migrator.migrations }

    /// The migrations opening the data folder would apply, read without changing it: all of
    /// them for a folder that holds no database yet. A folder a newer version wrote is refused.
    public static func pendingMigrations(dataDirectory: String) throws -> [String] {
        let path = (dataDirectory as NSString).appendingPathComponent(databaseFileName)
        guard FileManager.default.fileExists(atPath: path) else { return knownMigrations }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let unknown = try unknownMigrations(db)
            guard unknown.isEmpty else {
                throw StoreError.invalidSchema("\(path) was written by a newer Outpost (migrations \(unknown.joined(separator: ", ")))")
            }
            let applied = try db.tableExists("grdb_migrations") ? try migrator.appliedIdentifiers(db) : []
            return knownMigrations.filter { !applied.contains($0) }
        }
    }

    /// Applied migrations this version does not know, in the order they were applied.
    static func unknownMigrations(_ db: Database) throws -> [String] {
        guard try db.tableExists("grdb_migrations") else { return [] }
        let known = Set(knownMigrations)
        return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid").filter { !known.contains($0) }
    }
}
