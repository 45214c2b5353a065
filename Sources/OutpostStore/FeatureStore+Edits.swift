import Foundation
import GRDB
import OutpostGeometry
import OutpostWire

/// Who makes an edit, for editor tracking and change tracking.
public struct EditContext: Sendable, Equatable {
    /// The user name written to editor-tracking fields (nil when anonymous).
    public var editor: String?
    /// The replica whose sync made the edit (nil for online edits).
    public var replicaId: String?

    public init(editor: String? = nil, replicaId: String? = nil) {
        self.editor = editor
        self.replicaId = replicaId
    }
}

/// The answer to an `applyEdits`.
public struct EditOutcome: Sendable, Equatable {
    public var layers: [LayerEditResults]
    public var editMoment: Int64
    /// The generation the edits were stamped with; nil when nothing was committed.
    public var generation: Int64?
}

/// Attachment files of deleted features, removed once the deleting transaction commits.
final class FileRemovals {
    var paths: [String] = []
}

/// Per-transaction caches of an edit session: insert plans per layer and the GlobalID generator.
final class EditSessionCache {
    struct InsertPlan {
        var columns: [String]
        var position: [String: Int]
        var binder: RawStatementBinder
    }

    var plans: [String: InsertPlan] = [:]
    // One system-random seed per transaction (see insertRows): no getrandom call per id.
    var generator: SeededGenerator = {
        var system = SystemRandomNumberGenerator()
        return SeededGenerator(seed: system.next())
    }()
}

extension FeatureStore {
    /// Allocates the next generation in the caller's transaction: it becomes visible only
    /// when that transaction commits, together with the rows it stamps.
    static func allocateGeneration(_ db: Database, replicaId: String?) throws -> Int64 {
        try db.execute(sql: "INSERT INTO outpost_generations(created_at, replica_id) VALUES (?, ?)",
                       arguments: [Int64(Date().timeIntervalSince1970 * 1000), replicaId])
        return db.lastInsertedRowID
    }

    /// The latest committed generation.
    public func currentGeneration() throws -> Int64 {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT coalesce(max(generation), 0) FROM outpost_generations") ?? 0 }
    }

    /// Applies adds, updates and deletes to one or more layers of a service in one
    /// transaction stamped with one generation.
    ///
    /// With `rollbackOnFailure` every result fails when any edit fails (the failing edits
    /// keep their error, the others report "Operation rolled back.") and nothing is written.
    /// Without it each edit runs in its own savepoint: a failed edit leaves no trace and the
    /// others commit. Request-level problems (unknown layer, missing capability) throw.
    public func applyEdits(service serviceName: String, edits: [LayerEdits], options: EditOptions,
                           context: EditContext = EditContext()) throws -> EditOutcome
    {
        let service = try self.service(named: serviceName)
        var layers: [StoredLayer] = []
        for layerEdits in edits {
            guard let layer = service.layers.first(where: { $0.definition.id == layerEdits.layerId }) else {
                throw StoreError.layerNotFound(service: serviceName, layer: layerEdits.layerId)
            }
            try Self.checkCapabilities(service.definition, edits: layerEdits)
            layers.append(layer)
        }
        let moment = Int64(Date().timeIntervalSince1970 * 1000)
        struct RolledBack: Error { var results: [LayerEditResults] }
        do {
            let (outcome, removedFiles) = try pool.write { db -> (EditOutcome, [String]) in
                let generation = try Self.allocateGeneration(db, replicaId: context.replicaId)
                let removals = FileRemovals()
                let editor = EditSession(db: db, generation: generation, moment: moment, context: context, options: options, removals: removals)
                var results: [LayerEditResults] = []
                for (layerEdits, layer) in zip(edits, layers) {
                    results.append(try editor.apply(layerEdits, to: layer))
                }
                let failed = results.contains { $0.all.contains { !$0.success } }
                if failed && options.rollbackOnFailure {
                    throw RolledBack(results: results)
                }
                let committed = results.contains { $0.all.contains(where: \.success) }
                for layer in layers {
                    try db.execute(sql: "UPDATE outpost_layers SET last_edit_date = ? WHERE service = ? AND layer_id = ?",
                                   arguments: [moment, layer.serviceName, layer.definition.id])
                }
                return (EditOutcome(layers: results, editMoment: moment, generation: committed ? generation : nil), removals.paths)
            }
            removeDataFiles(removedFiles)
            return outcome
        } catch let rolledBack as RolledBack {
            var results = rolledBack.results
            for index in results.indices { results[index].markRolledBack() }
            return EditOutcome(layers: results, editMoment: moment, generation: nil)
        }
    }

