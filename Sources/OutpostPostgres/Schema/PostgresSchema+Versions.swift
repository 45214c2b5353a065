import OutpostStorage
import OutpostWire

/// The tables and rows a versioned service has on PostgreSQL (docs/postgres.md, "Versioned
/// services"): per layer a history kept by the `outpost_archive` trigger and the rows of named
/// versions, and per service its DEFAULT version.
extension PostgresSchema {
    /// `<table>__history`: the layer's columns plus `outpost_valid_to` (the transaction that
    /// replaced the row), filled by the trigger whoever writes; `<table>__version_rows`: the
    /// layer's columns plus the version and a deleted flag, whose adds draw their OBJECTIDs
    /// from the layer's own identity so DEFAULT never hands them out.
    static func createVersioning(of table: String, layer: LayerDefinition, connection: PostgresConnection) throws {
        let t = PostgresQuery.quoted(identifier: table)
        let history = PostgresQuery.quoted(identifier: "\(table)__history")
        let rows = PostgresQuery.quoted(identifier: "\(table)__version_rows")
        let oid = PostgresQuery.quoted(identifier: layer.objectIdField)
        let gid = PostgresQuery.quoted(identifier: layer.globalIdField)
        guard let sequence = try connection.query("SELECT pg_get_serial_sequence(\(t), \(layer.objectIdField))").first?.string(0) else {
            throw StoreError.invalidSchema("layer table \(table) has no identity")
        }
        try connection.execute(
            """
            CREATE TABLE \(history) (LIKE \(t));
            ALTER TABLE \(history) ADD COLUMN outpost_valid_to bigint NOT NULL;
            CREATE INDEX \(PostgresQuery.quoted(identifier: "\(table)__history_objectid")) ON \(history) (\(oid));
            CREATE TRIGGER outpost_archive BEFORE UPDATE OR DELETE ON \(t) FOR EACH ROW EXECUTE FUNCTION outpost_archive();
            CREATE TABLE \(rows) (LIKE \(t) INCLUDING DEFAULTS);
            ALTER TABLE \(rows) ADD COLUMN outpost_version text NOT NULL, ADD COLUMN outpost_deleted boolean NOT NULL DEFAULT false,
                ALTER COLUMN \(oid) SET DEFAULT nextval('\(sequence.replacingOccurrences(of: "'", with: "''"))'::regclass);
            CREATE UNIQUE INDEX \(PostgresQuery.quoted(identifier: "\(table)__version_rows_key")) ON \(rows) (outpost_version, \(gid));
            """)
    }

    /// DEFAULT, the version every versioned service has.
    static func createDefaultVersion(service: String, connection: PostgresConnection, now: Int64) throws {
        try connection.query(
            """
            INSERT INTO outpost_versions(service, name, parent, replica_id, access, description, created_at, guid)
            VALUES (\(service), \(DataVersion.defaultName), NULL, NULL, 'public', 'The published state of the data', \(now), \(GlobalID.make()))
            ON CONFLICT DO NOTHING
            """)
    }

    /// The tables a layer's table gives its name to.
    static func companionTables(of table: String) -> [String] {
        [table, "\(table)__attach", "\(table)__history", "\(table)__version_rows"]
    }
}
