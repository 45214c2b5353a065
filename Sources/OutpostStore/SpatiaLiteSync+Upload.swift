import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension SpatiaLiteSync {
    /// Applies the client's edits of a sync in one transaction stamped with one generation
    /// and the replica's id, deciding each edit with `SyncRules.upload` (last in wins).
    ///
    /// Every server change an edit overwrites that the replica had not seen is copied to the
    /// conflict log first. `fingerprint` identifies the upload (its layers, generations and
    /// edit bytes): when it equals the last upload applied for this replica, nothing is
    /// applied and that upload's results are returned, so a retried sync applies nothing
    /// twice. With `rollbackOnFailure`, a failing edit rolls everything back and the results
    /// say which edits failed. `editor` (the syncing user) goes to editor-tracking fields.
    public func applySyncUpload(_ plan: SyncPlan, fingerprint: [UInt8], editor syncingUser: String?) throws -> SyncUploadOutcome {
        let uploading = plan.uploadingLayers.filter { $0.edits != nil }
        let edits = uploading.compactMap(\.edits)
        let replicaId = plan.replica.id
        struct Replayed: Error { var results: [LayerEditResults] }
        let conflicts = ConflictCount()
        do {
            let options = EditOptions(rollbackOnFailure: plan.rollbackOnFailure, useGlobalIds: true)
            let outcome = try self.edits.runEditTransaction(
                service: plan.replica.serviceName, edits: edits, options: options,
                context: EditContext(editor: syncingUser, replicaId: replicaId)
            ) { editor, layers in
                if let replay = try Self.receipt(replicaId: replicaId, fingerprint: fingerprint, db: editor.db) {
                    throw Replayed(results: replay)
                }
                let session = SyncUploadSession(editor: editor, replicaId: replicaId)
                var results: [LayerEditResults] = []
                for (layerPlan, layer) in zip(uploading, layers) {
                    results.append(try session.apply(layerPlan.edits!, to: layer, since: layerPlan.since))
                }
                try Self.saveReceipt(
                    replicaId: replicaId, fingerprint: fingerprint, generation: editor.generation,
                    results: results, at: editor.moment, db: editor.db)
                // Counted from the log: a failed edit's savepoint took its conflict row with it.
                conflicts.value =
                    try Int.fetchOne(
                        editor.db, sql: "SELECT count(*) FROM outpost_conflicts WHERE generation = ?",
                        arguments: [editor.generation]) ?? 0
                return results
            }
            return SyncUploadOutcome(
                results: outcome.layers, generation: outcome.generation, replayed: false,
                conflictsRecorded: outcome.generation == nil ? 0 : conflicts.value)
        } catch let replayed as Replayed {
            return SyncUploadOutcome(results: replayed.results, generation: nil, replayed: true, conflictsRecorded: 0)
        }
    }

    // MARK: Receipts

    /// The results of the replica's last upload when it had this fingerprint.
    static func receipt(replicaId: String, fingerprint: [UInt8], db: Database) throws -> [LayerEditResults]? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT fingerprint, results FROM outpost_sync_receipts WHERE replica_id = ?",
                arguments: [replicaId]),
            (row["fingerprint"] as Data?) == Data(fingerprint),
            let text: String = row["results"], case .array(let items)? = try? JSONParser.parse(text)
        else { return nil }
        let results = items.compactMap(LayerEditResults.init(json:))
        return results.count == items.count ? results : nil
    }

    static func saveReceipt(
        replicaId: String, fingerprint: [UInt8], generation: Int64, results: [LayerEditResults],
        at now: Int64, db: Database
    ) throws {
        let text = JSONValue.array(results.map { $0.json(includeLayerId: true) }).jsonText
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO outpost_sync_receipts(replica_id, fingerprint, generation, results, recorded_at)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [replicaId, Data(fingerprint), generation, text, now])
    }
}

