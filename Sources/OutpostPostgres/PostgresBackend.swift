import OutpostStorage
import OutpostSync

/// The PostgreSQL + PostGIS backend, as far as it is built (docs/postgres.md, "Status"):
/// the catalog, feature edits and queries. It becomes an `OutpostBackend` when every repository is
/// here; until then the server cannot be started on it.
public final class PostgresBackend: Sendable {
    public let pool: PostgresPool
    public let schema: PostgresSchema
    public let edits: PostgresEdits
    public let features: PostgresFeatures
    public let clock: any WallClock

    /// Connects to `location` (a pool of `maximumConnections`) and migrates the database.
    public init(_ location: PostgresLocation, maximumConnections: Int = 10, clock: any WallClock = SystemClock()) throws {
        pool = PostgresPool(location, maximumConnections: maximumConnections)
        try PostgresMigrations.migrate(pool)
        let held = PostgresCatalog(pool: pool)
        schema = PostgresSchema(pool: pool, held: held, clock: clock)
        edits = PostgresEdits(pool: pool, held: held, clock: clock)
        features = PostgresFeatures(pool: pool, held: held)
        self.clock = clock
    }

    public var catalog: Catalog { schema.catalog }
}
