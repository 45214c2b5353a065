import Foundation
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync {
    /// Applies a sync's edits in one transaction, each decided by `SyncRules.upload` (last in
    /// wins) against the replica's tick, with what SQLite's single writer gave for free made
    /// explicit (reference §4.1):
    /// - the replica's row is locked first (`FOR UPDATE`), so the same upload sent to two
    ///   processes at once runs one after the other, and the second finds the first's receipt
    ///   and applies nothing;
    /// - each GlobalID's server record is read locked (`FOR UPDATE`), so no writer changes it
    ///   between the decision and the write; an add that meets a GlobalID another writer
    ///   inserted meanwhile is decided again against that row;
    /// - every server change an edit overwrites unseen goes to the conflict log first.
    ///
    /// `editor` (the syncing user) goes to editor-tracking fields.
    public func applySyncUpload(_ plan: SyncPlan, fingerprint: [UInt8], editor syncingUser: String?) throws -> SyncUploadOutcome {
        let uploading = plan.uploadingLayers.filter { $0.edits != nil }
        let replicaId = plan.replica.id
        let moment = clock.milliseconds()
        struct Replayed: Error { var results: [LayerEditResults] }
        struct RolledBack: Error { var results: [LayerEditResults] }
        let prepared = try edits.prepareAttachmentFiles(uploading.compactMap(\.edits), service: plan.replica.serviceName)
        do {
            let options = EditOptions(rollbackOnFailure: plan.rollbackOnFailure, useGlobalIds: true)
            return try PostgresEditSession.run(
                pool, catalog: held, moment: moment, context: EditContext(editor: syncingUser, replicaId: replicaId), options: options,
                holdingWrites: true, preparedFiles: prepared, files: edits.files
            ) { editor, catalog in
                let service = try catalog.existingService(named: plan.replica.serviceName)
                var layers: [StoredLayer] = []
                for layerPlan in uploading {
                    guard let layer = service.layers.first(where: { $0.definition.id == layerPlan.layerId }) else {
                        throw StoreError.layerNotFound(service: service.definition.name, layer: layerPlan.layerId)
                    }
                    try EditRules.checkCapabilities(service.definition, edits: layerPlan.edits!)
                    if layerPlan.edits?.attachments?.isEmpty == false { try layer.checkHasAttachments() }
                    layers.append(layer)
                }
                let connection = editor.connection
                guard try connection.query("SELECT 1 FROM outpost_replicas WHERE replica_id = \(replicaId) FOR UPDATE").first != nil else {
                    throw ArcGISError(kind: .notFound, message: "Replica not found.", details: ["Replica \(replicaId) is not registered."])
                }
                if let results = try Self.receipt(replicaId: replicaId, fingerprint: fingerprint, connection: connection) {
                    throw Replayed(results: results)
                }
                var results: [LayerEditResults] = []
                for (layerPlan, layer) in zip(uploading, layers) {
                    let since = try Self.snapshot(ofGeneration: layerPlan.since, connection: connection)
                    let session = PostgresUploadSession(editor: editor, replicaId: replicaId, since: since, moment: moment)
                    results.append(try session.apply(layerPlan.edits!, to: layer))
                }
                if plan.rollbackOnFailure && results.contains(where: { $0.all.contains { !$0.success } }) {
                    throw RolledBack(results: results)
                }
                let stamp = try PostgresEditSession.markEdited(layers, at: moment, connection: connection)
                let text = JSONValue.array(results.map { $0.json(includeLayerId: true) }).jsonText
                try connection.query(
                    """
                    INSERT INTO outpost_sync_receipts(replica_id, fingerprint, generation, results, recorded_at)
                    VALUES (\(replicaId), \(fingerprint), \(stamp), \(text), \(moment))
                    ON CONFLICT (replica_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, generation = EXCLUDED.generation,
                        results = EXCLUDED.results, recorded_at = EXCLUDED.recorded_at
                    """)
                let committed = results.contains { $0.all.contains(where: \.success) }
                let conflicts = try connection.query("SELECT count(*) FROM outpost_conflicts WHERE outpost_xid = \(stamp)").first?.int(0) ?? 0
                return SyncUploadOutcome(
                    results: results, generation: committed ? stamp : nil, replayed: false, conflictsRecorded: committed ? conflicts : 0)
            }
        } catch let replayed as Replayed {
            return SyncUploadOutcome(results: replayed.results, generation: nil, replayed: true, conflictsRecorded: 0)
        } catch let rolledBack as RolledBack {
            var results = rolledBack.results
            for index in results.indices { results[index].markRolledBack() }
            return SyncUploadOutcome(results: results, generation: nil, replayed: false, conflictsRecorded: 0)
        }
    }

    /// The results of the replica's last upload when it had this fingerprint.
    static func receipt(replicaId: String, fingerprint: [UInt8], connection: PostgresConnection) throws -> [LayerEditResults]? {
        guard let row = try connection.query("SELECT fingerprint, results FROM outpost_sync_receipts WHERE replica_id = \(replicaId)").first,
            try row.bytes(0) == fingerprint, let text = row.string(1), case .array(let items)? = try? JSONParser.parse(text)
        else { return nil }
        let results = items.compactMap(LayerEditResults.init(json:))
        return results.count == items.count ? results : nil
    }
}

