import OutpostStorage
import OutpostSync

/// The PostgreSQL + PostGIS backend, as far as it is built (docs/postgres.md): every seam a
/// replica's life needs (`SyncBackend`: the catalog, feature queries and edits, the replica
/// registry, sync and the conflict log) and the server's records (`ServerRecords`: users, job
/// records, result file owners). It becomes an `OutpostBackend` when attachments, versions,
/// uploads, maintenance, the portal and tile sets are here too; until then the server cannot
/// be started on it.
public final class PostgresBackend: SyncBackend, ServerRecords {
    public let pool: PostgresPool
    public let schema: PostgresSchema
    public let edits: PostgresEdits
    public let features: PostgresFeatures
    public let replicas: PostgresReplicaRegistry
    public let sync: PostgresSync
    public let conflicts: PostgresConflictLog
    public let users: PostgresUserDirectory
    public let jobs: PostgresJobStore
    public let resultFiles: PostgresResultFiles
    public let maintenance: PostgresMaintenance
    /// This process's presence, which its unfinished jobs are tied to.
    public let presence: PostgresPresence
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
        users = PostgresUserDirectory(pool: pool, clock: clock)
        presence = PostgresPresence(location)
        jobs = PostgresJobStore(pool: pool, presence: presence)
        resultFiles = PostgresResultFiles(pool: pool, clock: clock)
        maintenance = PostgresMaintenance(pool: pool, held: held, replicas: replicas)
        self.clock = clock
    }

    /// Closes the connections and lets go of this process's presence, as a process that stops.
    public func close() {
        presence.release()
        pool.close()
    }

}
