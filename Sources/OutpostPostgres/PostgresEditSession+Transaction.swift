import OutpostStorage
import OutpostWire

extension PostgresEditSession {
    /// Marks the layers edited (this connection's row: no writer waits on another) and
    /// returns the transaction's stamp; with `committing`, the last mark and COMMIT go in one
    /// round trip.
    static func markEdited(
        _ layers: [StoredLayer], at moment: Int64, connection: PostgresConnection, committing: Bool = false
    ) throws
        -> Int64
    {
        guard !layers.isEmpty else { return try connection.query("SELECT \(unescaped: GenerationTicks.stamp)").first?.int64(0) ?? 0 }
        var stamp: Int64 = 0
        for (index, layer) in layers.enumerated() {
            let mark: PostgresQuery = """
                INSERT INTO outpost_layer_edits(service, layer_id, writer, last_edit_date)
                VALUES (\(layer.serviceName), \(layer.definition.id), pg_backend_pid(), \(moment))
                ON CONFLICT (service, layer_id, writer) DO UPDATE
                    SET last_edit_date = greatest(outpost_layer_edits.last_edit_date, EXCLUDED.last_edit_date)
                RETURNING \(unescaped: GenerationTicks.stamp)
                """
            let last = committing && index == layers.count - 1
            stamp = try (last ? connection.commit(after: mark) : connection.query(mark)).first?.int64(0) ?? 0
        }
        return stamp
    }

    /// Runs `body` in a transaction with a session without savepoints, and again with them
    /// when an edit failed (`usesSavepoints`). The transaction starts with the catalog's version
    /// read in the same round trip, and `body` gets the catalog at that version. The body may
    /// commit itself (`markEdited(committing:)`); otherwise it is committed when it returns.
    static func run<T>(
        _ pool: PostgresPool, catalog held: PostgresCatalog, moment: Int64, context: EditContext, options: EditOptions,
        holdingWrites: Bool = false, _ body: (PostgresEditSession, Catalog) throws -> T
    ) throws -> T {
        func attempt(withSavepoints: Bool) throws -> T {
            try pool.withConnection { connection in
                var catalog: Catalog?
                while catalog == nil {
                    let version = try connection.begin(.readCommitted, then: PostgresCatalog.versionQuery).first?.int64(0) ?? 0
                    catalog = held.cached(atVersion: version)
                    if catalog == nil {
                        // Another process changed the schema: read it again outside the transaction.
                        try connection.execute("ROLLBACK")
                        _ = try held.load(on: connection)
                    }
                }
                return try connection.transaction(started: true) { connection in
                    var session = PostgresEditSession(connection: connection, moment: moment, context: context, options: options)
                    session.usesSavepoints = withSavepoints
                    if holdingWrites && !withSavepoints { session.pending = PendingWrites() }
                    return try body(session, catalog!)
                }
            }
        }
        do { return try attempt(withSavepoints: false) } catch is NeedsSavepoints { return try attempt(withSavepoints: true) }
    }
}
