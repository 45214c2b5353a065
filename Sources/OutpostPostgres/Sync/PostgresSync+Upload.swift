import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync {
    /// A sync upload's transaction (`SyncStore.runSyncUpload`), with what SQLite's single
    /// writer gave for free made explicit (reference §4.1):
    /// - the replica's row is locked first (`FOR UPDATE`), so the same upload sent to two
    ///   processes at once runs one after the other, and the second finds the first's receipt
    ///   and applies nothing;
    /// - each GlobalID's server record is read locked (`FOR UPDATE`), so no writer changes it
    ///   between the decision and the write (`PostgresUploadRecords`); an add that meets a
    ///   GlobalID another writer inserted meanwhile is decided again against that row;
    /// - writes are held back and sent in pipelines; one the database refuses runs the
    ///   transaction again with a savepoint per edit (`PostgresEditSession.run`).
    public func runSyncUpload(
        _ plan: SyncPlan, editor syncingUser: String?, _ body: (any SyncUploadTransaction) throws -> SyncUploadOutcome
    ) throws -> SyncUploadOutcome {
        let moment = clock.milliseconds()
        let uploaded = plan.uploadedLayers
        let prepared = try edits.prepareAttachmentFiles(uploaded.compactMap(\.edits), service: plan.replica.serviceName)
        return try PostgresEditSession.run(
            pool, catalog: held, moment: moment, context: plan.uploadContext(editor: syncingUser), options: plan.uploadOptions,
            holdingWrites: true, preparedFiles: prepared, files: edits.files
        ) { session, catalog in
            let service = try catalog.existingService(named: plan.replica.serviceName)
            let layers = try uploaded.map { layerPlan in
                guard let layer = service.layers.first(where: { $0.definition.id == layerPlan.layerId }) else {
                    throw StoreError.layerNotFound(service: service.definition.name, layer: layerPlan.layerId)
                }
                try EditRules.checkCapabilities(service.definition, edits: layerPlan.edits!)
                if layerPlan.edits?.attachments?.isEmpty == false { try layer.checkHasAttachments() }
                return layer
            }
            let replicaId = plan.replica.id
            guard try session.connection.query("SELECT 1 FROM outpost_replicas WHERE replica_id = \(replicaId) FOR UPDATE").first != nil else {
                throw ArcGISError(kind: .notFound, message: "Replica not found.", details: ["Replica \(replicaId) is not registered."])
            }
            return try body(PostgresUploadTransaction(editor: session, replicaId: replicaId, moment: moment, layers: layers))
        }
    }
}

/// A sync upload's transaction on PostgreSQL: the edit session's, and the receipts.
struct PostgresUploadTransaction: SyncUploadTransaction {
    let editor: PostgresEditSession
    let replicaId: String
    let moment: Int64
    let layers: [StoredLayer]

    var connection: PostgresConnection { editor.connection }

    func receipt(fingerprint: [UInt8]) throws -> [LayerEditResults]? {
        guard let row = try connection.query("SELECT fingerprint, results FROM outpost_sync_receipts WHERE replica_id = \(replicaId)").first,
            try row.bytes(0) == fingerprint, let text = row.string(1), case .array(let items)? = try? JSONParser.parse(text)
        else { return nil }
        let results = items.compactMap(LayerEditResults.init(json:))
        return results.count == items.count ? results : nil
    }

    /// The layer's records, read against the snapshot of the replica's tick; with writes held
    /// back, those of all its GlobalIDs read (and locked) up front.
    func records(of layer: StoredLayer, for layerPlan: SyncLayerPlan, globalIds: () -> [String]) throws -> any SyncUploadRecords {
        let snapshot = try PostgresSync.snapshot(ofGeneration: layerPlan.since, connection: connection)
        let records = PostgresUploadRecords(layer: layer, snapshot: snapshot, editor: editor, replicaId: replicaId, moment: moment)
        if editor.holdsWrites {
            editor.pending!.drawSize[layer.tableName] = layerPlan.edits?.adds.count ?? 0
            try records.prefetch(globalIds())
        }
        return records
    }

    func attempt(_ edit: () throws -> EditResult) throws -> EditResult {
        try editor.attempt {
            do { return try edit() } catch let failure as SyncEditFailure {
                throw PostgresEditSession.EditFailure(error: failure.error, objectId: failure.objectId, globalId: failure.globalId)
            }
        }
    }