/// The edits of one sync on PostgreSQL, each decided by `SyncRules.upload` and carried out
/// with the edit session's primitives.
struct PostgresUploadSession {
    let editor: PostgresEditSession
    let replicaId: String
    let since: TransactionSnapshot
    let moment: Int64

    var connection: PostgresConnection { editor.connection }

    /// What the server holds for a GlobalID, locked until the transaction ends, with the raw
    /// stamps (the decision reads them against `since`).
    enum Held {
        case absent
        case row(objectId: Int64, createdXid: Int64, changedXid: Int64, lastWriter: String?, createdBy: String?)
        case tombstone(objectId: Int64, createdXid: Int64, deletedXid: Int64, deletedBy: String?, createdBy: String?)
    }

    /// When writes are held back, what the server holds for each GlobalID of the upload, read
    /// (and locked) in two statements up front instead of two per edit.
    let prefetched = PrefetchedRecords()

    final class PrefetchedRecords {
        var records: [String: Held] = [:]
        var isActive = false

        /// The prefetched record, once: a GlobalID met again in the same upload is read live,
        /// after the writes held back so far are sent.
        func take(_ globalId: String) -> Held? {
            guard isActive else { return nil }
            return records.removeValue(forKey: globalId)
        }
    }

    func apply(_ edits: LayerEdits, to layer: StoredLayer) throws -> LayerEditResults {
        if editor.holdsWrites {
            editor.pending!.drawSize[layer.tableName] = edits.adds.count
            try prefetch(edits, layer: layer)
        }
        var results = LayerEditResults(layerId: layer.definition.id)
        for feature in edits.adds { results.addResults.append(try editor.attempt { try upload(.add, feature: feature, key: nil, layer: layer) }) }
        for feature in edits.updates {
            results.updateResults.append(try editor.attempt { try upload(.update, feature: feature, key: nil, layer: layer) })
        }
        for key in edits.deletes { results.deleteResults.append(try editor.attempt { try upload(.delete, feature: nil, key: key, layer: layer) }) }
        try editor.flush()
        prefetched.isActive = false
        if let attachments = edits.attachments { results.attachmentResults = try apply(attachments, to: layer) }
        return results
    }

