import Foundation
import GRDB
import OutpostStorage
import OutpostSync

/// Health, counts and clean-ups of the embedded backend (`StoreMaintenance`).
public struct SpatiaLiteMaintenance: StoreMaintenance, StoreRepository {
    public let database: StoreDatabase

    public func health() -> StoreHealth {
        do {
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_generations") }
            return .healthy
        } catch {
            return .unavailable(String(describing: error))
        }
    }

    public func isSet(_ flag: StoreFlag) throws -> Bool {
        try pool.read { db in try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_store_flags WHERE name = ?", arguments: [flag.rawValue]) }
            == true
    }

    public func set(_ flag: StoreFlag) throws {
        let now = clock.milliseconds()
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO outpost_store_flags(name, set_at) VALUES (?, ?) ON CONFLICT DO NOTHING", arguments: [flag.rawValue, now])
        }
    }

    public func setting(_ setting: StoreSetting) throws -> String? {
        try pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM outpost_settings WHERE name = ?", arguments: [setting.rawValue]) }
    }

    public func setSetting(_ setting: StoreSetting, to value: String?) throws {
        let now = clock.milliseconds()
        try pool.write { db in
            guard let value else { return try db.execute(sql: "DELETE FROM outpost_settings WHERE name = ?", arguments: [setting.rawValue]) }
            try db.execute(
                sql: """
                    INSERT INTO outpost_settings(name, value, set_at) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at
                    """, arguments: [setting.rawValue, value, now])
        }
    }

    /// Each table's pages with its indexes and its geometry's R*Tree (`idx_<table>_shape_…`),
    /// from SQLite's `dbstat` in aggregate mode: one row per b-tree, though it reads every page
    /// of the file to count them (docs/operations.md, "Storage").
    public func tableBytes(_ tables: [String]) throws -> [String: Int64] {
        let byLower = Dictionary(tables.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        return try pool.read { db in
            var bytes: [String: Int64] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT lower(m.tbl_name), lower(m.name), d.pgsize FROM dbstat AS d JOIN sqlite_master AS m ON m.name = d.name WHERE d.aggregate = 1"
            )
            while let row = try rows.next() {
                let (owner, name, size): (String, String, Int64) = (row[0], row[1], row[2])
                let table = byLower[owner] ?? Self.rtreeOwner(name).flatMap { byLower[$0] }
                if let table { bytes[table, default: 0] += size }
            }
            return bytes
        }
    }

    /// The table an R*Tree shadow table (`idx_<table>_shape_node`, `_parent`, `_rowid`) indexes.
    static func rtreeOwner(_ name: String) -> String? {
        guard name.hasPrefix("idx_") else { return nil }
        for suffix in ["_shape_node", "_shape_parent", "_shape_rowid"] where name.hasSuffix(suffix) {
            return String(name.dropFirst(4).dropLast(suffix.count))
        }
        return nil
    }

    public func counts() throws -> StoreCounts {
        var counts = try pool.read { db in
            StoreCounts(
                replicas: try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_replicas") ?? 0,
                conflicts: try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_conflicts") ?? 0)
        }
        for suffix in ["", "-wal", "-shm"] {
            counts.databaseBytes += ((try? FileManager.default.attributesOfItem(atPath: database.path + suffix))?[.size] as? Int) ?? 0
        }
        return counts
    }

    /// Removes attachment files no committed row refers to and everything under `tmp/`.
    ///
    /// Contract: call it before serving (at start-up), while no edit is in flight; an edit
    /// writes its attachment files before its transaction commits, and a sweep between the
    /// two would take them.
    @discardableResult
    public func removeOrphanFiles() throws -> OrphanFileSweep {
        var sweep = OrphanFileSweep()
        let manager = FileManager.default
        let referenced: Set<String> = try pool.read { db in
            var paths = Set<String>()
            for service in catalog().services {
                for layer in service.layers where layer.definition.hasAttachments {
                    for path in try String.fetchAll(
                        db, sql: "SELECT DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE DATA_PATH IS NOT NULL")
                    {
                        paths.insert(path)
                    }
                }
            }
            return paths
        }
        for name in (try? manager.contentsOfDirectory(atPath: database.attachmentsDirectory)) ?? [] where !referenced.contains("attachments/\(name)")
        {
            try manager.removeItem(atPath: (database.attachmentsDirectory as NSString).appendingPathComponent(name))
            sweep.attachmentFiles += 1
        }
        for name in (try? manager.contentsOfDirectory(atPath: database.temporaryDirectory)) ?? [] {
            try manager.removeItem(atPath: (database.temporaryDirectory as NSString).appendingPathComponent(name))
            sweep.temporaryFiles += 1
        }
        let items = Set(try pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM outpost_items") })
        sweep.itemFolders = try SpatiaLitePortal(database: database).files.removeFolders(notIn: items)
        return sweep
    }

    /// Purges change tracking no registered replica still needs (per service, below the
    /// oldest generation its replicas sync from) and receipts of unregistered replicas; the
    /// conflict log is kept. Contract: a copy of a replica unregistered before the purge can
    /// no longer be registered (`registerExistingData`) to sync deletes it never received —
    /// create a new replica instead, as ArcGIS asks after its own clean-ups.
    @discardableResult
    public func compact() throws -> CompactReport {
        var report = CompactReport()
        for service in catalog().services {
            let name = service.definition.name
            let registered = try replicas.replicas(service: name)
            try pool.write { db in
                let oldest = ReplicaHousekeeping.oldestGenerationNeeded(by: registered, current: try SpatiaLiteEdits.newestGeneration(db))
                try db.execute(sql: "DELETE FROM outpost_tombstones WHERE service = ? AND generation <= ?", arguments: [name, oldest])
                report.tombstones += db.changesCount
            }
        }
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_sync_receipts WHERE replica_id NOT IN (SELECT replica_id FROM outpost_replicas)")
            report.receipts = db.changesCount
        }
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return report
    }
}
