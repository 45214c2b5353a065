/// One step of the PostgreSQL schema. Steps are forward-only, like the SpatiaLite ones: a
/// released step is never edited, a later one changes what it made.
public struct PostgresMigration: Sendable {
    public var version: Int
    public var name: String
    public var statements: [String]
}

/// Why a database cannot be used as it is.
public enum PostgresMigrationError: Error, Equatable, CustomStringConvertible {
    /// Migrated by a newer Outpost: this build does not know its schema.
    case newerDatabase(database: Int, known: Int)

    public var description: String {
        switch self {
        case .newerDatabase(let database, let known):
            "the database was migrated by a newer Outpost (schema \(database)); this build knows up to \(known): upgrade Outpost"
        }
    }
}

/// The PostgreSQL schema (docs/postgres.md), step by step.
public enum PostgresMigrations {
    public static let all: [PostgresMigration] = [
        PostgresMigration(
            version: 1, name: "PostGIS and generation ticks",
            statements: [
                "CREATE EXTENSION IF NOT EXISTS postgis",
                // A generation is a tick: the snapshot of the download or export that made it
                // (docs/postgres.md, "Generations").
                """
                CREATE TABLE outpost_ticks (
                    tick bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    snapshot pg_snapshot NOT NULL,
                    replica_id text,
                    taken_at timestamptz NOT NULL DEFAULT now())
                """,
            ]),
        PostgresMigration(
            version: 2, name: "jobs with leases",
            statements: [
                // Claimed with FOR UPDATE SKIP LOCKED, held for a lease a working process renews
                // (docs/postgres.md, "Jobs").
                """
                CREATE TABLE outpost_jobs (
                    job_id text PRIMARY KEY,
                    kind text NOT NULL,
                    status text NOT NULL CHECK (status IN ('Pending', 'InProgress', 'Completed', 'Failed')),
                    payload text NOT NULL DEFAULT '',
                    result text,
                    error text,
                    claimed_by text,
                    lease_until timestamptz,
                    attempts integer NOT NULL DEFAULT 0,
                    submitted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    updated_at timestamptz NOT NULL DEFAULT clock_timestamp())
                """,
                "CREATE INDEX outpost_jobs_pending ON outpost_jobs (submitted_at, job_id) WHERE status = 'Pending'",
                "CREATE INDEX outpost_jobs_leases ON outpost_jobs (lease_until) WHERE status = 'InProgress'",
            ]),
    ]

    /// A lock every migrating process takes first (transaction-scoped, so a pooled
    /// connection never keeps it): processes starting together migrate once, one after the other.
    static let lockKey: Int64 = 0x6F75_7470_6F73_7401

    /// Brings the database up to this build's schema in one transaction (PostgreSQL's DDL is
    /// transactional: a failed step leaves the database as it was). Returns the versions applied.
    @discardableResult
    public static func migrate(_ pool: PostgresPool) throws -> [Int] {
        try pool.transaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock(\(lockKey))")
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS outpost_schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let done = Set(try connection.query("SELECT version FROM outpost_schema_migrations").rows.map { try $0.required(0, $0.int) })
            let known = all.last?.version ?? 0
            if let newest = done.max(), newest > known { throw PostgresMigrationError.newerDatabase(database: newest, known: known) }
            var applied: [Int] = []
            for migration in all where !done.contains(migration.version) {
                for statement in migration.statements { try connection.execute(statement) }
                try connection.query("INSERT INTO outpost_schema_migrations(version, name) VALUES (\(migration.version), \(migration.name))")
                applied.append(migration.version)
            }
            return applied
        }
    }
}
