import GRDB

/// What operations ask of the store: whether it answers, and the registry's size. The server
/// asks these instead of reading tables.
extension FeatureStore {
    /// Whether the database answers a read (readiness, ArcGIS's `healthCheck`).
    public func isHealthy() -> Bool {
        (try? pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_generations") }) != nil
    }

    /// Replicas registered, and conflicts ever recorded (the conflict log is kept for good).
    public func registryCounts() throws -> (replicas: Int, conflicts: Int) {
        try pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_replicas") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_conflicts") ?? 0)
        }
    }
}
