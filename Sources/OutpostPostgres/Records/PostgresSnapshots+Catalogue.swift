import OutpostStorage

/// What a snapshot copies, read from PostgreSQL's catalogue: never from a request.
extension PostgresSnapshots {
    /// The ordinary tables of `schema` (nil: the live one, `current_schema()`), extensions'
    /// own (PostGIS's `spatial_ref_sys`) left out.
    static func tables(in schema: String?, on connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = coalesce(\(schema), current_schema()) AND c.relkind IN ('r', 'p')
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
            ORDER BY c.relname
            """
        ).rows.compactMap { $0.string(0) }
    }

    /// The live schema's sequences (serial and identity columns' too).
    static func sequences(on connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind = 'S'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
            ORDER BY c.relname
            """
        ).rows.compactMap { $0.string(0) }
    }

    /// The columns of a saved copy that its live table still has, in the copy's order.
    static func columns(of table: String, in schema: String, on connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(schema) AND c.relname = \(table) AND a.attnum > 0 AND NOT a.attisdropped
              AND EXISTS (
                SELECT 1 FROM information_schema.columns l
                WHERE l.table_schema = current_schema() AND l.table_name = \(table) AND l.column_name = a.attname
                  AND l.is_generated = 'NEVER')
            ORDER BY a.attnum
            """
        ).rows.compactMap { $0.string(0) }
    }

    /// `tables` ordered so a table comes after every table its foreign keys refer to.
    static func parentsFirst(_ tables: [String], on connection: PostgresConnection) throws -> [String] {
        let edges = try connection.query(
            """
            SELECT child.relname, parent.relname FROM pg_constraint k
            JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid
            JOIN pg_namespace n ON n.oid = child.relnamespace
            WHERE k.contype = 'f' AND n.nspname = current_schema()
            """
        ).rows.compactMap { row in row.string(0).flatMap { child in row.string(1).map { (child, $0) } } }
        var parents: [String: Set<String>] = [:]
        for (child, parent) in edges where child != parent { parents[child, default: []].insert(parent) }
        var ordered: [String] = []
        var placed: Set<String> = []
        var left = tables
        while !left.isEmpty {
            let ready = left.filter { parents[$0, default: []].subtracting(placed).intersection(tables).isEmpty }
            // A cycle (none in Outpost's schema) is placed as it comes.
            let next = ready.isEmpty ? [left[0]] : ready
            ordered += next
            placed.formUnion(next)
            left.removeAll { placed.contains($0) }
        }
        return ordered
    }

    /// The name a snapshot schema was saved under; nil when there is no such schema.
    static func savedName(_ schema: String, on connection: PostgresConnection) throws -> String? {
        let exists = try connection.query("SELECT to_regclass(quote_ident(\(schema)) || '.' || quote_ident(\(describeTable))) IS NOT NULL")
        guard try exists.first?.bool(0) == true else { return nil }
        return try connection.query("SELECT name FROM \(identifier: schema).\(identifier: describeTable)").first?.string(0)
    }

    /// Bytes the snapshot's rows take.
    func rowBytes(_ name: SnapshotName) throws -> Int64 {
        try pool.query(
            """
            SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = \(Self.schema(of: name)) AND c.relkind = 'r'
            """
        ).first?.int64(0) ?? 0
    }

    static let definitionsTable = "_outpost_snapshot_definitions"

    /// What `LIKE … INCLUDING ALL` leaves out of a table, as PostgreSQL writes it back
    /// (`pg_get_triggerdef`, `pg_get_constraintdef`): its triggers, then its foreign keys.
    static func saveDefinitions(into schema: String, on connection: PostgresConnection) throws {
        try connection.query("CREATE TABLE \(identifier: schema).\(identifier: definitionsTable) (table_name text, step int, statement text)")
        try connection.query(
            """
            INSERT INTO \(identifier: schema).\(identifier: definitionsTable)
            SELECT c.relname, 1, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND NOT t.tgisinternal
            UNION ALL
            SELECT c.relname, 2, 'ALTER TABLE ' || quote_ident(c.relname) || ' ADD CONSTRAINT ' || quote_ident(k.conname) || ' '
                || pg_get_constraintdef(k.oid)
            FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND k.contype = 'f'
            """)
    }

    /// Gives tables made again from their copies their triggers and foreign keys (the
    /// catalogue's own text, saved by `saveDefinitions`), once their rows are in.
    static func restoreDefinitions(of tables: [String], from schema: String, on connection: PostgresConnection) throws {
        guard !tables.isEmpty else { return }
        let statements = try connection.query(
            """
            SELECT statement FROM \(identifier: schema).\(identifier: definitionsTable)
            WHERE table_name = ANY(\(PostgresTextArray(tables))) ORDER BY step, table_name
            """
        ).rows.compactMap { $0.string(0) }
        for statement in statements { try connection.execute(statement) }
    }
}