    static func checkCapabilities(_ service: ServiceDefinition, edits: LayerEdits) throws {
        let capabilities = Set(service.capabilities.map { $0.lowercased() })
        func require(_ name: String, _ needed: Bool) throws {
            if needed && !capabilities.contains(name.lowercased()) {
                throw ArcGISError(kind: .unsupported, code: 400, message: "Unable to complete operation.",
                                  details: ["The service does not allow \(name) (capabilities: \(service.capabilities.joined(separator: ",")))."])
            }
        }
        try require("Create", !edits.adds.isEmpty)
        try require("Update", !edits.updates.isEmpty)
        try require("Delete", !edits.deletes.isEmpty || edits.deleteQuery != nil)
    }
}

/// One transaction's worth of edits: statements and the rules for adds, updates, deletes.
struct EditSession {
    let db: Database
    let generation: Int64
    let moment: Int64
    let context: EditContext
    let options: EditOptions
    let removals: FileRemovals
    let cache = EditSessionCache()

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
            if case .objectIds(let ids) = try FeatureStore.answer(idsOnly, layer: layer, db: db) {
                keys.append(contentsOf: ids.map(FeatureKey.objectId))
            }
        }
        for key in keys {
            results.deleteResults.append(attempt { try delete(key, from: layer) })
        }
        return results
    }

    /// Runs one edit. Without rollbackOnFailure it runs in a savepoint, so a failure undoes
    /// that edit only; with it, any failure rolls the whole transaction back anyway.
    private func attempt(_ body: () throws -> EditResult) -> EditResult {
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

    private func add(_ feature: EditFeature, to layer: StoredLayer) throws -> EditResult {
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
        var values = try attributeValues(feature.attributes, layer: layer, globalId: id)
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
            if try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.globalIdField.quotedDatabaseIdentifier) = ?", arguments: [id]) == true {
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
        let sql = "INSERT INTO \(layer.tableName.quotedDatabaseIdentifier) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        let plan = EditSessionCache.InsertPlan(
            columns: columns, position: Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) }),
            binder: RawStatementBinder(statement: try db.makeStatement(sql: sql)))
        cache.plans[layer.tableName] = plan
        return plan
    }

    // MARK: Updates

    private func update(_ feature: EditFeature, in layer: StoredLayer) throws -> EditResult {
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
        let existing = try find(key, in: layer)
        var values = try attributeValues(feature.attributes, layer: layer, globalId: existing.globalId)
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
        let columns = Array(values.keys)
        try db.execute(
            sql: "UPDATE \(layer.tableName.quotedDatabaseIdentifier) SET \(columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?",
            arguments: StatementArguments(columns.map { values[$0]! } + [existing.objectId.databaseValue]))
        return EditResult(objectId: existing.objectId, globalId: existing.globalId)
    }

    // MARK: Deletes

    private func delete(_ key: FeatureKey, from layer: StoredLayer) throws -> EditResult {
        let definition = layer.definition
        let existing = try find(key, in: layer)
        try tombstone(kind: "feature", layer: layer, globalId: existing.globalId, objectId: existing.objectId,
                      parentGlobalId: nil, createdGeneration: existing.createdGeneration)
        if definition.hasAttachments {
            let attachments = try Row.fetchAll(db, sql: "SELECT ATTACHMENTID, GLOBALID, outpost_created_gen, DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE REL_GLOBALID = ?",
                                               arguments: [existing.globalId])
            for attachment in attachments {
                if let path: String = attachment[3] { removals.paths.append(path) }
                try tombstone(kind: "attachment", layer: layer, globalId: attachment[1], objectId: attachment[0],
                              parentGlobalId: existing.globalId, createdGeneration: attachment[2])
            }
            try db.execute(sql: "DELETE FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE REL_GLOBALID = ?", arguments: [existing.globalId])
        }
        try db.execute(sql: "DELETE FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(definition.objectIdField.quotedDatabaseIdentifier) = ?",
                       arguments: [existing.objectId])
        return EditResult(objectId: existing.objectId, globalId: existing.globalId)
    }

    private func tombstone(kind: String, layer: StoredLayer, globalId: String, objectId: Int64, parentGlobalId: String?,
                           createdGeneration: Int64) throws
    {
        try db.execute(sql: """
            INSERT OR REPLACE INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id,
                created_generation, generation, replica_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [layer.serviceName, layer.definition.id, kind, globalId, objectId, parentGlobalId,
                             createdGeneration, generation, context.replicaId])
    }

    // MARK: Shared

    private struct ExistingFeature {
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
            row = try Row.fetchOne(db, sql: "SELECT \(oid), \(gid), outpost_created_gen FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(oid) = ?", arguments: [id])
        case .globalId(let id):
            description = "\(definition.globalIdField) \(id)"
            row = try Row.fetchOne(db, sql: "SELECT \(oid), \(gid), outpost_created_gen FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(gid) = ?", arguments: [id])
        }
        guard let row else {
            switch key {
            case .objectId(let id): throw EditFailure(error: .missing(description), objectId: id)
            case .globalId(let id): throw EditFailure(error: .missing(description), globalId: id)
            }
        }
        return ExistingFeature(objectId: row[0], globalId: row[1], createdGeneration: row[2])
    }

    /// Validated column values for the attributes an edit sends. OBJECTID and GlobalID are
    /// the server's (ignored here); values for fields the server maintains (editable=false,
    /// such as editor tracking) are ignored too, so a client may send back what it queried.
    private func attributeValues(_ attributes: JSONObject, layer: StoredLayer, globalId: String) throws -> [String: DatabaseValue] {
        let definition = layer.definition
        var values: [String: DatabaseValue] = [:]
        for (key, value) in attributes {
            guard let field = definition.field(named: key) else {
                throw EditFailure(error: .invalid("Field '\(key)' does not exist in \(definition.name)."), globalId: globalId)
            }
            if field.type == .oid || field.type == .globalID || !field.editable { continue }
            do {
                values[field.name] = try FieldValue.coerce(value, for: field).databaseValue
            } catch {
                throw EditFailure(error: error, globalId: globalId)
            }
        }
        return values
    }

    private func storedGeometry(_ json: JSONValue, layer: StoredLayer, globalId: String) throws -> DatabaseValue {
        let definition = layer.definition
        guard let type = definition.geometryType else { return .null }
        do {
            let (geometry, sr) = try Geometry.fromEsriJSON(json)
            try geometry.validate()
            guard geometry.fits(type) else {
                throw GeometryError.invalid("a \(geometry.geometryType.shortName) does not fit a \(type.shortName) layer")
            }
            var ogc = try FeatureStore.storable(geometry.ogc, for: definition, row: 0)
            if let sr, sr.epsg != layer.srid {
                ogc = try FeatureStore.storable(FeatureStore.transform(ogc, from: sr.epsg, to: layer.srid, db: db), for: definition, row: 0)
            }
            return Data(SpatiaLiteBlob.encode(ogc, srid: Int32(layer.srid))).databaseValue
        } catch let error as GeometryError {
            throw EditFailure(error: .invalid(error.description), globalId: globalId)
        } catch let error as StoreError {
            throw EditFailure(error: .invalid(error.description), globalId: globalId)
        }
    }
}