/// Carries the conflict count out of the transaction closure.
final class ConflictCount: @unchecked Sendable {
    var value = 0
}

/// The edits of one sync, each decided by `SyncRules.upload` and carried out with the
/// ordinary edit primitives (validation, editor tracking, tombstones, R-tree).
struct SyncUploadSession {
    let editor: EditSession
    let replicaId: String

    private var db: Database { editor.db }

    func apply(_ edits: LayerEdits, to layer: StoredLayer, since: Int64) throws -> LayerEditResults {
        var results = LayerEditResults(layerId: layer.definition.id)
        for feature in edits.adds {
            results.addResults.append(editor.attempt { try upload(.add, feature: feature, key: nil, layer: layer, since: since) })
        }
        for feature in edits.updates {
            results.updateResults.append(editor.attempt { try upload(.update, feature: feature, key: nil, layer: layer, since: since) })
        }
        for key in edits.deletes {
            results.deleteResults.append(editor.attempt { try upload(.delete, feature: nil, key: key, layer: layer, since: since) })
        }
        if let attachments = edits.attachments {
            var adds: [EditResult] = []
            var updates: [EditResult] = []
            var deletes: [EditResult] = []
            for edit in attachments.adds { adds.append(editor.attempt { try uploadAttachment(edit, isAdd: true, layer: layer) }) }
            for edit in attachments.updates { updates.append(editor.attempt { try uploadAttachment(edit, isAdd: false, layer: layer) }) }
            for id in attachments.deletes { deletes.append(editor.attempt { try deleteAttachment(id, layer: layer) }) }
            results.attachmentResults = (adds, updates, deletes)
        }
        return results
    }

    // MARK: Features

    private func upload(
        _ operation: UploadOperation, feature: EditFeature?, key: FeatureKey?, layer: StoredLayer,
        since: Int64
    ) throws -> EditResult {
        let globalId = try self.globalId(of: feature, key: key, layer: layer)
        let record = try serverRecord(globalId, layer: layer)
        let decision = SyncRules.upload(operation, onto: record, since: since, replicaId: replicaId)
        // Versioned data: an update of a feature DEFAULT changed meanwhile is reconciled field
        // by field; only fields both sides changed are conflicts.
        var reconciled: (feature: EditFeature, conflicts: [JSONValue])?
        if layer.isVersioned, decision.overwritesUnseenChange, case .update = decision.action, case .row(let objectId, _, _, _) = record {
            reconciled = try reconcile(feature!, objectId: objectId, globalId: globalId, layer: layer, since: since)
        }
        if let reconciled {
            if !reconciled.conflicts.isEmpty {
                try recordConflict(operation, record: record, globalId: globalId, layer: layer, fields: .array(reconciled.conflicts))
            }
        } else if decision.overwritesUnseenChange {
            try recordConflict(operation, record: record, globalId: globalId, layer: layer)
        }
        switch decision.action {
        case .insert:
            return try editor.add(feature!, to: layer)
        case .update(let objectId):
            if let reconciled, reconciled.feature.attributes.count <= 1, reconciled.feature.geometry == nil {
                // The replica changed nothing DEFAULT does not already hold.
                return EditResult(objectId: objectId, globalId: globalId)
            }
            // The record was just read: no second lookup. An add that collides with a live
            // feature updates the feature it collides on.
            let result = try editor.update(reconciled?.feature ?? feature!, of: try existing(record, globalId: globalId), in: layer)
            if reconciled != nil {
                // A merge: DEFAULT's row now holds fields the replica has not seen. Written by
                // "merge:<replica>", it is not the replica's own write, so it comes back to it.
                try editor.run(
                    "UPDATE \(layer.tableName.quotedDatabaseIdentifier) SET outpost_replica = ? WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ?",
                    [VersionReconcile.mergeWriter(replicaId), objectId])
            }
            return result
        case .resurrect:
            let result = try editor.add(feature!, to: layer)
            if let recreation = SyncRules.recreation(replacing: record) {
                try recreate(recreation, kind: "feature", globalId: globalId, id: result.objectId, layer: layer)
            }
            return result
        case .delete:
            return try editor.delete(try existing(record, globalId: globalId), from: layer)
        case .alreadyApplied(let objectId):
            var reported = objectId
            if reported == nil, case .tombstone(let deletedObjectId, _, _, _) = record { reported = deletedObjectId }
            return EditResult(objectId: reported, globalId: globalId)
        }
    }

