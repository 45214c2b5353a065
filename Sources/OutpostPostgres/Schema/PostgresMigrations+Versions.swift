extension PostgresMigrations {
    /// Versioned services (docs/postgres.md, "Versioned services"): named versions, and the
    /// trigger that keeps every replaced row of a versioned layer in its history table.
    static let versions = PostgresMigration(
        version: 9, name: "versioned services",
        statements: [
            // A version's base is a tick (what it has seen of DEFAULT) and, after a post, the
            // posting transaction itself, which that tick's snapshot cannot list as seen.
            """
            CREATE TABLE outpost_versions (
                service text NOT NULL REFERENCES outpost_services (name) ON DELETE CASCADE,
                name text NOT NULL,
                parent text,
                replica_id text,
                access text NOT NULL DEFAULT 'public',
                description text NOT NULL DEFAULT '',
                created_at bigint NOT NULL,
                guid text NOT NULL,
                base_tick bigint NOT NULL DEFAULT 0,
                base_xid bigint,
                PRIMARY KEY (service, name))
            """,
            "CREATE UNIQUE INDEX outpost_versions_lower_name ON outpost_versions (service, lower(name))",
            "CREATE INDEX outpost_versions_replica ON outpost_versions (replica_id)",
            // Fired before every update and delete of a versioned layer's row, whoever writes
            // it: the row as it was goes to `<table>__history`, valid until the writing
            // transaction. A row this transaction wrote already was kept by its first change.
            """
            CREATE FUNCTION outpost_archive() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                writer bigint := pg_current_xact_id()::text::bigint;
            BEGIN
                IF OLD.outpost_xid <> writer THEN
                    EXECUTE format('INSERT INTO %I.%I SELECT ($1).*, $2', TG_TABLE_SCHEMA, TG_TABLE_NAME || '__history') USING OLD, writer;
                END IF;
                IF TG_OP = 'DELETE' THEN
                    RETURN OLD;
                END IF;
                RETURN NEW;
            END $$
            """,
        ])

    /// A layer's subtypes as the layer resource serves them (`LayerSubtypes`), or NULL.
    static let subtypes = PostgresMigration(
        version: 10, name: "layer subtypes", statements: ["ALTER TABLE outpost_layers ADD COLUMN subtypes text"])

    /// Who made each upload item (issue 43).
    static let uploadOwners = PostgresMigration(
        version: 11, name: "upload owners", statements: ["ALTER TABLE outpost_uploads ADD COLUMN owner text NOT NULL DEFAULT ''"])
}
