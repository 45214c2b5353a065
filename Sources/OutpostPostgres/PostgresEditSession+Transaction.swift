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
    /// when an edit failed (`usesSavepoints`). `body` gets the catalog this process holds; the
    /// transaction's BEGIN and a read of the catalog's version go with its first statement
    /// (`deferBegin`), and if another process changed the schema meanwhile the transaction is
    /// given up and run again on the catalog read anew. The body may commit itself
    /// (`markEdited(committing:)`); otherwise it is committed when it returns.
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
                while true {
                    let (version, catalog) = try held.heldOrLoaded(on: connection)
                    connection.deferBegin(.readCommitted, checking: PostgresCatalog.versionQuery) { answer in
                        guard try answer.first?.int64(0) == version else { throw CatalogChanged() }
                    }
                    do {
                        return try connection.transaction(started: true) { connection in
                            var session = PostgresEditSession(connection: connection, moment: moment, context: context, options: options)
                            session.usesSavepoints = withSavepoints
                            session.preparedFiles = preparedFiles
                            if holdingWrites && !withSavepoints { session.pending = PendingWrites() }
                            return (try body(session, catalog), session.fileChanges)
                        }
                    } catch is CatalogChanged {
                        // Another process changed the schema: read it again outside the transaction.
                        _ = try held.load(on: connection)
                    } catch {
                        // Refused before any statement went, by the catalog held alone: only if it is current.
                        guard connection.forgetDeferredBegin(),
                            try connection.query("\(unescaped: PostgresCatalog.versionQuery)").first?.int64(0) != version
                        else { throw error }
                        _ = try held.load(on: connection)
                    }
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

/// The catalog an edit was written against is no longer the database's.
struct CatalogChanged: Error {}