    private func existing(_ record: ServerRecord, globalId: String) throws -> EditSession.ExistingFeature {
        guard case .row(let objectId, let createdGen, _, _) = record else {
            throw EditSession.EditFailure(error: .missing("GlobalID \(globalId)"), globalId: globalId)
        }
        return EditSession.ExistingFeature(objectId: objectId, globalId: globalId, createdGeneration: createdGen)
    }

    private func globalId(of feature: EditFeature?, key: FeatureKey?, layer: StoredLayer) throws -> String {
        switch key {
        case .globalId(let id)?: return id
        case .objectId(let id)?: throw EditSession.EditFailure(error: .invalid("Sync deletes name GlobalIDs, not object id \(id)."))
        case nil: break
        }
        let field = layer.definition.globalIdField
        guard let value = feature?.attributes.value(forCaseInsensitiveKey: field), let text = value.stringValue,
            let id = GlobalID.normalize(text)
        else {
            throw EditSession.EditFailure(error: .invalid("Every synced feature needs its \(field) (a GUID)."))
        }
        return id
    }

    func serverRecord(_ globalId: String, layer: StoredLayer) throws -> ServerRecord {
        let definition = layer.definition
        return try record(
            globalId, table: layer.tableName, key: definition.objectIdField, globalIdColumn: definition.globalIdField,
            kind: "feature", layer: layer)
    }

    /// What the server holds for an attachment's GlobalID (its ATTACHMENTID as the object id).
    func attachmentRecord(_ globalId: String, layer: StoredLayer) throws -> ServerRecord {
        try record(globalId, table: layer.attachmentTable, key: "ATTACHMENTID", globalIdColumn: "GLOBALID", kind: "attachment", layer: layer)
    }

    private func record(
        _ globalId: String, table: String, key: String, globalIdColumn: String, kind: String,
        layer: StoredLayer
    ) throws -> ServerRecord {
        let rowSQL =
            "SELECT \(key.quotedDatabaseIdentifier), outpost_created_gen, outpost_gen, outpost_replica FROM \(table.quotedDatabaseIdentifier) WHERE \(globalIdColumn.quotedDatabaseIdentifier) = ?"
        if let row = try Row.fetchOne(try db.cachedStatement(sql: rowSQL), arguments: [globalId]) {
            return .row(objectId: row[0], createdGen: row[1], changedGen: row[2], lastWriter: row[3])
        }
        let tombstoneSQL =
            "SELECT object_id, created_generation, generation, replica_id FROM outpost_tombstones WHERE service = ? AND layer_id = ? AND kind = ? AND global_id = ?"
        if let row = try Row.fetchOne(try db.cachedStatement(sql: tombstoneSQL), arguments: [layer.serviceName, layer.definition.id, kind, globalId])
        {
            return .tombstone(objectId: row[0], createdGen: row[1], deletedGen: row[2], deletedBy: row[3])
        }
        return .absent
    }

