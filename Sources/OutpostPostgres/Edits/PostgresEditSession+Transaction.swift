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
    ///
    /// Attachment files: `preparedFiles` (in `files`) that the committed attempt registered
    /// are kept and the ones it replaced or deleted removed; every other prepared file is
    /// removed — unless the connection was lost, when the commit may have happened unseen:
    /// then nothing is removed and the orphan sweep decides later, against the rows.
    static func run<T>(
        _ pool: PostgresPool, catalog held: PostgresCatalog, moment: Int64, context: EditContext, options: EditOptions,
        holdingWrites: Bool = false, preparedFiles: [String: PreparedAttachmentFile] = [:], files: AttachmentFiles? = nil,
        _ body: (PostgresEditSession, Catalog) throws -> T
    ) throws -> T {
        func attempt(withSavepoints: Bool) throws -> (T, AttachmentFileChanges) {
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
                    session.preparedFiles = preparedFiles
                    if holdingWrites && !withSavepoints { session.pending = PendingWrites() }
                    return (try body(session, catalog!), session.fileChanges)
                }
            }
        }
        var kept = Set<String>()
        defer { files?.remove(preparedFiles.values.map(\.path).filter { !kept.contains($0) }) }
        do {
            let (result, changes) = try {
                do { return try attempt(withSavepoints: false) } catch is NeedsSavepoints { return try attempt(withSavepoints: true) }
            }()
            kept = changes.registered
            files?.remove(changes.removedAtCommit)
            return result
        } catch let error as PostgresError where error.kind == .connection {
            kept = Set(preparedFiles.values.map(\.path))
            throw error
        }
    }
}
