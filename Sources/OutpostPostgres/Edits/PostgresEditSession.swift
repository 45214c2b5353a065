import OutpostGeometry
import OutpostStorage
import OutpostWire

extension SQLValue: PostgresEncodable {
    public var postgresValue: PostgresValue {
        switch self {
        case .null: .null
        case .integer(let value): value.postgresValue
        case .real(let value): value.postgresValue
        case .text(let value): .text(value)
        case .blob(let bytes): .binary(bytes)
        }
    }
}

/// A column's new value: a plain value, or a geometry made by PostGIS from WKB (and
/// reprojected there when it came in another spatial reference).
enum PostgresColumnValue {
    case value(PostgresValue)
    case geometry(wkb: [UInt8], srid: Int, layerSRID: Int)

    /// The SQL for the value's placeholders, its parameters appended to `binds`.
    func placeholder(_ binds: inout [PostgresValue]) -> String {
        switch self {
        case .value(let value):
            binds.append(value)
            return "$\(binds.count)"
        case .geometry(let wkb, let srid, let layerSRID):
            binds.append(.binary(wkb))
            let made = "ST_GeomFromWKB($\(binds.count), \(srid))"
            return srid == layerSRID ? made : "ST_Transform(\(made), \(layerSRID))"
        }
    }
}

/// One transaction's worth of feature edits on PostgreSQL: the rules of the SpatiaLite
/// `EditSession` (the same `EditResult`s for the same edits), over a connection inside a
/// transaction. Each edit runs in a savepoint, because PostgreSQL aborts the whole
/// transaction on an error: a failed edit is rolled back alone and the others go on, to be
/// committed or (with `rollbackOnFailure`) rolled back together by the caller.
struct PostgresEditSession {
    let connection: PostgresConnection
    let moment: Int64
    let context: EditContext
    let options: EditOptions
    /// Each edit in a savepoint (two more round trips each). Without, the first failing edit
    /// ends the attempt (`NeedsSavepoints`) and the caller runs the request again with them:
    /// requests that succeed, nearly all, pay nothing for the rare one that does not.
    var usesSavepoints = false
    /// Writes held back to go in one pipeline (fast path of bulk requests only; see `PendingWrites`).
    var pending: PendingWrites?
    /// Attachment bytes put in place before the transaction, by attachment GlobalID.
    var preparedFiles: [String: PreparedAttachmentFile] = [:]
    /// The attachment files this attempt registered, and the ones it lets go at commit.
    let fileChanges = AttachmentFileChanges()

    /// Whether writes are held back now: never with savepoints, whose point is to answer each edit.
    var holdsWrites: Bool { pending != nil && !usesSavepoints }

    /// An edit failed in a session without savepoints: run the transaction again with them.
    struct NeedsSavepoints: Error {}

    struct EditFailure: Error {
        var error: EditError
        var objectId: Int64?
        var globalId: String?
    }

    struct ExistingFeature {
        var objectId: Int64
        var globalId: String
        var createdStamp: Int64
        var createdBy: String?
    }

    func apply(_ edits: LayerEdits, to layer: StoredLayer) throws -> LayerEditResults {
        var results = LayerEditResults(layerId: layer.definition.id)
        for feature in edits.adds { results.addResults.append(try attempt { try add(feature, to: layer) }) }
        for feature in edits.updates { results.updateResults.append(try attempt { try update(feature, in: layer) }) }
        var keys = edits.deletes
        if let query = edits.deleteQuery {
            // Found in this transaction, after its adds and updates, as on SpatiaLite.
            var idsOnly = query
            idsOnly.returnIdsOnly = true
            do {
                if case .objectIds(let ids) = try PostgresFeatures.answer(idsOnly, layer: layer, connection: connection) {
                    keys.append(contentsOf: ids.map(FeatureKey.objectId))
                }
            } catch let error as PostgresError where error.kind == .statement && ["22", "42"].contains(error.sqlState?.prefix(2) ?? "") {
                throw StorageRefusal.invalidClause(error.message, in: .whereClause)
            }
        }
        for key in keys { results.deleteResults.append(try attempt { try delete(key, from: layer) }) }
        if let attachments = edits.attachments { results.attachmentResults = try apply(attachments, to: layer) }
        return results
    }

