import OutpostStorage
import OutpostSync

/// The PostgreSQL + PostGIS backend, as far as it is built (docs/postgres.md): every seam a
/// replica's life needs (`SyncBackend`: the catalog, feature queries and edits, the replica
/// registry, sync and the conflict log). It becomes an `OutpostBackend` when attachments,
/// versions, users, uploads, jobs, result files, maintenance, the portal and tile sets are
/// here too; until then the server cannot be started on it.
public final class PostgresBackend: SyncBackend {
    public let pool: PostgresPool
    public let schema: PostgresSchema
    public let edits: PostgresEdits
    public let features: PostgresFeatures
    public let replicas: PostgresReplicaRegistry
    public let sync: PostgresSync
    public let conflicts: PostgresConflictLog
    public let clock: any WallClock

    /// Connects to `location` (a pool of `maximumConnections`) and migrates the database.
    public init(_ location: PostgresLocation, maximumConnections: Int = 10, clock: any WallClock = SystemClock()) throws {
        pool = PostgresPool(location, maximumConnections: maximumConnections)
        try PostgresMigrations.migrate(pool)
        let held = PostgresCatalog(pool: pool)
        schema = PostgresSchema(pool: pool, held: held, clock: clock)
        edits = PostgresEdits(pool: pool, held: held, clock: clock)
        features = PostgresFeatures(pool: pool, held: held)
        replicas = PostgresReplicaRegistry(pool: pool, held: held, clock: clock)
        sync = PostgresSync(pool: pool, held: held, clock: clock)
        conflicts = PostgresConflictLog(pool: pool, held: held)
        self.clock = clock
    }

}
