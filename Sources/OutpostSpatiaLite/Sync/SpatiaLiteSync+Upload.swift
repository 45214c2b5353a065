import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension SpatiaLiteSync {
    /// A sync upload's transaction (`SyncStore.runSyncUpload`): an edit transaction shared
    /// with `applyEdits` (`runEditTransaction`: the layers checked, attachment bytes put in
    /// place first), one generation stamped with the replica's id. The store's one writer runs
    /// uploads one after the other.
    public func runSyncUpload(
        _ plan: SyncPlan, editor: String?, _ body: (any SyncUploadTransaction) throws -> SyncUploadOutcome
    ) throws -> SyncUploadOutcome {
        var outcome: SyncUploadOutcome?
        _ = try edits.runEditTransaction(
            service: plan.replica.serviceName, edits: plan.uploadedLayers.compactMap(\.edits), options: plan.uploadOptions,
            context: plan.uploadContext(editor: editor)
        ) { session, layers in
            let applied = try body(SpatiaLiteUploadTransaction(editor: session, replicaId: plan.replica.id, layers: layers))
            outcome = applied
            return applied.results
        }
        // The transaction returned, so `body` ran and returned.
        return outcome!
    }
}

/// A sync upload's transaction on SpatiaLite: the `EditSession`'s, and the receipts.
struct SpatiaLiteUploadTransaction: SyncUploadTransaction {
    let editor: EditSession
    let replicaId: String
    let layers: [StoredLayer]

    private var db: Database { editor.db }

    func receipt(fingerprint: [UInt8]) throws -> [LayerEditResults]? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT fingerprint, results FROM outpost_sync_receipts WHERE replica_id = ?", arguments: [replicaId]),
            (row["fingerprint"] as Data?) == Data(fingerprint),
            let text: String = row["results"], case .array(let items)? = try? JSONParser.parse(text)
        else { return nil }
        let results = items.compactMap(LayerEditResults.init(json:))
        return results.count == items.count ? results : nil
    }

    /// One writer: each record is read when its edit is decided, none up front.
    func records(of layer: StoredLayer, for layerPlan: SyncLayerPlan, globalIds: () -> [String]) -> any SyncUploadRecords {
        SpatiaLiteUploadRecords(editor: editor, replicaId: replicaId, layer: layer, since: layerPlan.since)
    }

    func attempt(_ edit: () throws -> EditResult) -> EditResult {
        editor.attempt {
            do { return try edit() } catch let failure as SyncEditFailure {
                throw EditSession.EditFailure(error: failure.error, objectId: failure.objectId, globalId: failure.globalId)
            }
        }
    }

    func saveReceipt(fingerprint: [UInt8], results: [LayerEditResults]) throws -> Int64 {
        let text = JSONValue.array(results.map { $0.json(includeLayerId: true) }).jsonText
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO outpost_sync_receipts(replica_id, fingerprint, generation, results, recorded_at)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [replicaId, Data(fingerprint), editor.generation, text, editor.moment])
        return editor.generation
    }

    func conflictsRecorded(generation: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_conflicts WHERE generation = ?", arguments: [generation]) ?? 0
    }
}

/// One layer's records in a SpatiaLite sync upload, read by GlobalID from the layer's table
/// (generation columns), then its tombstones, and written with the `EditSession`'s primitives.
struct SpatiaLiteUploadRecords: SyncUploadRecords {
    let editor: EditSession
    let replicaId: String
    let layer: StoredLayer
    let since: Int64

    /// The record alone: its generations are the stamps.
    struct Held: HeldRecord {
        var record: ServerRecord
    }

    private var db: Database { editor.db }

    func read(_ globalId: String, _ kind: SyncRecordKind) throws -> Held {
        let definition = layer.definition
        let (table, key, globalIdColumn) =
            kind == .feature
            ? (layer.tableName, definition.objectIdField, definition.globalIdField) : (layer.attachmentTable, "ATTACHMENTID", "GLOBALID")
        let row =
            "SELECT \(key.quotedDatabaseIdentifier), outpost_created_gen, outpost_gen, outpost_replica FROM \(table.quotedDatabaseIdentifier) WHERE \(globalIdColumn.quotedDatabaseIdentifier) = ?"
        if let row = try editor.fetchRow(row, [globalId]) {
            return Held(record: .row(objectId: row[0], createdGen: row[1], changedGen: row[2], lastWriter: row[3]))
        }
        let tombstone =
            "SELECT object_id, created_generation, generation, replica_id FROM outpost_tombstones WHERE service = ? AND layer_id = ? AND kind = ? AND global_id = ?"
        if let row = try editor.fetchRow(tombstone, [layer.serviceName, definition.id, kind.rawValue, globalId]) {
            return Held(record: .tombstone(objectId: row[0], createdGen: row[1], deletedGen: row[2], deletedBy: row[3]))
        }
        return Held(record: .absent)
    }

    func insert(_ feature: EditFeature, globalId: String, over held: Held) throws -> EditResult {
        try editor.add(feature, to: layer)
    }

    /// The record was just read: no second lookup.
    func update(_ feature: EditFeature, of held: Held, globalId: String) throws -> EditResult {
        try editor.update(feature, of: try existing(held, globalId: globalId), in: layer)
    }

    func setLastWriter(_ writer: String, of objectId: Int64) throws {
        try editor.run(
            "UPDATE \(layer.tableName.quotedDatabaseIdentifier) SET outpost_replica = ? WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ?",
            [writer, objectId])
    }