    /// The layers marked edited, which gives the transaction's stamp, then the receipt.
    func saveReceipt(fingerprint: [UInt8], results: [LayerEditResults]) throws -> Int64 {
        let stamp = try PostgresEditSession.markEdited(layers, at: moment, connection: connection)
        let text = JSONValue.array(results.map { $0.json(includeLayerId: true) }).jsonText
        try connection.query(
            """
            INSERT INTO outpost_sync_receipts(replica_id, fingerprint, generation, results, recorded_at)
            VALUES (\(replicaId), \(fingerprint), \(stamp), \(text), \(moment))
            ON CONFLICT (replica_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, generation = EXCLUDED.generation,
                results = EXCLUDED.results, recorded_at = EXCLUDED.recorded_at
            """)
        return stamp
    }

    func conflictsRecorded(generation: Int64) throws -> Int {
        try connection.query("SELECT count(*) FROM outpost_conflicts WHERE outpost_xid = \(generation)").first?.int(0) ?? 0
    }
}

/// One layer's records in a PostgreSQL sync upload, each read locked until the transaction
/// ends, with the raw stamps (transaction ids, read against `snapshot`, the replica's tick),
/// and written with the edit session's primitives (held back for the pipeline while the
/// session holds writes).
struct PostgresUploadRecords: SyncUploadRecords {
    let layer: StoredLayer
    let snapshot: TransactionSnapshot
    /// Stamps are read against the tick, for rules called with the tick's generation.
    var since: Int64 { TransactionSnapshot.replicaGeneration }
    let editor: PostgresEditSession
    var connection: PostgresConnection { editor.connection }
    let replicaId: String
    let moment: Int64

    /// What the server holds for a GlobalID, with its raw stamps and its creator.
    enum Stamped {
        case absent
        case row(objectId: Int64, createdXid: Int64, changedXid: Int64, lastWriter: String?, createdBy: String?)
        case tombstone(objectId: Int64, createdXid: Int64, deletedXid: Int64, deletedBy: String?, createdBy: String?)
    }

    struct Held: HeldRecord {
        var stamped: Stamped
        /// The record the rules read, its stamps read against the replica's tick.
        var record: ServerRecord
    }

    /// When writes are held back, what the server holds for each GlobalID of the layer's
    /// feature edits, read (and locked) in two statements up front instead of two per edit.
    let prefetched = PrefetchedRecords()

    final class PrefetchedRecords {
        var records: [String: Stamped] = [:]
        var isActive = false

        /// The prefetched record, once: a GlobalID met again in the same upload is read live,
        /// after the writes held back so far are sent.
        func take(_ globalId: String) -> Stamped? {
            guard isActive else { return nil }
            return records.removeValue(forKey: globalId)
        }
    }

    func held(_ stamped: Stamped) -> Held {
        switch stamped {
        case .absent:
            Held(stamped: stamped, record: .absent)
        case .row(let objectId, let created, let changed, let writer, _):
            Held(stamped: stamped, record: snapshot.row(objectId: objectId, createdXid: created, changedXid: changed, lastWriter: writer))
        case .tombstone(let objectId, let created, let deleted, let by, _):
            Held(stamped: stamped, record: snapshot.tombstone(objectId: objectId, createdXid: created, deletedXid: deleted, deletedBy: by))
        }
    }