    /// Runs one edit in a savepoint; its failure becomes its result. A lost connection is
    /// not an edit's failure: it ends the whole request.
    func attempt(_ body: () throws -> EditResult) throws -> EditResult {
        guard usesSavepoints else {
            do { return try body() } catch let error as PostgresError where error.kind == .connection { throw error } catch {
                throw NeedsSavepoints()
            }
        }
        try connection.execute("SAVEPOINT outpost_edit")
        do {
            let result = try body()
            try connection.execute("RELEASE SAVEPOINT outpost_edit")
            return result
        } catch let error as PostgresError where error.kind == .connection {
            throw error
        } catch {
            try connection.execute("ROLLBACK TO SAVEPOINT outpost_edit")
            switch error {
            case let failure as EditFailure: return EditResult(objectId: failure.objectId, globalId: failure.globalId, error: failure.error)
            case let refused as PostgresError where refused.sqlState?.hasPrefix("23") == true:
                return EditResult(objectId: nil, globalId: nil, error: .invalid("Constraint violated: \(refused.message)"))
            default: return EditResult(objectId: nil, globalId: nil, error: EditError(code: 1000, description: "\(error)"))
            }
        }
    }

    // MARK: Adds

    /// `extra`: more columns to set (a named version's rows carry their version).
    func add(_ feature: EditFeature, to layer: StoredLayer, extra: [String: PostgresValue] = [:]) throws -> EditResult {
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
        let id = globalId ?? GlobalID.make()
        var values = try attributeValues(definition.addingSubtypeDefaults(to: feature.attributes), layer: layer, globalId: id)
        for field in definition.fields where !field.nullable && field.type != .oid && field.type != .globalID && field.editable {
            if values[field.name] == nil || values[field.name]?.isNull == true, case .null = field.defaultValue {
                throw EditFailure(error: .invalid("Field '\(field.name)' is required."), globalId: id)
            }
        }
        if let tracking = definition.editFieldsInfo {
            values[tracking.creationDateField] = .value(moment.postgresValue)
            values[tracking.creatorField] = .value(context.editor.postgresValue)
            values[tracking.editDateField] = .value(moment.postgresValue)
            values[tracking.editorField] = .value(context.editor.postgresValue)
        }
        values[definition.globalIdField] = .value(.text(id))
        if layer.isSpatial, let geometry = feature.geometry {
            values[StoredLayer.geometryColumn] = try storedGeometry(geometry, layer: layer, globalId: id)
        } else if !layer.isSpatial, feature.geometry != nil {
            throw EditFailure(error: .invalid("\(definition.name) is a table: features have no geometry."), globalId: id)
        }
        values["outpost_replica"] = .value(context.replicaId.postgresValue)
        values["outpost_created_by"] = .value(context.replicaId.postgresValue)
        for field in definition.fields where values[field.name] == nil && field.type != .oid {
            if case .null = field.defaultValue { continue }
            if let value = try? FieldValue.coerce(field.defaultValue, for: field) { values[field.name] = .value(value.postgresValue) }
        }
        for (column, value) in extra { values[column] = .value(value) }
        let held = holdsWrites ? try pending!.nextObjectId(layer, connection: connection) : nil
        if let held { values[definition.objectIdField] = .value(held.postgresValue) }
        let columns = values.keys.sorted()
        var binds: [PostgresValue] = []
        let placeholders = columns.map { values[$0]!.placeholder(&binds) }
        let sql = """
            INSERT INTO \(PostgresQuery.quoted(identifier: layer.tableName)) (\(columns.map(PostgresQuery.quoted(identifier:)).joined(separator: ", ")))
            VALUES (\(placeholders.joined(separator: ", ")))
            """
        if let held {
            pending!.queries.append(PostgresQuery(unsafeSQL: sql, binds: binds))
            return EditResult(objectId: held, globalId: id)
        }
        do {
            let returning = " RETURNING \(PostgresQuery.quoted(identifier: definition.objectIdField))"
            let objectId = try connection.query(PostgresQuery(unsafeSQL: sql + returning, binds: binds)).first?.int64(0)
            return EditResult(objectId: objectId, globalId: id)
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw EditFailure(error: .duplicateGlobalID(id), globalId: id)
        }
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
        // Held writes, and a check that needs the stored subtype, read the row first.
        guard !holdsWrites, !definition.needsStoredSubtype(toCheck: feature.attributes) else {
            return try update(feature, of: try find(key, in: layer), in: layer)
        }
        // One statement finds and changes the row; only a refused edit reads it first, to
        // answer with its ids as the SpatiaLite session does.
        var keyGlobalId: String?
        if case .globalId(let id) = key { keyGlobalId = id }
        var (assignments, binds): (String, [PostgresValue])
        do {
            (assignments, binds) = try self.assignments(feature, in: layer, globalId: keyGlobalId ?? "")
        } catch let failure as EditFailure {
            let existing = try find(key, in: layer)
            throw EditFailure(error: failure.error, objectId: existing.objectId, globalId: existing.globalId)
        }
        let oid = PostgresQuery.quoted(identifier: definition.objectIdField)
        let gid = PostgresQuery.quoted(identifier: definition.globalIdField)
        switch key {
        case .objectId(let id): binds.append(id.postgresValue)
        case .globalId(let id): binds.append(.text(id))
        }
        let keyColumn = keyGlobalId == nil ? oid : gid
        guard
            let row = try connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "UPDATE \(PostgresQuery.quoted(identifier: layer.tableName)) SET \(assignments) WHERE \(keyColumn) = $\(binds.count) RETURNING \(oid), \(gid)",
                    binds: binds)
            ).first
        else { return try update(feature, of: try find(key, in: layer), in: layer) }
        return EditResult(objectId: try row.required(0, row.int64), globalId: try row.required(1, row.string))
    }

    func update(_ feature: EditFeature, of existing: ExistingFeature, in layer: StoredLayer) throws -> EditResult {
        let stored = try storedSubtype(for: feature.attributes, objectId: existing.objectId, in: layer)
        var (assignments, binds) = try self.assignments(
            feature, in: layer, globalId: existing.globalId, objectId: existing.objectId, storedSubtype: stored)
        binds.append(existing.objectId.postgresValue)
        try write(
            PostgresQuery(
                unsafeSQL:
                    "UPDATE \(PostgresQuery.quoted(identifier: layer.tableName)) SET \(assignments) WHERE \(PostgresQuery.quoted(identifier: layer.definition.objectIdField)) = $\(binds.count)",
                binds: binds))
        return EditResult(objectId: existing.objectId, globalId: existing.globalId)
    }

    /// The SET list of an update and its parameters, the edit checked first.
    func assignments(
        _ feature: EditFeature, in layer: StoredLayer, globalId: String, objectId: Int64? = nil, storedSubtype: Int64? = nil
    ) throws -> (
        String, [PostgresValue]
    ) {
        let definition = layer.definition
        var values = try attributeValues(feature.attributes, layer: layer, globalId: globalId, storedSubtype: storedSubtype)
        for field in definition.fields where !field.nullable && field.editable && field.type != .oid && field.type != .globalID {
            if values[field.name]?.isNull == true {
                throw EditFailure(error: .invalid("Field '\(field.name)' is required."), objectId: objectId, globalId: globalId)
            }
        }
        if let tracking = definition.editFieldsInfo {
            values[tracking.editDateField] = .value(moment.postgresValue)
            values[tracking.editorField] = .value(context.editor.postgresValue)
        }
        if layer.isSpatial, let geometry = feature.geometry {
            values[StoredLayer.geometryColumn] = try storedGeometry(geometry, layer: layer, globalId: globalId)
        }
        values["outpost_replica"] = .value(context.replicaId.postgresValue)
        let columns = values.keys.sorted()
        var binds: [PostgresValue] = []
        let assignments = columns.map { "\(PostgresQuery.quoted(identifier: $0)) = \(values[$0]!.placeholder(&binds))" }
        return (assignments.joined(separator: ", "), binds)
    }

    // MARK: Deletes

    func delete(_ existing: ExistingFeature, from layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        try write(
            """
            INSERT INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id, created_xid, created_by, replica_id)
            VALUES (\(layer.serviceName), \(definition.id), 'feature', \(existing.globalId), \(existing.objectId), \(String?.none),
                \(existing.createdStamp), \(existing.createdBy), \(context.replicaId))
            ON CONFLICT (service, layer_id, kind, global_id) DO UPDATE SET object_id = EXCLUDED.object_id,
                created_xid = EXCLUDED.created_xid, created_by = EXCLUDED.created_by, outpost_xid = \(unescaped: GenerationTicks.stamp), replica_id = EXCLUDED.replica_id
            """)
        try write(
            PostgresQuery(
                unsafeSQL:
                    "DELETE FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(PostgresQuery.quoted(identifier: definition.objectIdField)) = $1",
                binds: [existing.objectId.postgresValue]))
        try deleteAttachments(ofFeature: existing.globalId, in: layer)
        return EditResult(objectId: existing.objectId, globalId: existing.globalId)
    }

    /// An online delete: the row removed and its tombstone written by one statement; a key
    /// that names no row is answered as `find` answers it.
    func delete(_ key: FeatureKey, from layer: StoredLayer) throws -> EditResult {
        guard !holdsWrites else { return try delete(try find(key, in: layer), from: layer) }
        let definition = layer.definition
        let oid = PostgresQuery.quoted(identifier: definition.objectIdField)
        let gid = PostgresQuery.quoted(identifier: definition.globalIdField)
        var binds: [PostgresValue] = [.text(layer.serviceName), definition.id.postgresValue, context.replicaId.postgresValue]
        switch key {
        case .objectId(let id): binds.append(id.postgresValue)
        case .globalId(let id): binds.append(.text(id))
        }
        let keyColumn = if case .globalId = key { gid } else { oid }
        let sql = """
            WITH gone AS (DELETE FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(keyColumn) = $4
                RETURNING \(oid) AS object_id, \(gid) AS global_id, outpost_created_xid, outpost_created_by)
            INSERT INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id, created_xid, created_by, replica_id)
            SELECT $1, $2, 'feature', global_id, object_id, NULL, outpost_created_xid, outpost_created_by, $3 FROM gone
            ON CONFLICT (service, layer_id, kind, global_id) DO UPDATE SET object_id = EXCLUDED.object_id,
                created_xid = EXCLUDED.created_xid, created_by = EXCLUDED.created_by, outpost_xid = \(GenerationTicks.stamp),
                replica_id = EXCLUDED.replica_id
            RETURNING object_id, global_id
            """
        guard let row = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds)).first else {
            return try delete(try find(key, in: layer), from: layer)
        }
        let globalId = try row.required(1, row.string)
        try deleteAttachments(ofFeature: globalId, in: layer)
        return EditResult(objectId: try row.required(0, row.int64), globalId: globalId)
    }

    // MARK: Shared

    /// Runs a write whose answer nothing reads, or holds it back for the pipeline.
    func write(_ query: PostgresQuery) throws {
        if holdsWrites { pending!.queries.append(query) } else { try connection.query(query) }
    }

    /// Sends the writes held back. A refused one (a constraint, a GlobalID another writer
    /// inserted meanwhile) cannot be told apart from the others here: the request runs again
    /// with savepoints, which answer each edit.
    func flush() throws {
        guard holdsWrites, !pending!.queries.isEmpty else { return }
        let queries = pending!.queries
        pending!.queries = []
        do { try connection.pipeline(queries) } catch let error as PostgresError where error.kind == .statement { throw NeedsSavepoints() }
    }

    func find(_ key: FeatureKey, in layer: StoredLayer) throws -> ExistingFeature {
        let definition = layer.definition
        let oid = PostgresQuery.quoted(identifier: definition.objectIdField)
        let gid = PostgresQuery.quoted(identifier: definition.globalIdField)
        let select = "SELECT \(oid), \(gid), outpost_created_xid, outpost_created_by FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE"
        let row: PostgresRow?
        switch key {
        case .objectId(let id): row = try connection.query(PostgresQuery(unsafeSQL: "\(select) \(oid) = $1", binds: [id.postgresValue])).first
        case .globalId(let id): row = try connection.query(PostgresQuery(unsafeSQL: "\(select) \(gid) = $1", binds: [.text(id)])).first
        }
        guard let row else {
            switch key {
            case .objectId(let id): throw EditFailure(error: .missing("\(definition.objectIdField) \(id)"), objectId: id)
            case .globalId(let id): throw EditFailure(error: .missing("\(definition.globalIdField) \(id)"), globalId: id)
            }
        }
        return ExistingFeature(
            objectId: try row.required(0, row.int64), globalId: try row.required(1, row.string), createdStamp: try row.required(2, row.int64),
            createdBy: row.string(3))
    }

    /// Validated column values for the attributes an edit sends (`LayerDefinition.checkedValues`).
    func attributeValues(
        _ attributes: JSONObject, layer: StoredLayer, globalId: String, storedSubtype: Int64? = nil
    ) throws -> [String: PostgresColumnValue] {
        do {
            return try layer.definition.checkedValues(attributes, storedSubtype: storedSubtype).mapValues { .value($0.postgresValue) }
        } catch {
            throw EditFailure(error: error, globalId: globalId)
        }
    }

    /// The subtype code a feature holds, read only when checking an update needs it.
    func storedSubtype(for attributes: JSONObject, objectId: Int64, in layer: StoredLayer) throws -> Int64? {
        let definition = layer.definition
        guard let field = definition.subtypeField, definition.needsStoredSubtype(toCheck: attributes) else { return nil }
        let sql = """
            SELECT \(PostgresQuery.quoted(identifier: field.name)) FROM \(PostgresQuery.quoted(identifier: layer.tableName))
            WHERE \(PostgresQuery.quoted(identifier: definition.objectIdField)) = $1
            """
        guard let row = try connection.query(PostgresQuery(unsafeSQL: sql, binds: [objectId.postgresValue])).first else { return nil }
        return try row.int64(0)
    }

    func storedGeometry(_ json: JSONValue, layer: StoredLayer, globalId: String) throws -> PostgresColumnValue {
        let definition = layer.definition
        guard definition.geometryType != nil else { return .value(.null) }
        do {
            let (ogc, sr) = try EditRules.storableGeometry(json, for: definition)
            return .geometry(wkb: WKB.encode(ogc), srid: sr?.epsg ?? layer.srid, layerSRID: layer.srid)
        } catch let error as GeometryError {
            throw EditFailure(error: .invalid(error.description), globalId: globalId)
        } catch let error as StoreError {
            throw EditFailure(error: .invalid(error.description), globalId: globalId)
        }
    }
}

extension PostgresColumnValue {
    var isNull: Bool {
        if case .value(.null) = self { return true }
        return false
    }
}
