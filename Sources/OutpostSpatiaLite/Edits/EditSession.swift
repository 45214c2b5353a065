import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostWire

/// One transaction's worth of edits: statements and the rules for adds, updates, deletes.
struct EditSession {
    let db: Database
    let generation: Int64
    let moment: Int64
    let context: EditContext
    let options: EditOptions
    let removals: AttachmentFileChanges
    let preparedFiles: [String: PreparedAttachmentFile]
    let cache = EditSessionCache()

    /// Runs one statement, prepared once per connection: edits repeat the same few statements
    /// thousands of times in a sync.
    func run(_ sql: String, _ arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// Keeps the row as it is before it changes, valid until this generation (versioned
    /// services): what a replica's later edit of it is reconciled against.
    func archive(_ objectId: Int64, in layer: StoredLayer) throws {
        guard layer.isVersioned else { return }
        let sql: String
        if let cached = cache.archives[layer.tableName] {
            sql = cached
        } else {
            let history = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [layer.historyTable]))
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [layer.tableName])
                .filter { history.contains($0) }.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            sql = """
                INSERT INTO \(layer.historyTable.quotedDatabaseIdentifier) (\(columns), outpost_valid_to)
                SELECT \(columns), ? FROM \(layer.tableName.quotedDatabaseIdentifier)
                WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ? AND outpost_gen < ?
                """
            cache.archives[layer.tableName] = sql
        }
        // A row already changed in this transaction was archived by its first change.
        try run(sql, [generation, objectId, generation])
    }

    func fetchRow(_ sql: String, _ arguments: StatementArguments) throws -> Row? {
        try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    func apply(_ edits: LayerEdits, to layer: StoredLayer) throws -> LayerEditResults {
        var results = LayerEditResults(layerId: layer.definition.id)
        for feature in edits.adds {
            results.addResults.append(attempt { try add(feature, to: layer) })
        }
        for feature in edits.updates {
            results.updateResults.append(attempt { try update(feature, in: layer) })
        }
        var keys = edits.deletes
        if let query = edits.deleteQuery {
            var idsOnly = query
            idsOnly.returnIdsOnly = true
            if case .objectIds(let ids) = try SpatiaLiteFeatures.answer(idsOnly, layer: layer, db: db) {
                keys.append(contentsOf: ids.map(FeatureKey.objectId))
            }
        }
        for key in keys {
            results.deleteResults.append(attempt { try delete(key, from: layer) })
        }
        if let attachments = edits.attachments {
            var adds: [EditResult] = []
            var updates: [EditResult] = []
            var deletes: [EditResult] = []
            for edit in attachments.adds { adds.append(attempt { try addAttachment(edit, to: layer) }) }
            for edit in attachments.updates { updates.append(attempt { try updateAttachment(edit, in: layer) }) }
            for id in attachments.deletes { deletes.append(attempt { try deleteAttachment(id, from: layer) }) }
            results.attachmentResults = (adds, updates, deletes)
        }
        return results
    }

    // MARK: Attachments

    func addAttachment(_ edit: AttachmentEdit, to layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        guard let parent = edit.parentGlobalId, let file = preparedFiles[edit.globalId] else {
            throw EditFailure(error: .invalid("An attachment add needs parentGlobalId and data or uploadId."), globalId: edit.globalId)
        }
        guard
            try Bool.fetchOne(
                db,
                sql:
                    "SELECT count(*) > 0 FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.globalIdField.quotedDatabaseIdentifier) = ?",
                arguments: [parent]) == true
        else {
            throw EditFailure(error: .missing("parent feature \(parent)"), globalId: edit.globalId)
        }
        if try Bool.fetchOne(
            db, sql: "SELECT count(*) > 0 FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE GLOBALID = ?", arguments: [edit.globalId])
            == true
        {
            throw EditFailure(error: .duplicateGlobalID(edit.globalId), globalId: edit.globalId)
        }
        let name = SpatiaLiteEdits.sanitizedAttachmentName(edit.name ?? file.uploadName ?? "attachment")
        try db.execute(
            sql: """
                INSERT INTO \(layer.attachmentTable.quotedDatabaseIdentifier)
                    (GLOBALID, REL_GLOBALID, CONTENT_TYPE, ATT_NAME, DATA_SIZE, KEYWORDS, DATA, DATA_PATH, outpost_created_gen, outpost_gen, outpost_replica)
                VALUES (?, ?, ?, ?, ?, ?, X'', ?, ?, ?, ?)
                """,
            arguments: [
                edit.globalId, parent, edit.contentType ?? "application/octet-stream", name, file.size, edit.keywords ?? "",
                file.path, generation, generation, context.replicaId,
            ])
        removals.registered.insert(file.path)
        return EditResult(objectId: db.lastInsertedRowID, globalId: edit.globalId)
    }

    func updateAttachment(_ edit: AttachmentEdit, in layer: StoredLayer) throws -> EditResult {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT ATTACHMENTID, DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE GLOBALID = ?",
                arguments: [edit.globalId])
        else {
            throw EditFailure(error: .missing("attachment \(edit.globalId)"), globalId: edit.globalId)
        }
        let id: Int64 = row[0]
        var assignments = ["outpost_gen = ?", "outpost_replica = ?"]
        var arguments: [DatabaseValue] = [generation.databaseValue, context.replicaId?.databaseValue ?? .null]
        if let name = edit.name {
            assignments.append("ATT_NAME = ?")
            arguments.append(SpatiaLiteEdits.sanitizedAttachmentName(name).databaseValue)
        }
        if let type = edit.contentType {
            assignments.append("CONTENT_TYPE = ?")
            arguments.append(type.databaseValue)
        }
        if let keywords = edit.keywords {
            assignments.append("KEYWORDS = ?")
            arguments.append(keywords.databaseValue)
        }
        let file = preparedFiles[edit.globalId]
        if let file {
            assignments += ["DATA = X''", "DATA_PATH = ?", "DATA_SIZE = ?"]
            arguments += [file.path.databaseValue, file.size.databaseValue]
        }
        try db.execute(
            sql: "UPDATE \(layer.attachmentTable.quotedDatabaseIdentifier) SET \(assignments.joined(separator: ", ")) WHERE ATTACHMENTID = ?",
            arguments: StatementArguments(arguments + [id.databaseValue]))
        // Only once the row points at the new file: keep it, and let the old one go at commit.
        if let file {
            removals.registered.insert(file.path)
            if let old: String = row[1] { removals.removedAtCommit.append(old) }
        }
        return EditResult(objectId: id, globalId: edit.globalId)
    }

    func deleteAttachment(_ globalId: String, from layer: StoredLayer) throws -> EditResult {
        guard
            let row = try Row.fetchOne(
                db,
                sql:
                    "SELECT ATTACHMENTID, REL_GLOBALID, outpost_created_gen, DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE GLOBALID = ?",
                arguments: [globalId])
        else {
            throw EditFailure(error: .missing("attachment \(globalId)"), globalId: globalId)
        }
        let id: Int64 = row[0]
        try tombstone(kind: "attachment", layer: layer, globalId: globalId, objectId: id, parentGlobalId: row[1], createdGeneration: row[2])
        try db.execute(sql: "DELETE FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE ATTACHMENTID = ?", arguments: [id])
        if let path: String = row[3] { removals.removedAtCommit.append(path) }
        return EditResult(objectId: id, globalId: globalId)
    }

    /// Runs one edit. Without rollbackOnFailure it runs in a savepoint, so a failure undoes
    /// that edit only; with it, any failure rolls the whole transaction back anyway.
    func attempt(_ body: () throws -> EditResult) -> EditResult {
        do {
            if options.rollbackOnFailure { return try body() }
            var result: EditResult?
            try db.inSavepoint {
                result = try body()
                return .commit
            }
            return result!
        } catch let error as EditFailure {
            return EditResult(objectId: error.objectId, globalId: error.globalId, error: error.error)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return EditResult(objectId: nil, globalId: nil, error: .invalid("Constraint violated: \(error.message ?? "")"))
        } catch {
            return EditResult(objectId: nil, globalId: nil, error: EditError(code: 1000, description: "\(error)"))
        }
    }

    struct EditFailure: Error {
        var error: EditError
        var objectId: Int64?
        var globalId: String?
    }

    // MARK: Adds

    func add(_ feature: EditFeature, to layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        var globalId: String?
        if let given = feature.attributes.value(forCaseInsensitiveKey: definition.globalIdField), !given.isNull {
            guard let text = given.stringValue, let normalized = GlobalID.normalize(text) else {
                throw EditFailure(error: .invalid("'\(given.jsonText)' is not a GlobalID."))
            }
            globalId = normalized
        } else if options.useGlobalIds {
            throw EditFailure(error: .invalid("With useGlobalIds=true every add needs its GlobalID."))
        }
        let id = globalId ?? GlobalID.make(using: &cache.generator)
        var values = try attributeValues(definition.addingSubtypeDefaults(to: feature.attributes), layer: layer, globalId: id)
        for field in definition.fields where !field.nullable && field.type != .oid && field.type != .globalID && field.editable {
            if values[field.name] == nil || values[field.name] == .null {
                if case .null = field.defaultValue {
                    throw EditFailure(error: .invalid("Field '\(field.name)' is required."), globalId: id)
                }
            }
        }
        if let tracking = definition.editFieldsInfo {
            values[tracking.creationDateField] = moment.databaseValue
            values[tracking.creatorField] = context.editor?.databaseValue ?? .null
            values[tracking.editDateField] = moment.databaseValue
            values[tracking.editorField] = context.editor?.databaseValue ?? .null
        }
        values[definition.globalIdField] = id.databaseValue
        if layer.isSpatial, let geometry = feature.geometry {
            values[StoredLayer.geometryColumn] = try storedGeometry(geometry, layer: layer, globalId: id)
        } else if !layer.isSpatial, feature.geometry != nil {
            throw EditFailure(error: .invalid("\(definition.name) is a table: features have no geometry."), globalId: id)
        }
        values["outpost_created_gen"] = generation.databaseValue
        values["outpost_gen"] = generation.databaseValue
        values["outpost_replica"] = context.replicaId?.databaseValue ?? .null
        for field in definition.fields where values[field.name] == nil && field.type != .oid {
            if case .null = field.defaultValue { continue }
            values[field.name] = try? FieldValue.coerce(field.defaultValue, for: field).databaseValue
        }
        let plan = try insertPlan(for: layer)
        var row = [DatabaseValue](repeating: .null, count: plan.columns.count)
        for (column, value) in values {
            if let index = plan.position[column] { row[index] = value }
        }
        do {
            try plan.binder.execute(row, db: db)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            if try Bool.fetchOne(
                db,
                sql:
                    "SELECT count(*) > 0 FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.globalIdField.quotedDatabaseIdentifier) = ?",
                arguments: [id]) == true
            {
                throw EditFailure(error: .duplicateGlobalID(id), globalId: id)
            }
            throw EditFailure(error: .invalid("Constraint violated: \(error.message ?? "")"), globalId: id)
        }
        return EditResult(objectId: db.lastInsertedRowID, globalId: id)
    }

    /// The layer's INSERT with every column, prepared once per transaction.
    private func insertPlan(for layer: StoredLayer) throws -> EditSessionCache.InsertPlan {
        if let plan = cache.plans[layer.tableName] { return plan }
        var columns = layer.definition.fields.filter { $0.type != .oid }.map(\.name)
        if layer.isSpatial { columns.append(StoredLayer.geometryColumn) }
        columns += ["outpost_created_gen", "outpost_gen", "outpost_replica"]
        let sql =
            "INSERT INTO \(layer.tableName.quotedDatabaseIdentifier) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        let plan = EditSessionCache.InsertPlan(
            columns: columns, position: Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) }),
            binder: RawStatementBinder(statement: try db.makeStatement(sql: sql)))
        cache.plans[layer.tableName] = plan
        return plan
    }

    // MARK: Updates

    func update(_ feature: EditFeature, in layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        let key: FeatureKey
        if options.useGlobalIds {
            guard let text = feature.attributes.value(forCaseInsensitiveKey: definition.globalIdField)?.stringValue,
                let id = GlobalID.normalize(text)
            else { throw EditFailure(error: .invalid("With useGlobalIds=true every update needs its GlobalID.")) }
            key = .globalId(id)
        } else {
            guard let oid = feature.attributes.value(forCaseInsensitiveKey: definition.objectIdField)?.int64Value else {
                throw EditFailure(error: .invalid("Every update needs its \(definition.objectIdField)."))
            }
            key = .objectId(oid)
        }
        return try update(feature, of: try find(key, in: layer), in: layer)
    }

    /// Updates a feature already looked up (a sync knows it from deciding the edit).
    func update(_ feature: EditFeature, of existing: ExistingFeature, in layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        let stored = try storedSubtype(for: feature.attributes, objectId: existing.objectId, in: layer)
        var values = try attributeValues(feature.attributes, layer: layer, globalId: existing.globalId, storedSubtype: stored)
        for field in definition.fields where !field.nullable && field.editable && field.type != .oid && field.type != .globalID {
            if values[field.name] == .null {
                throw EditFailure(error: .invalid("Field '\(field.name)' is required."), objectId: existing.objectId, globalId: existing.globalId)
            }
        }
        if let tracking = definition.editFieldsInfo {
            values[tracking.editDateField] = moment.databaseValue
            values[tracking.editorField] = context.editor?.databaseValue ?? .null
        }
        if layer.isSpatial, let geometry = feature.geometry {
            values[StoredLayer.geometryColumn] = try storedGeometry(geometry, layer: layer, globalId: existing.globalId)
        }
        values["outpost_gen"] = generation.databaseValue
        values["outpost_replica"] = context.replicaId?.databaseValue ?? .null
        try archive(existing.objectId, in: layer)
        // Sorted: one statement text (and one prepared statement) per set of columns.
        let columns = values.keys.sorted()
        try run(
            "UPDATE \(layer.tableName.quotedDatabaseIdentifier) SET \(columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?",
            StatementArguments(columns.map { values[$0]! } + [existing.objectId.databaseValue]))
        return EditResult(objectId: existing.objectId, globalId: existing.globalId)
    }

    // MARK: Deletes

    func delete(_ key: FeatureKey, from layer: StoredLayer) throws -> EditResult {
        try delete(try find(key, in: layer), from: layer)
    }

    /// Deletes a feature already looked up.
    func delete(_ existing: ExistingFeature, from layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        try archive(existing.objectId, in: layer)
        try tombstone(
            kind: "feature", layer: layer, globalId: existing.globalId, objectId: existing.objectId,
            parentGlobalId: nil, createdGeneration: existing.createdGeneration)
        if definition.hasAttachments {
            let attachments = try Row.fetchAll(
                db,
                sql:
                    "SELECT ATTACHMENTID, GLOBALID, outpost_created_gen, DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE REL_GLOBALID = ?",
                arguments: [existing.globalId])
            for attachment in attachments {
                if let path: String = attachment[3] { removals.removedAtCommit.append(path) }
                try tombstone(
                    kind: "attachment", layer: layer, globalId: attachment[1], objectId: attachment[0],
                    parentGlobalId: existing.globalId, createdGeneration: attachment[2])
            }
            try db.execute(
                sql: "DELETE FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE REL_GLOBALID = ?", arguments: [existing.globalId])
        }
        try run(
            "DELETE FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?",
            [existing.objectId])
        return EditResult(objectId: existing.objectId, globalId: existing.globalId)
    }

    private func tombstone(
        kind: String, layer: StoredLayer, globalId: String, objectId: Int64, parentGlobalId: String?,
        createdGeneration: Int64
    ) throws {
        try run(
            """
            INSERT OR REPLACE INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id,
                created_generation, generation, replica_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                layer.serviceName, layer.definition.id, kind, globalId, objectId, parentGlobalId,
                createdGeneration, generation, context.replicaId,
            ])
    }

    // MARK: Shared

    struct ExistingFeature {
        var objectId: Int64
        var globalId: String
        var createdGeneration: Int64
    }

    private func find(_ key: FeatureKey, in layer: StoredLayer) throws -> ExistingFeature {
        let definition = layer.definition
        let oid = definition.objectIdField.quotedDatabaseIdentifier
        let gid = definition.globalIdField.quotedDatabaseIdentifier
        let row: Row?
        let description: String
        switch key {
        case .objectId(let id):
            description = "\(definition.objectIdField) \(id)"
            row = try fetchRow("SELECT \(oid), \(gid), outpost_created_gen FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(oid) = ?", [id])
        case .globalId(let id):
            description = "\(definition.globalIdField) \(id)"
            row = try fetchRow("SELECT \(oid), \(gid), outpost_created_gen FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(gid) = ?", [id])
        }
        guard let row else {
            switch key {
            case .objectId(let id): throw EditFailure(error: .missing(description), objectId: id)
            case .globalId(let id): throw EditFailure(error: .missing(description), globalId: id)
            }
        }
        return ExistingFeature(objectId: row[0], globalId: row[1], createdGeneration: row[2])
    }

    /// Validated column values for the attributes an edit sends (`LayerDefinition.checkedValues`).
    func attributeValues(
        _ attributes: JSONObject, layer: StoredLayer, globalId: String, storedSubtype: Int64? = nil
    ) throws -> [String: DatabaseValue] {
        do {
            return try layer.definition.checkedValues(attributes, storedSubtype: storedSubtype).mapValues(\.databaseValue)
        } catch {
            throw EditFailure(error: error, globalId: globalId)
        }
    }

    /// The subtype code a feature holds, read only when checking an update needs it.
    func storedSubtype(for attributes: JSONObject, objectId: Int64, in layer: StoredLayer) throws -> Int64? {
        let definition = layer.definition
        guard let field = definition.subtypeField, definition.needsStoredSubtype(toCheck: attributes) else { return nil }
        return try Int64.fetchOne(
            db,
            sql:
                "SELECT \(field.name.quotedDatabaseIdentifier) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?",
            arguments: [objectId])
    }

    func storedGeometry(_ json: JSONValue, layer: StoredLayer, globalId: String) throws -> DatabaseValue {
        let definition = layer.definition
        guard definition.geometryType != nil else { return .null }
        do {
            var (ogc, sr) = try EditRules.storableGeometry(json, for: definition)
            if let sr, sr.epsg != layer.srid {
                ogc = try SchemaRules.storable(SpatiaLiteFeatures.transform(ogc, from: sr.epsg, to: layer.srid, db: db), for: definition, row: 0)
                try EditRules.checkProjected(ogc, for: definition)
            }
            return Data(SpatiaLiteBlob.encode(ogc, srid: Int32(layer.srid))).databaseValue
        } catch let error as GeometryError {
            throw EditFailure(error: .invalid(error.description), globalId: globalId)
        } catch let error as StoreError {
            throw EditFailure(error: .invalid(error.description), globalId: globalId)
        }
    }
}