    /// Reads and locks the rows and tombstones of `globalIds`: rows first, then the
    /// tombstones of the GlobalIDs with no live row, each statement with a snapshot of its own
    /// (READ COMMITTED). A row deleted by a writer whose lock the row read waited for is gone
    /// from that read, and its tombstone, committed with the delete, is in the next one;
    /// tombstones read first would miss it, the GlobalID would look absent, and an update would
    /// insert the feature beside its tombstone (a later download then deleted it on the device).
    func prefetch(_ globalIds: [String]) throws {
        let ids = Set(globalIds)
        let definition = layer.definition
        var records: [String: Stamped] = [:]
        let gid = PostgresQuery.quoted(identifier: definition.globalIdField)
        for row in try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(gid), \(PostgresQuery.quoted(identifier: definition.objectIdField)), outpost_created_xid, outpost_xid, outpost_replica,
                        outpost_created_by FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(gid) = ANY($1) ORDER BY \(gid) FOR UPDATE
                    """, binds: [PostgresTextArray(ids.sorted()).postgresValue])
        ).rows {
            // A live row wins over a tombstone of the same GlobalID, as in `read`.
            records[try row.required(0, row.string)] = .row(
                objectId: try row.required(1, row.int64), createdXid: try row.required(2, row.int64), changedXid: try row.required(3, row.int64),
                lastWriter: row.string(4), createdBy: row.string(5))
        }
        let withoutRows = ids.filter { records[$0] == nil }
        for id in withoutRows { records[id] = .absent }
        if !withoutRows.isEmpty {
            let wanted = PostgresTextArray(withoutRows.sorted())
            for row in try connection.query(
                """
                SELECT global_id, object_id, created_xid, outpost_xid, replica_id, created_by FROM outpost_tombstones
                WHERE service = \(layer.serviceName) AND layer_id = \(definition.id) AND kind = 'feature' AND global_id = ANY(\(wanted))
                ORDER BY global_id FOR UPDATE
                """
            ).rows {
                records[try row.required(0, row.string)] = .tombstone(
                    objectId: try row.required(1, row.int64), createdXid: try row.required(2, row.int64),
                    deletedXid: try row.required(3, row.int64), deletedBy: row.string(4), createdBy: row.string(5))
            }
        }
        prefetched.records = records
        prefetched.isActive = true
    }

    /// A feature's record prefetched, else read live after the writes held so far are sent;
    /// an attachment's read live (attachment statements are never held).
    func read(_ globalId: String, _ kind: SyncRecordKind) throws -> Held {
        let query: PostgresQuery
        switch kind {
        case .feature:
            if let known = prefetched.take(globalId) { return held(known) }
            try editor.flush()
            let definition = layer.definition
            query = PostgresQuery(
                unsafeSQL:
                    "SELECT \(PostgresQuery.quoted(identifier: definition.objectIdField)), outpost_created_xid, outpost_xid, outpost_replica, outpost_created_by FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(PostgresQuery.quoted(identifier: definition.globalIdField)) = $1 FOR UPDATE",
                binds: [.text(globalId)])
        case .attachment:
            query = """
                SELECT "ATTACHMENTID", outpost_created_xid, outpost_xid, outpost_replica, outpost_created_by
                FROM \(identifier: layer.attachmentTable) WHERE "GLOBALID" = \(globalId) FOR UPDATE
                """
        }
        if let row = try connection.query(query).first {
            return held(
                .row(
                    objectId: try row.required(0, row.int64), createdXid: try row.required(1, row.int64),
                    changedXid: try row.required(2, row.int64), lastWriter: row.string(3), createdBy: row.string(4)))
        }
        if let row = try connection.query(
            """
            SELECT object_id, created_xid, outpost_xid, replica_id, created_by FROM outpost_tombstones
            WHERE service = \(layer.serviceName) AND layer_id = \(layer.definition.id) AND kind = \(kind.rawValue) AND global_id = \(globalId) FOR UPDATE
            """
        ).first {
            return held(
                .tombstone(
                    objectId: try row.required(0, row.int64), createdXid: try row.required(1, row.int64),
                    deletedXid: try row.required(2, row.int64), deletedBy: row.string(3), createdBy: row.string(4)))
        }
        return held(.absent)
    }

    /// An add of a GlobalID read absent runs under a savepoint when the session has them: a
    /// GlobalID another writer inserted since is then undone alone (`GlobalIDInsertedMeanwhile`).
    /// Without savepoints the collision ends the attempt, which runs again with them.
    func insert(_ feature: EditFeature, globalId: String, over held: Held) throws -> EditResult {
        guard editor.usesSavepoints, case .absent = held.stamped else { return try editor.add(feature, to: layer) }
        try connection.execute("SAVEPOINT outpost_insert")
        do {
            let result = try editor.add(feature, to: layer)
            try connection.execute("RELEASE SAVEPOINT outpost_insert")
            return result
        } catch let failure as PostgresEditSession.EditFailure where failure.error.code == EditError.duplicateGlobalID(globalId).code {
            try connection.execute("ROLLBACK TO SAVEPOINT outpost_insert")
            throw GlobalIDInsertedMeanwhile(globalId: globalId)
        }
    }

    func update(_ feature: EditFeature, of held: Held, globalId: String) throws -> EditResult {
        try editor.update(feature, of: try existing(held, globalId: globalId), in: layer)
    }

    func setLastWriter(_ writer: String, of objectId: Int64) throws {
        try editor.write(
            PostgresQuery(
                unsafeSQL:
                    "UPDATE \(PostgresQuery.quoted(identifier: layer.tableName)) SET outpost_replica = $1 WHERE \(PostgresQuery.quoted(identifier: layer.definition.objectIdField)) = $2",
                binds: [.text(writer), objectId.postgresValue]))
    }

    func delete(_ held: Held, globalId: String) throws -> EditResult {
        try editor.delete(try existing(held, globalId: globalId), from: layer)
    }

    private func existing(_ held: Held, globalId: String) throws -> PostgresEditSession.ExistingFeature {
        guard case .row(let objectId, let created, _, _, let createdBy) = held.stamped else {
            throw PostgresEditSession.EditFailure(error: .missing("GlobalID \(globalId)"), globalId: globalId)
        }
        return PostgresEditSession.ExistingFeature(objectId: objectId, globalId: globalId, createdStamp: created, createdBy: createdBy)
    }

    func endFeatures() throws {
        try editor.flush()
        prefetched.isActive = false
    }
}