    /// The part of an update the replica changed, against the feature at its generation
    /// (`VersionReconcile`), and the fields DEFAULT changed too (`{"field", "base", "default",
    /// "replica"}` each).
    private func reconcile(
        _ feature: EditFeature, objectId: Int64, globalId: String, layer: StoredLayer, since: Int64
    ) throws
        -> (feature: EditFeature, conflicts: [JSONValue])
    {
        let definition = layer.definition
        let update = VersionedUpdate(feature, layer: definition)
        var edit: [(String, DatabaseValue)] = update.fields.map { ($0.field.name, $0.value.databaseValue) }
        let shape = StoredLayer.geometryColumn
        if layer.isSpatial, let geometry = feature.geometry {
            edit.append((shape, try editor.storedGeometry(geometry, layer: layer, globalId: globalId)))
        }
        let columns = edit.map(\.0)
        guard !columns.isEmpty else { return (feature, []) }
        let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let t = layer.tableName.quotedDatabaseIdentifier
        func values(_ row: Row?) -> [String: DatabaseValue]? {
            row.map { row in Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, row[$0] as DatabaseValue) }) }
        }
        // Cached: an upload repeats the same column set for thousands of features.
        let current =
            values(
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(list) FROM \(t) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?"),
                    arguments: [objectId])) ?? [:]
        let base = values(
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(list) FROM \(layer.historyTable.quotedDatabaseIdentifier)
                        WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ? AND outpost_gen <= ? AND outpost_valid_to > ?
                        ORDER BY outpost_gen DESC LIMIT 1
                        """), arguments: [objectId, since, since]))
        let outcome = VersionReconcile.reconcile(base: base, current: current, edit: edit)
        let reduced = update.reduced(feature, writing: outcome.write, globalIdField: definition.globalIdField, globalId: globalId)
        let editValues = Dictionary(uniqueKeysWithValues: edit)
        let conflicts: [JSONValue] = outcome.conflicts.map { field in
            func json(_ value: DatabaseValue?) -> JSONValue {
                guard let value else { return .null }
                if field == shape, let blob = Data.fromDatabaseValue(value), let ogc = try? SpatiaLiteBlob.decode([UInt8](blob)) {
                    return Geometry(ogc: ogc, layerType: definition.geometryType).esriJSON
                }
                return SpatiaLiteFeatures.jsonValue(value)
            }
            return ["field": .string(field), "base": json(base?[field]), "default": json(current[field]), "replica": json(editValues[field])]
        }
        return (reduced, conflicts)
    }

    /// Copies what the upload is about to overwrite into the conflict log: the live feature
    /// (attributes and geometry as stored), or the delete it undoes; for a reconciled update,
    /// the fields both sides changed.
    private func recordConflict(
        _ operation: UploadOperation, record: ServerRecord, globalId: String, layer: StoredLayer,
        fields: JSONValue? = nil
    ) throws {
        var objectId: Int64?
        var overwrittenGeneration: Int64 = 0
        var overwrittenBy: String?
        var kind = "update"
        var featureText: String?
        switch record {
        case .absent:
            return
        case .row(let id, _, let changedGen, let lastWriter):
            objectId = id
            overwrittenGeneration = changedGen
            overwrittenBy = lastWriter
            featureText = try SpatiaLiteSync.featureJSON(objectId: id, layer: layer, db: db)?.jsonText
        case .tombstone(let id, _, let deletedGen, let deletedBy):
            objectId = id
            overwrittenGeneration = deletedGen
            overwrittenBy = deletedBy
            kind = "delete"
        }
        try db.execute(
            sql: """
                INSERT INTO outpost_conflicts(service, replica_id, layer_id, global_id, object_id, upload_operation, overwritten_change,
                    overwritten_generation, overwritten_by, feature, generation, recorded_at, fields)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                layer.serviceName, replicaId, layer.definition.id, globalId, objectId, "\(operation)", kind,
                overwrittenGeneration, overwrittenBy, featureText, editor.generation, editor.moment, fields?.jsonText,
            ])
    }

    // MARK: Attachments

    /// An attachment add or update, decided by `SyncRules.uploadAttachment` (last in wins, by
    /// GlobalID).
    private func uploadAttachment(_ edit: AttachmentEdit, isAdd: Bool, layer: StoredLayer) throws -> EditResult {
        let record = try attachmentRecord(edit.globalId, layer: layer)
        let action = SyncRules.uploadAttachment(
            isAdd ? .add : .update, onto: record,
            carriesParentAndBytes: edit.parentGlobalId != nil && edit.source != nil, replicaId: replicaId)
        switch action {
        case .alreadyApplied(let id):
            return EditResult(objectId: id, globalId: edit.globalId)
        case .update, .missing:
            // A missing attachment fails there, as an online update of it would.
            return try editor.updateAttachment(edit, in: layer)
        case .insert, .recreate:
            let result = try editor.addAttachment(edit, to: layer)
            if let recreation = SyncRules.recreation(replacing: record) {
                try recreate(recreation, kind: "attachment", globalId: edit.globalId, id: result.objectId, layer: layer)
            }
            return result
        case .delete:
            return try editor.deleteAttachment(edit.globalId, from: layer)
        }
    }

    /// A delete of an attachment that is already gone succeeds (a retry, or deleted on both sides).
    private func deleteAttachment(_ globalId: String, layer: StoredLayer) throws -> EditResult {
        switch SyncRules.uploadAttachment(
            .delete, onto: try attachmentRecord(globalId, layer: layer), carriesParentAndBytes: false,
            replicaId: replicaId)
        {
        case .alreadyApplied(let id): return EditResult(objectId: id, globalId: globalId)
        default: return try editor.deleteAttachment(globalId, from: layer)
        }
    }

    /// Carries out a `Recreation`: the re-created row (by `id`) keeps the tombstone's creation
    /// generation, and the tombstone goes.
    private func recreate(_ recreation: Recreation, kind: String, globalId: String, id: Int64?, layer: StoredLayer) throws {
        if let id {
            let (table, key) = kind == "feature" ? (layer.tableName, layer.definition.objectIdField) : (layer.attachmentTable, "ATTACHMENTID")
            try db.execute(
                sql: "UPDATE \(table.quotedDatabaseIdentifier) SET outpost_created_gen = ? WHERE \(key.quotedDatabaseIdentifier) = ?",
                arguments: [recreation.createdGeneration, id])
        }
        if recreation.removesTombstone {
            try db.execute(
                sql: "DELETE FROM outpost_tombstones WHERE service = ? AND layer_id = ? AND kind = ? AND global_id = ?",
                arguments: [layer.serviceName, layer.definition.id, kind, globalId])
        }
    }
}

