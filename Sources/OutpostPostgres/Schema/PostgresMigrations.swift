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
    public static let all: [PostgresMigration] =
        core + [portal, versions, subtypes, uploadOwners, oauth, apiKeys, storeFlags, locators, networks, settings]

    static let core: [PostgresMigration] = [
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
        PostgresMigration(
            version: 3, name: "catalog and deletes",
            statements: [
                // The catalog as the SpatiaLite store keeps it; names unique without case.
                """
                CREATE TABLE outpost_services (
                    name text PRIMARY KEY,
                    description text NOT NULL DEFAULT '',
                    is_versioned boolean NOT NULL DEFAULT false,
                    capabilities text NOT NULL,
                    wkid integer NOT NULL,
                    max_record_count integer NOT NULL,
                    created_at bigint NOT NULL)
                """,
                "CREATE UNIQUE INDEX outpost_services_lower_name ON outpost_services (lower(name))",
                """
                CREATE TABLE outpost_layers (
                    service text NOT NULL REFERENCES outpost_services(name) ON DELETE CASCADE,
                    layer_id integer NOT NULL,
                    name text NOT NULL,
                    kind text NOT NULL,
                    description text NOT NULL DEFAULT '',
                    geometry_type text,
                    wkid integer NOT NULL,
                    object_id_field text NOT NULL,
                    global_id_field text NOT NULL,
                    display_field text NOT NULL,
                    has_attachments boolean NOT NULL,
                    max_record_count integer NOT NULL,
                    table_name text NOT NULL UNIQUE,
                    edit_fields_info text,
                    last_edit_date bigint NOT NULL,
                    PRIMARY KEY (service, layer_id))
                """,
                """
                CREATE TABLE outpost_fields (
                    service text NOT NULL,
                    layer_id integer NOT NULL,
                    position integer NOT NULL,
                    name text NOT NULL,
                    type text NOT NULL,
                    alias text NOT NULL,
                    length integer,
                    nullable boolean NOT NULL,
                    editable boolean NOT NULL,
                    default_value text NOT NULL,
                    domain text NOT NULL,
                    PRIMARY KEY (service, layer_id, position),
                    FOREIGN KEY (service, layer_id) REFERENCES outpost_layers ON DELETE CASCADE)
                """,
                """
                CREATE TABLE outpost_relationships (
                    service text NOT NULL,
                    layer_id integer NOT NULL,
                    relationship_id integer NOT NULL,
                    name text NOT NULL,
                    related_table_id integer NOT NULL,
                    cardinality text NOT NULL,
                    role text NOT NULL,
                    key_field text NOT NULL,
                    composite boolean NOT NULL,
                    PRIMARY KEY (service, layer_id, relationship_id),
                    FOREIGN KEY (service, layer_id) REFERENCES outpost_layers ON DELETE CASCADE)
                """,
                // Bumped by every schema change in its transaction: each process compares it
                // with the catalog it holds (docs/postgres.md, "Catalog").
                "CREATE TABLE outpost_catalog_version (one boolean PRIMARY KEY DEFAULT true CHECK (one), version bigint NOT NULL)",
                "INSERT INTO outpost_catalog_version VALUES (true, 0)",
                // Deleted features and attachments, stamped like rows (docs/postgres.md, "Generations").
                """
                CREATE TABLE outpost_tombstones (
                    service text NOT NULL,
                    layer_id integer NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('feature', 'attachment')),
                    global_id text NOT NULL,
                    object_id bigint NOT NULL,
                    parent_global_id text,
                    created_xid bigint NOT NULL,
                    created_by text,
                    outpost_xid bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
                    replica_id text,
                    PRIMARY KEY (service, layer_id, kind, global_id))
                """,
                "CREATE INDEX outpost_tombstones_changes ON outpost_tombstones (service, layer_id, outpost_xid)",
                // Every write of a layer or attachment row is stamped by the database itself,
                // whoever writes it. `outpost_created_xid` defaults to the inserting transaction
                // and an update leaves it (a re-created feature sets its tombstone's).
                """
                CREATE FUNCTION outpost_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    NEW.outpost_xid := pg_current_xact_id()::text::bigint;
                    RETURN NEW;
                END $$
                """,
            ]),
        PostgresMigration(
            version: 4, name: "replicas",
            statements: [
                """
                CREATE TABLE outpost_replicas (
                    replica_id text PRIMARY KEY,
                    service text NOT NULL REFERENCES outpost_services(name) ON DELETE CASCADE,
                    name text NOT NULL,
                    owner text NOT NULL DEFAULT '',
                    sync_model text NOT NULL CHECK (sync_model IN ('perReplica', 'perLayer')),
                    target_type text NOT NULL,
                    sync_direction text NOT NULL,
                    attachments_sync_direction text NOT NULL,
                    return_attachments boolean NOT NULL,
                    geometry text,
                    geometry_wkid integer NOT NULL,
                    spatial_reference integer NOT NULL,
                    replica_server_gen bigint NOT NULL,
                    creation_date bigint NOT NULL,
                    last_sync_date bigint,
                    sync_data_options bigint NOT NULL DEFAULT 0)
                """,
                // Unique in the database, whichever process registers (reference §4.1, invariant 4).
                "CREATE UNIQUE INDEX outpost_replicas_name ON outpost_replicas (service, lower(name))",
                """
                CREATE TABLE outpost_replica_layers (
                    replica_id text NOT NULL REFERENCES outpost_replicas(replica_id) ON DELETE CASCADE,
                    layer_id integer NOT NULL,
                    query_option text NOT NULL,
                    use_geometry boolean NOT NULL,
                    include_related boolean NOT NULL,
                    where_clause text,
                    server_gen bigint NOT NULL,
                    PRIMARY KEY (replica_id, layer_id))
                """,
                "CREATE TABLE outpost_replica_origins (replica_id text PRIMARY KEY, origin_id text NOT NULL)",
                "CREATE TABLE outpost_unregistered_replicas (replica_id text PRIMARY KEY, service text NOT NULL, unregistered_at bigint NOT NULL)",
                // Names being created by a request in any process, until registered or released
                // (an hour at most: a process that died mid-export frees its names).
                """
                CREATE TABLE outpost_replica_name_reservations (
                    service text NOT NULL,
                    name text NOT NULL,
                    expires_at timestamptz NOT NULL)
                """,
                "CREATE UNIQUE INDEX outpost_replica_name_reservations_name ON outpost_replica_name_reservations (service, lower(name))",
            ]),
        PostgresMigration(
            version: 5, name: "sync uploads",
            statements: [
                // The last upload applied per replica, checked and written under the replica's
                // row lock (docs/postgres.md, "Sync").
                """
                CREATE TABLE outpost_sync_receipts (
                    replica_id text PRIMARY KEY,
                    fingerprint bytea NOT NULL,
                    generation bigint NOT NULL,
                    results text NOT NULL,
                    recorded_at bigint NOT NULL)
                """,
                """
                CREATE TABLE outpost_conflicts (
                    conflict_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    service text NOT NULL,
                    replica_id text NOT NULL,
                    layer_id integer NOT NULL,
                    global_id text NOT NULL,
                    object_id bigint,
                    upload_operation text NOT NULL CHECK (upload_operation IN ('add', 'update', 'delete')),
                    overwritten_change text NOT NULL CHECK (overwritten_change IN ('update', 'delete')),
                    overwritten_xid bigint NOT NULL,
                    overwritten_by text,
                    feature text,
                    outpost_xid bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
                    recorded_at bigint NOT NULL,
                    fields text)
                """,
                "CREATE INDEX outpost_conflicts_replica ON outpost_conflicts (replica_id, conflict_id)",
            ]),
        PostgresMigration(
            version: 6, name: "edit dates without a shared row",
            statements: [
                // Each connection marks its own row: writers never wait on one another for a
                // layer's last edit date (one shared row serialised every writer through its
                // commit). A layer's date is the greatest of its rows and outpost_layers'.
                """
                CREATE TABLE outpost_layer_edits (
                    service text NOT NULL,
                    layer_id integer NOT NULL,
                    writer integer NOT NULL,
                    last_edit_date bigint NOT NULL,
                    PRIMARY KEY (service, layer_id, writer),
                    FOREIGN KEY (service, layer_id) REFERENCES outpost_layers ON DELETE CASCADE)
                """
            ]),
        PostgresMigration(
            version: 7, name: "users, job records and result file owners",
            statements: [
                """
                CREATE TABLE outpost_users (
                    name text PRIMARY KEY,
                    role text NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
                    salt bytea NOT NULL,
                    hash bytea NOT NULL,
                    rounds integer NOT NULL,
                    created_at bigint NOT NULL)
                """,
                "CREATE UNIQUE INDEX outpost_users_lower_name ON outpost_users (lower(name))",
                // Tokens only hashed: a copy of the database hands out no live token.
                """
                CREATE TABLE outpost_tokens (
                    token_hash bytea PRIMARY KEY,
                    user_name text NOT NULL,
                    expires_at bigint NOT NULL,
                    created_at bigint NOT NULL)
                """,
                "CREATE INDEX outpost_tokens_user ON outpost_tokens (lower(user_name))",
                // A job's record (JobRecord.stored) and the process running it, alive while its
                // presence lock is held (PostgresPresence).
                """
                CREATE TABLE outpost_job_records (
                    job_id text PRIMARY KEY,
                    service text NOT NULL,
                    finished boolean NOT NULL,
                    process bigint NOT NULL,
                    record text NOT NULL)
                """,
                "CREATE INDEX outpost_job_records_unfinished ON outpost_job_records (process) WHERE NOT finished",
                """
                CREATE TABLE outpost_result_file_owners (
                    name text PRIMARY KEY,
                    owner text NOT NULL,
                    created_at bigint NOT NULL)
                """,
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

    /// What `migrate` would apply, without applying it (`outpost migrate --dry-run`): the
    /// versions and names missing from the database, in order; a newer database is refused.
    public static func pending(_ pool: PostgresPool) throws -> [PostgresMigration] {
        try pool.transaction { connection in
            let exists = try connection.query("SELECT to_regclass('outpost_schema_migrations') IS NOT NULL").first?.bool(0) ?? false
            guard exists else { return all }
            let done = Set(try connection.query("SELECT version FROM outpost_schema_migrations").rows.map { try $0.required(0, $0.int) })
            let known = all.last?.version ?? 0
            if let newest = done.max(), newest > known { throw PostgresMigrationError.newerDatabase(database: newest, known: known) }
            return all.filter { !done.contains($0.version) }
        }
    }
}