    func delete(_ held: Held, globalId: String) throws -> EditResult {
        try editor.delete(try existing(held, globalId: globalId), from: layer)
    }

    private func existing(_ held: Held, globalId: String) throws -> EditSession.ExistingFeature {
        guard case .row(let objectId, let createdGen, _, _) = held.record else {
            throw EditSession.EditFailure(error: .missing("GlobalID \(globalId)"), globalId: globalId)
        }
        return EditSession.ExistingFeature(objectId: objectId, globalId: globalId, createdGeneration: createdGen)
    }

    func recreate(_ recreation: Recreation, of kind: SyncRecordKind, replacing held: Held, id: Int64?, globalId: String) throws {
        if let id {
            let (table, key) = kind == .feature ? (layer.tableName, layer.definition.objectIdField) : (layer.attachmentTable, "ATTACHMENTID")
            try editor.run(
                "UPDATE \(table.quotedDatabaseIdentifier) SET outpost_created_gen = ? WHERE \(key.quotedDatabaseIdentifier) = ?",
                [recreation.createdGeneration, id])
        }
        if recreation.removesTombstone {
            try editor.run(
                "DELETE FROM outpost_tombstones WHERE service = ? AND layer_id = ? AND kind = ? AND global_id = ?",
                [layer.serviceName, layer.definition.id, kind.rawValue, globalId])
        }
    }

    func fieldStates(_ update: VersionedUpdate, of feature: EditFeature, objectId: Int64, globalId: String) throws -> SpatiaLiteFieldStates {
        let definition = layer.definition
        var edit: [(String, DatabaseValue)] = update.fields.map { ($0.field.name, $0.value.databaseValue) }
        if layer.isSpatial, let geometry = feature.geometry {
            edit.append((StoredLayer.geometryColumn, try editor.storedGeometry(geometry, layer: layer, globalId: globalId)))
        }
        let columns = edit.map(\.0)
        let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let oid = definition.objectIdField.quotedDatabaseIdentifier
        func values(_ row: Row?) -> [String: DatabaseValue]? {
            row.map { row in Dictionary(columns.enumerated().map { ($1, row[$0] as DatabaseValue) }, uniquingKeysWith: { first, _ in first }) }
        }
        // Cached: an upload repeats the same column set for thousands of features.
        let current = values(try editor.fetchRow("SELECT \(list) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(oid) = ?", [objectId]))
        let base = values(
            try editor.fetchRow(
                """
                SELECT \(list) FROM \(layer.historyTable.quotedDatabaseIdentifier)
                WHERE \(oid) = ? AND outpost_gen <= ? AND outpost_valid_to > ?
                ORDER BY outpost_gen DESC LIMIT 1
                """, [objectId, since, since]))
        return SpatiaLiteFieldStates(base: base, current: current ?? [:], edit: edit, layer: layer)
    }

    func recordConflict(_ operation: UploadOperation, over held: Held, globalId: String, fields: JSONValue?) throws {
        let objectId: Int64
        let overwritten: (generation: Int64, by: String?, change: String)
        var featureText: String?
        switch held.record {
        case .absent:
            return
        case .row(let id, _, let changedGen, let lastWriter):
            (objectId, overwritten) = (id, (changedGen, lastWriter, "update"))
            featureText = try SpatiaLiteSync.featureJSON(objectId: id, layer: layer, db: db)?.jsonText
        case .tombstone(let id, _, let deletedGen, let deletedBy):
            (objectId, overwritten) = (id, (deletedGen, deletedBy, "delete"))
        }
        try db.execute(
            sql: """
                INSERT INTO outpost_conflicts(service, replica_id, layer_id, global_id, object_id, upload_operation, overwritten_change,
                    overwritten_generation, overwritten_by, feature, generation, recorded_at, fields)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                layer.serviceName, replicaId, layer.definition.id, globalId, objectId, "\(operation)", overwritten.change,
                overwritten.generation, overwritten.by, featureText, editor.generation, editor.moment, fields?.jsonText,
            ])
    }

    func endFeatures() {}

    func addAttachment(_ edit: AttachmentEdit) throws -> EditResult { try editor.addAttachment(edit, to: layer) }

    func updateAttachment(_ edit: AttachmentEdit) throws -> EditResult { try editor.updateAttachment(edit, in: layer) }

    func deleteAttachment(_ globalId: String) throws -> EditResult { try editor.deleteAttachment(globalId, from: layer) }
}

/// A versioned feature's fields as SpatiaLite stores them, compared as stored values.
struct SpatiaLiteFieldStates: VersionedFieldStates {
    var base: [String: DatabaseValue]?
    var current: [String: DatabaseValue]
    var edit: [(String, DatabaseValue)]
    let layer: StoredLayer

    func json(_ field: String, in state: VersionedFieldState) -> JSONValue {
        let value: DatabaseValue? =
            switch state {
            case .base: base?[field]
            case .current: current[field]
            case .edit: edit.first { $0.0 == field }?.1
            }
        guard let value else { return .null }
        if field == StoredLayer.geometryColumn, let blob = Data.fromDatabaseValue(value), let ogc = try? SpatiaLiteBlob.decode([UInt8](blob)) {
            return Geometry(ogc: ogc, layerType: layer.definition.geometryType).esriJSON
        }
        return SpatiaLiteFeatures.jsonValue(value)
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
