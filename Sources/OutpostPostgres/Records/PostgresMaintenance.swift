import Foundation
import OutpostStorage
import OutpostSync

/// Health, counts, the orphan-file sweep and compaction on PostgreSQL (`StoreMaintenance`).
public struct PostgresMaintenance: StoreMaintenance {
    let pool: PostgresPool
    let held: PostgresCatalog
    let replicas: PostgresReplicaRegistry
    /// The data folder (items, tiles, `tmp/`).
    let directory: String
    /// Attachments, uploads and result files.
    let blobs: BlobFiles
    let clock: any WallClock

    /// How long a tick taken for a replica not registered yet is kept from compaction: its
    /// export may still be running in another process (a million points take seconds).
    static let exportGraceSeconds = 3_600

    public func health() -> StoreHealth {
        do {
            _ = try pool.query("SELECT 1 FROM outpost_ticks LIMIT 1")
            return .healthy
        } catch {
            return .unavailable(String(describing: error))
        }
    }

    public func counts() throws -> StoreCounts {
        let row = try pool.query(
            "SELECT (SELECT count(*) FROM outpost_replicas), (SELECT count(*) FROM outpost_conflicts), pg_database_size(current_database())"
        ).first
        return StoreCounts(replicas: try row?.int(0) ?? 0, conflicts: try row?.int(1) ?? 0, databaseBytes: try row?.int(2) ?? 0)
    }

    public func isSet(_ flag: StoreFlag) throws -> Bool {
        try pool.query("SELECT count(*) FROM outpost_store_flags WHERE name = \(flag.rawValue)").first?.int64(0) != 0
    }

    public func set(_ flag: StoreFlag) throws {
        try pool.query("INSERT INTO outpost_store_flags(name, set_at) VALUES (\(flag.rawValue), \(clock.milliseconds())) ON CONFLICT DO NOTHING")
    }

    public func setting(_ setting: StoreSetting) throws -> String? {
        try pool.query("SELECT value FROM outpost_settings WHERE name = \(setting.rawValue)").first?.string(0)
    }

    public func setSetting(_ setting: StoreSetting, to value: String?) throws {
        guard let value else {
            _ = try pool.query("DELETE FROM outpost_settings WHERE name = \(setting.rawValue)")
            return
        }
        try pool.query(
            """
            INSERT INTO outpost_settings(name, value, set_at) VALUES (\(setting.rawValue), \(value), \(clock.milliseconds()))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at
            """)
    }

    /// Each table's total size (`pg_total_relation_size`: its indexes and TOAST with it),
    /// read from the catalog and the files' sizes, never by scanning rows.
    public func tableBytes(_ tables: [String]) throws -> [String: Int64] {
        let byLower = Dictionary(tables.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var bytes: [String: Int64] = [:]
        for row in try pool.query(
            """
            SELECT lower(relname), pg_total_relation_size(oid) FROM pg_class
            WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' AND lower(relname) = ANY(\(PostgresTextArray(Array(byLower.keys))))
            """
        ).rows {
            if let name = try row.string(0).flatMap({ byLower[$0] }) { bytes[name] = try row.int64(1) ?? 0 }
        }
        return bytes
    }

    /// Purges the tombstones every replica that may still sync has seen (per service: those
    /// the oldest tick its registered replicas hold saw, and no newer than a tick taken for a
    /// replica still being created), the ticks no one can hold any more, and the receipts of
    /// unregistered replicas. The conflict log is kept. As on SpatiaLite, a copy of a replica
    /// unregistered before the purge can no longer be registered.
    @discardableResult
    public func compact() throws -> CompactReport {
        var report = CompactReport()
        let all = try replicas.allReplicas()
        var oldestKept: Int64?
        for service in try held.load().services {
            let name = service.definition.name
            report.tombstones += try pool.transaction { connection in
                let current = try GenerationTicks.take(on: connection).tick
                let creating = try connection.query(
                    """
                    SELECT min(tick) FROM outpost_ticks
                    WHERE replica_id IS NOT NULL AND replica_id NOT IN (SELECT replica_id FROM outpost_replicas)
                        AND replica_id NOT IN (SELECT replica_id FROM outpost_unregistered_replicas)
                        AND taken_at > now() - make_interval(secs => \(Self.exportGraceSeconds))
                    """
                ).first?.int64(0)
                let registered = all.filter { $0.serviceName == name }
                let oldest = min(ReplicaHousekeeping.oldestGenerationNeeded(by: registered, current: current), creating ?? current)
                oldestKept = min(oldestKept ?? oldest, oldest)
                guard oldest > 0, let seen = try GenerationTicks.snapshot(of: oldest, on: connection) else { return 0 }
                // Seen by the oldest tick: committed before its snapshot (not after xmin's horizon, not in progress).
                return try connection.query(
                    """
                    DELETE FROM outpost_tombstones WHERE service = \(name)
                        AND NOT (outpost_xid >= \(seen.xmin) AND (outpost_xid >= \(seen.xmax) OR outpost_xid = ANY(\(PostgresInt64Array(seen.inProgress)))))
                    """
                ).affectedRows
            }
        }
        if let oldestKept, oldestKept > 0 { try pool.query("DELETE FROM outpost_ticks WHERE tick < \(oldestKept)") }
        report.receipts = try pool.query(
            "DELETE FROM outpost_sync_receipts WHERE replica_id NOT IN (SELECT replica_id FROM outpost_replicas)"
        ).affectedRows
        return report
    }

    /// Files older than this are swept when nothing names them. Other processes keep serving
    /// while one starts, and each puts a file in place before the row naming it commits: a
    /// young unnamed file may be an edit in flight, an hour-old one is not.
    static let orphanAgeSeconds: TimeInterval = 3_600

    /// Removes attachment objects no attachment row names, spooled files and item folders no
    /// item names, each only when older than `orphanAgeSeconds` (unlike SpatiaLite's sweep,
    /// which runs while no edit can be in flight, this one runs beside other processes).
    @discardableResult
    public func removeOrphanFiles() throws -> OrphanFileSweep {
        let now = Date(timeIntervalSince1970: TimeInterval(clock.milliseconds()) / 1000)
        func old(_ path: String) -> Bool {
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return false }
            return now.timeIntervalSince(modified) > Self.orphanAgeSeconds
        }
        func sweep(_ folder: String, keeping kept: Set<String>) -> Int {
            let folder = (directory as NSString).appendingPathComponent(folder)
            var removed = 0
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !kept.contains(name) {
                let path = (folder as NSString).appendingPathComponent(name)
                if old(path), (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
            }
            return removed
        }
        var keys = Set<String>()
        for service in try held.load().services {
            for layer in service.layers where layer.definition.hasAttachments {
                for row in try pool.query("SELECT \"BLOB_KEY\" FROM \(identifier: layer.attachmentTable)").rows {
                    if let key = row.string(0) { keys.insert(key) }
                }
            }
        }
        let items = Set(try pool.query("SELECT id FROM outpost_items").rows.compactMap { $0.string(0) })
        var attachments = 0
        for object in try blobs.store.list(prefix: "attachments/") where !keys.contains(object.key) {
            let modified = Date(timeIntervalSince1970: TimeInterval(object.modified) / 1000)
            guard now.timeIntervalSince(modified) > Self.orphanAgeSeconds else { continue }
            try blobs.delete(object.key)
            attachments += 1
        }
        return OrphanFileSweep(
            attachmentFiles: attachments, temporaryFiles: sweep("tmp", keeping: []),
            itemFolders: sweep("items", keeping: items))
    }
}