extension SpatiaLiteSync {
    /// One stored feature as Esri JSON (`attributes` as stored, `geometry` in the layer's
    /// spatial reference), or nil.
    static func featureJSON(objectId: Int64, layer: StoredLayer, db: Database) throws -> JSONValue? {
        let definition = layer.definition
        var columns = definition.fields.map { $0.name.quotedDatabaseIdentifier }
        if layer.isSpatial { columns.append(StoredLayer.geometryColumn.quotedDatabaseIdentifier) }
        guard
            let row = try Row.fetchOne(
                db,
                sql:
                    "SELECT \(columns.joined(separator: ", ")) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?",
                arguments: [objectId])
        else { return nil }
        var attributes = JSONObject()
        for (index, field) in definition.fields.enumerated() {
            attributes[field.name] = SpatiaLiteFeatures.jsonValue(row[index] as DatabaseValue)
        }
        var feature: JSONObject = ["attributes": .object(attributes)]
        if layer.isSpatial, let blob: Data = row[definition.fields.count], !blob.isEmpty {
            let geometry = Geometry(ogc: try SpatiaLiteBlob.decode([UInt8](blob)), layerType: definition.geometryType)
            var w = JSONWriter()
            geometry.writeEsriJSON(to: &w)
            if var object = (try? JSONParser.parse(w.string))?.objectValue {
                object["spatialReference"] = ["wkid": .int(Int64(layer.srid))]
                feature["geometry"] = .object(object)
            }
        }
        return .object(feature)
    }
}