    /// Reads and locks the rows and tombstones of every GlobalID the edits name: rows first,
    /// then the tombstones of the GlobalIDs with no live row, each statement with a snapshot of
    /// its own (READ COMMITTED). A row deleted by a writer whose lock the row read waited for is
    /// gone from that read, and its tombstone, committed with the delete, is in the next one;
    /// tombstones read first would miss it, the GlobalID would look absent, and an update would
    /// insert the feature beside its tombstone (a later download then deleted it on the device).
    private func prefetch(_ edits: LayerEdits, layer: StoredLayer) throws {
        var ids = Set<String>()
        for feature in edits.adds + edits.updates { if let id = try? globalId(of: feature, key: nil, layer: layer) { ids.insert(id) } }
        for key in edits.deletes { if case .globalId(let id) = key { ids.insert(id) } }
        let definition = layer.definition
        var records: [String: Held] = [:]
        let gid = PostgresQuery.quoted(identifier: definition.globalIdField)
        for row in try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT \(gid), \(PostgresQuery.quoted(identifier: definition.objectIdField)), outpost_created_xid, outpost_xid, outpost_replica,
                        outpost_created_by FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(gid) = ANY($1) ORDER BY \(gid) FOR UPDATE
                    """, binds: [PostgresTextArray(ids.sorted()).postgresValue])
        ).rows {
            // A live row wins over a tombstone of the same GlobalID, as in `held`.
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

    private func upload(
        _ operation: UploadOperation, feature: EditFeature?, key: FeatureKey?, layer: StoredLayer, retried: Bool = false
    ) throws
        -> EditResult
    {
        let globalId = try self.globalId(of: feature, key: key, layer: layer)
        let held = try self.held(globalId, layer: layer)
        let record: ServerRecord
        switch held {
        case .absent: record = .absent
        case .row(let objectId, let created, let changed, let writer, _):
            record = since.row(objectId: objectId, createdXid: created, changedXid: changed, lastWriter: writer)
        case .tombstone(let objectId, let created, let deleted, let by, _):
            record = since.tombstone(objectId: objectId, createdXid: created, deletedXid: deleted, deletedBy: by)
        }
        let decision = SyncRules.upload(operation, onto: record, since: TransactionSnapshot.replicaGeneration, replicaId: replicaId)
        // Versioned data: an update of a feature DEFAULT changed meanwhile is reconciled field
        // by field; only fields both sides changed are conflicts.
        var reconciled: (feature: EditFeature, conflicts: JSONValue?)?
        if layer.isVersioned, decision.overwritesUnseenChange, case .update(let objectId) = decision.action {
            reconciled = try reconcile(feature!, objectId: objectId, globalId: globalId, layer: layer)
        }
        if let reconciled {
            if let fields = reconciled.conflicts { try recordConflict(operation, held: held, globalId: globalId, layer: layer, fields: fields) }
        } else if decision.overwritesUnseenChange {
            try recordConflict(operation, held: held, globalId: globalId, layer: layer)
        }
        switch decision.action {
        case .insert:
            // Without savepoints a collision ends the attempt, which runs again with them.
            guard editor.usesSavepoints else { return try editor.add(feature!, to: layer) }
            do {
                try connection.execute("SAVEPOINT outpost_insert")
                let result = try editor.add(feature!, to: layer)
                try connection.execute("RELEASE SAVEPOINT outpost_insert")
                return result
            } catch let failure as PostgresEditSession.EditFailure where failure.error.code == EditError.duplicateGlobalID(globalId).code && !retried
            {
                // Another writer inserted this GlobalID since it was read: decide again on its row.
                try connection.execute("ROLLBACK TO SAVEPOINT outpost_insert")
                return try upload(operation, feature: feature, key: key, layer: layer, retried: true)
            }
        case .update(let objectId):
            guard case .row(_, let created, _, _, let createdBy) = held else {
                throw PostgresEditSession.EditFailure(error: .missing("GlobalID \(globalId)"), globalId: globalId)
            }
            if let reconciled, reconciled.feature.attributes.count <= 1, reconciled.feature.geometry == nil {
                // The replica changed nothing DEFAULT does not already hold.
                return EditResult(objectId: objectId, globalId: globalId)
            }
            let result = try editor.update(
                reconciled?.feature ?? feature!, of: .init(objectId: objectId, globalId: globalId, createdStamp: created, createdBy: createdBy),
                in: layer)
            if reconciled != nil {
                // A merge: DEFAULT's row now holds fields the replica has not seen. Written by
                // "merge:<replica>", it is not the replica's own write, so it comes back to it.
                try editor.write(
                    PostgresQuery(
                        unsafeSQL:
                            "UPDATE \(PostgresQuery.quoted(identifier: layer.tableName)) SET outpost_replica = $1 WHERE \(PostgresQuery.quoted(identifier: layer.definition.objectIdField)) = $2",
                        binds: [.text(VersionReconcile.mergeWriter(replicaId)), objectId.postgresValue]))
            }
            return result
        case .resurrect:
            let result = try editor.add(feature!, to: layer)
            if case .tombstone(_, let created, _, _, let createdBy) = held, let objectId = result.objectId {
                // The feature keeps its first creation: a replica that had it gets an update.
                try editor.write(
                    PostgresQuery(
                        unsafeSQL:
                            "UPDATE \(PostgresQuery.quoted(identifier: layer.tableName)) SET outpost_created_xid = $1, outpost_created_by = $2 WHERE \(PostgresQuery.quoted(identifier: layer.definition.objectIdField)) = $3",
                        binds: [created.postgresValue, createdBy.postgresValue, objectId.postgresValue]))
                try editor.write(
                    "DELETE FROM outpost_tombstones WHERE service = \(layer.serviceName) AND layer_id = \(layer.definition.id) AND kind = 'feature' AND global_id = \(globalId)"
                )
            }
            return result
        case .delete(let objectId):
            guard case .row(_, let created, _, _, let createdBy) = held else {
                throw PostgresEditSession.EditFailure(error: .missing("GlobalID \(globalId)"), globalId: globalId)
            }
            return try editor.delete(.init(objectId: objectId, globalId: globalId, createdStamp: created, createdBy: createdBy), from: layer)
        case .alreadyApplied(let objectId):
            var reported = objectId
            if reported == nil, case .tombstone(let deletedObjectId, _, _, _, _) = held { reported = deletedObjectId }
            return EditResult(objectId: reported, globalId: globalId)
        }
    }

    private func globalId(of feature: EditFeature?, key: FeatureKey?, layer: StoredLayer) throws -> String {
        switch key {
        case .globalId(let id)?: return id
        case .objectId(let id)?: throw PostgresEditSession.EditFailure(error: .invalid("Sync deletes name GlobalIDs, not object id \(id)."))
        case nil: break
        }
        let field = layer.definition.globalIdField
        guard let text = feature?.attributes.value(forCaseInsensitiveKey: field)?.stringValue, let id = GlobalID.normalize(text) else {
            throw PostgresEditSession.EditFailure(error: .invalid("Every synced feature needs its \(field) (a GUID)."))
        }
        return id
    }

    private func held(_ globalId: String, layer: StoredLayer) throws -> Held {
        if let known = prefetched.take(globalId) { return known }
        try editor.flush()
        let definition = layer.definition
        return try held(
            globalId, kind: "feature", layer: layer,
            row: PostgresQuery(
                unsafeSQL:
                    "SELECT \(PostgresQuery.quoted(identifier: definition.objectIdField)), outpost_created_xid, outpost_xid, outpost_replica, outpost_created_by FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(PostgresQuery.quoted(identifier: definition.globalIdField)) = $1 FOR UPDATE",
                binds: [.text(globalId)]))
    }

    /// What the server holds for a GlobalID of `kind`, locked until the transaction ends: the
    /// live row `row` selects (id, created, changed, writer, creator), else its tombstone.
    func held(_ globalId: String, kind: String, layer: StoredLayer, row query: PostgresQuery) throws -> Held {
        if let row = try connection.query(query).first {
            return .row(
                objectId: try row.required(0, row.int64), createdXid: try row.required(1, row.int64), changedXid: try row.required(2, row.int64),
                lastWriter: row.string(3), createdBy: row.string(4))
        }
        if let row = try connection.query(
            """
            SELECT object_id, created_xid, outpost_xid, replica_id, created_by FROM outpost_tombstones
            WHERE service = \(layer.serviceName) AND layer_id = \(layer.definition.id) AND kind = \(kind) AND global_id = \(globalId) FOR UPDATE
            """
        ).first {
            return .tombstone(
                objectId: try row.required(0, row.int64), createdXid: try row.required(1, row.int64), deletedXid: try row.required(2, row.int64),
                deletedBy: row.string(3), createdBy: row.string(4))
        }
        return .absent
    }

    /// The part of an update the replica changed, against the feature at its tick
    /// (`VersionReconcile`), and the conflict log's `fields` for what DEFAULT changed too.
    private func reconcile(
        _ feature: EditFeature, objectId: Int64, globalId: String, layer: StoredLayer
    ) throws -> (
        feature: EditFeature, conflicts: JSONValue?
    ) {
        let definition = layer.definition
        let update = VersionedUpdate(feature, layer: definition)
        var binds = update.fields.map(\.value.postgresValue)
        var written = update.fields.enumerated().map { index, sent in
            PostgresFieldStates.Written(column: sent.field.name, type: sent.field.type, edit: "$\(index + 1)")
        }
        if layer.isSpatial, let geometry = feature.geometry {
            let value = try editor.storedGeometry(geometry, layer: layer, globalId: globalId)
            written.append(PostgresFieldStates.Written(column: StoredLayer.geometryColumn, type: nil, edit: value.placeholder(&binds)))
        }
        guard !written.isEmpty else { return (feature, .none) }
        try editor.flush()
        let states = try PostgresFieldStates.read(
            written, objectId: objectId, layer: layer, base: PostgresVersionBase(snapshot: since), binds: binds, connection: connection)
        let outcome = states.reconciled
        let reduced = update.reduced(feature, writing: outcome.write, globalIdField: definition.globalIdField, globalId: globalId)
        // `Optional.none`, not `nil`: JSONValue is itself nil-expressible, and would be `.null`.
        let conflicts: JSONValue? = outcome.conflicts.isEmpty ? .none : states.conflictFields(outcome.conflicts)
        return (reduced, conflicts)
    }

    /// Copies what the upload is about to overwrite into the conflict log: the live feature as
    /// stored, or the delete it undoes; for a reconciled update, the fields both sides changed.
    private func recordConflict(_ operation: UploadOperation, held: Held, globalId: String, layer: StoredLayer, fields: JSONValue? = nil) throws {
        let objectId: Int64
        let xid: Int64
        let by: String?
        let kind: String
        var feature: String?
        switch held {
        case .absent: return
        case .row(let id, _, let changed, let writer, _):
            (objectId, xid, by, kind) = (id, changed, writer, "update")
            feature = try PostgresSync.featureJSON(objectId: id, layer: layer, connection: connection)?.jsonText
        case .tombstone(let id, _, let deleted, let deletedBy, _):
            (objectId, xid, by, kind) = (id, deleted, deletedBy, "delete")
        }
        try PostgresSync.recordConflict(
            PostgresSync.Overwritten(
                layer: layer, globalId: globalId, objectId: objectId, change: kind, xid: xid, by: by, feature: feature, fields: fields),
            by: replicaId, operation: "\(operation)", at: moment, connection: connection)
    }
}
