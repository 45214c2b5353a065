import OutpostStorage
import OutpostSync

/// Health, counts and compaction on PostgreSQL (`StoreMaintenance`'s rules; the file sweep
/// comes with the blob store, which holds this backend's files).
public struct PostgresMaintenance: Sendable {
    let pool: PostgresPool
    let held: PostgresCatalog
    let replicas: PostgresReplicaRegistry

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
        let row = try pool.query("SELECT (SELECT count(*) FROM outpost_replicas), (SELECT count(*) FROM outpost_conflicts)").first
        return StoreCounts(replicas: try row?.int(0) ?? 0, conflicts: try row?.int(1) ?? 0)
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
}
