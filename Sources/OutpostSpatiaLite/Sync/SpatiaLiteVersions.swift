import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// Named versions of versioned services (`VersionStore`).
public struct SpatiaLiteVersions: VersionStore, StoreRepository {
    public let database: StoreDatabase
}

/// Named versions of a versioned service (`docs/sync-semantics.md`, Versioned data).
///
/// A named version branches from DEFAULT at a generation. Its edits (`applyEdits` with
/// `gdbVersion`) are kept as whole rows in `<table>__version_rows`, so reading the version is
/// DEFAULT overlaid by those rows (`query` with `gdbVersion`). Reconcile-and-post writes them
/// to DEFAULT attribute by attribute against the state the version started from
/// (`VersionReconcile`), recording conflicts, then empties the version and moves its base to
/// the new DEFAULT.
extension SpatiaLiteVersions {

    /// Creates a named version branching from DEFAULT now.
    public func createVersion(
        service: String, name: String, description: String = "", access: String = "public", owner: String = "outpost"
    ) throws -> DataVersion {
        let stored = try self.service(named: service)
        guard stored.definition.isVersioned else { throw VersionFailure.notVersioned(stored.definition.name) }
        let bare = name.split(separator: ".").last.map(String.init) ?? name
        guard !bare.isEmpty, bare.count <= 62, bare.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw VersionFailure.invalidName(name)
        }
        let full = "\(owner).\(bare)"
        return try pool.write { db in
            if try Bool.fetchOne(
                db, sql: "SELECT count(*) > 0 FROM outpost_versions WHERE service = ? AND lower(name) = lower(?)",
                arguments: [stored.definition.name, full]) == true
            {
                throw VersionFailure.exists(full)
            }
            let now = clock.milliseconds()
            try db.execute(
                sql: """
                    INSERT INTO outpost_versions(service, name, parent, replica_id, access, description, created_at, guid, base_generation)
                    VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    stored.definition.name, full, SpatiaLiteBackend.defaultVersionName, access, description, now, GlobalID.make(),
                    try SpatiaLiteEdits.newestGeneration(db),
                ])
            return try Self.version(full, service: stored.definition.name, db: db)!
        }
    }

    /// A version by full name (`owner.name`), bare name or GUID (case-insensitive).
    public func version(service: String, named name: String) throws -> DataVersion? {
        let stored = try self.service(named: service)
        return try pool.read { db in try Self.version(name, service: stored.definition.name, db: db) }
    }

    static func version(_ name: String, service: String, db: Database) throws -> DataVersion? {
        let guid = GlobalID.normalize(name)
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT name, parent, replica_id, access, description, created_at, guid, base_generation FROM outpost_versions
                WHERE service = ? AND (lower(name) = lower(?) OR lower(name) = lower('outpost.' || ?) OR guid = ?)
                """, arguments: [service, name, name, guid])
        return row.map { DataVersion(row: $0) }
    }

    /// Deletes a named version and its unposted edits.
    public func deleteVersion(service: String, named name: String) throws {
        let stored = try self.service(named: service)
        try pool.write { db in
            guard let version = try Self.version(name, service: stored.definition.name, db: db) else { throw VersionFailure.notFound(name) }
            guard version.parent != nil, version.replicaId == nil else { throw VersionFailure.isDefault }
            for layer in stored.layers {
                try db.execute(sql: "DELETE FROM \(layer.versionTable.quotedDatabaseIdentifier) WHERE outpost_version = ?", arguments: [version.name])
            }
            try db.execute(sql: "DELETE FROM outpost_versions WHERE service = ? AND name = ?", arguments: [stored.definition.name, version.name])
        }
    }

    // MARK: Editing a version

    /// `applyEdits` with `gdbVersion`: adds, updates (by OBJECTID or GlobalID) and deletes
    /// written to the version only, in one transaction; the same validation as DEFAULT edits.
    /// OBJECTIDs of adds are taken from the layer's sequence, so they never collide with
    /// DEFAULT's.
    public func applyVersionEdits(
        service: String, version name: String, edits: [LayerEdits], options: EditOptions,
        context: EditContext = EditContext()
    ) throws -> EditOutcome {
        let stored = try self.service(named: service)
        let moment = clock.milliseconds()
        do {
            return try pool.write { db in
                guard let version = try Self.version(name, service: stored.definition.name, db: db) else { throw VersionFailure.notFound(name) }
                guard version.parent != nil else { throw VersionFailure.isDefault }
                let editor = EditSession(
                    db: db, generation: 0, moment: moment, context: context, options: options, removals: AttachmentFileChanges(),
                    preparedFiles: [:])
                let results = try VersionEditFrame.apply(
                    edits, to: stored, options: options, attempt: { body in editor.attempt { try body() } },
                    writer: { VersionWriter(editor: editor, layer: $0, version: version.name) })
                return EditOutcome(layers: results, editMoment: moment, generation: nil)
            }
        } catch let rolledBack as VersionEditFrame.RolledBack {
            return rolledBack.outcome(editMoment: moment)
        }
    }

    // MARK: Reconcile and post

    /// What posting a version did.

    /// Reconciles a named version with DEFAULT and posts its edits (one transaction, one new
    /// generation): updates field by field against the state the version branched from,
    /// adds as adds, deletes as deletes; conflicts go to the conflict log under the version's
    /// GUID, decided for the version (it is posted last). The version is then empty and based
    /// on the new DEFAULT.
    public func reconcileAndPost(service: String, version name: String) throws -> VersionPost {
        let stored = try self.service(named: service)
        guard let version = try self.version(service: service, named: name), version.parent != nil, version.replicaId == nil else {
            throw VersionFailure.notFound(name)
        }
        var post = VersionPost(posted: 0, conflicts: 0, generation: nil)
        let outcome = try edits.runEditTransaction(
            service: stored.definition.name, edits: stored.layers.map { LayerEdits(layerId: $0.definition.id) },
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true),
            context: EditContext(replicaId: nil)
        ) { editor, layers in
            for layer in layers {
                post.posted += try VersionPoster(editor: editor, layer: layer, version: version, conflicts: { post.conflicts += 1 }).postAll()
                try editor.db.execute(
                    sql: "DELETE FROM \(layer.versionTable.quotedDatabaseIdentifier) WHERE outpost_version = ?", arguments: [version.name])
            }
            try editor.db.execute(
                sql: "UPDATE outpost_versions SET base_generation = ? WHERE service = ? AND name = ?",
                arguments: [editor.generation, stored.definition.name, version.name])
            return layers.map { LayerEditResults(layerId: $0.definition.id) }
        }
        post.generation = post.posted > 0 ? outcome.generation : nil
        return post
    }

    /// The answer of a query against a named version: DEFAULT overlaid by the version's rows.
    public func query(_ query: LayerQuery, service: String, layer layerId: Int, version name: String) throws -> QueryAnswer {
        let layer = try self.layer(service: service, id: layerId)
        guard layer.isVersioned else { throw VersionFailure.notVersioned(service) }
        return try pool.read { db in
            guard let version = try Self.version(name, service: layer.serviceName, db: db) else { throw VersionFailure.notFound(name) }
            if version.parent == nil { return try SpatiaLiteFeatures.answer(query, layer: layer, db: db) }
            return try SpatiaLiteFeatures.answer(query, layer: layer, version: version.name, db: db)
        }
    }

    /// The FROM source of a version's rows (two arguments: the version name, twice).
    static func overlay(_ layer: StoredLayer, db: Database) throws -> String {
        let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [layer.tableName])
            .map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let gid = layer.definition.globalIdField.quotedDatabaseIdentifier
        let v = layer.versionTable.quotedDatabaseIdentifier
        return """
            (SELECT \(columns) FROM \(layer.tableName.quotedDatabaseIdentifier)
               WHERE \(gid) NOT IN (SELECT \(gid) FROM \(v) WHERE outpost_version = ?)
             UNION ALL SELECT \(columns) FROM \(v) WHERE outpost_version = ? AND outpost_deleted = 0)
            """
    }
}

extension DataVersion {
    init(row: Row) {
        self.init(
            name: row["name"], parent: row["parent"], replicaId: row["replica_id"], access: row["access"],
            description: row["description"], creationDate: row["created_at"], guid: row["guid"], baseGeneration: row["base_generation"])
    }
}

/// Writes whole rows of one layer into a version.
private struct VersionWriter: VersionRowWriter {
    let editor: EditSession
    let layer: StoredLayer
    let version: String

    private var db: Database { editor.db }
    private var t: String { layer.tableName.quotedDatabaseIdentifier }
    private var v: String { layer.versionTable.quotedDatabaseIdentifier }
    private var gid: String { layer.definition.globalIdField }
    private var oid: String { layer.definition.objectIdField }

    /// The feature as the version sees it: its own row, else DEFAULT's.
    private func current(_ key: FeatureKey) throws -> [String: DatabaseValue]? {
        let (column, value): (String, DatabaseValue) =
            switch key {
            case .objectId(let id): (oid, id.databaseValue)
            case .globalId(let id): (gid, (GlobalID.normalize(id) ?? id).databaseValue)
            }
        if let row = try Row.fetchOne(
            db, sql: "SELECT * FROM \(v) WHERE outpost_version = ? AND \(column.quotedDatabaseIdentifier) = ?",
            arguments: [version, value])
        {
            return (row["outpost_deleted"] as Int64? ?? 0) == 1 ? nil : dictionary(row)
        }
        return try Row.fetchOne(db, sql: "SELECT * FROM \(t) WHERE \(column.quotedDatabaseIdentifier) = ?", arguments: [value]).map(dictionary)
    }

    private func dictionary(_ row: Row) -> [String: DatabaseValue] {
        var values: [String: DatabaseValue] = [:]
        for (column, value) in row where column != "outpost_version" && column != "outpost_deleted" { values[column] = value }
        return values
    }

    private func write(_ values: [String: DatabaseValue], deleted: Bool) throws {
        var row = values
        row["outpost_version"] = version.databaseValue
        row["outpost_deleted"] = (deleted ? 1 : 0).databaseValue
        let columns = row.keys.sorted()
        try editor.run(
            "INSERT OR REPLACE INTO \(v) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
            StatementArguments(columns.map { row[$0]! }))
    }

    private func key(of feature: EditFeature) throws -> FeatureKey {
        if editor.options.useGlobalIds {
            guard let text = feature.attributes.value(forCaseInsensitiveKey: gid)?.stringValue, let id = GlobalID.normalize(text) else {
                throw EditSession.EditFailure(error: .invalid("With useGlobalIds=true every update needs its GlobalID."))
            }
            return .globalId(id)
        }
        guard let id = feature.attributes.value(forCaseInsensitiveKey: oid)?.int64Value else {
            throw EditSession.EditFailure(error: .invalid("Every update needs its \(oid)."))
        }
        return .objectId(id)
    }

    func add(_ feature: EditFeature) throws -> EditResult {
        let given = feature.attributes.value(forCaseInsensitiveKey: gid)?.stringValue.flatMap(GlobalID.normalize)
        let globalId = given ?? GlobalID.make()
        if try current(.globalId(globalId)) != nil { throw EditSession.EditFailure(error: .duplicateGlobalID(globalId), globalId: globalId) }
        var values = try editor.attributeValues(layer.definition.addingSubtypeDefaults(to: feature.attributes), layer: layer, globalId: globalId)
        if layer.isSpatial, let geometry = feature.geometry {
            values[StoredLayer.geometryColumn] = try editor.storedGeometry(geometry, layer: layer, globalId: globalId)
        }
        if let tracking = layer.definition.editFieldsInfo {
            for field in [tracking.creationDateField, tracking.editDateField] { values[field] = editor.moment.databaseValue }
            for field in [tracking.creatorField, tracking.editorField] { values[field] = editor.context.editor?.databaseValue ?? .null }
        }
        // An OBJECTID DEFAULT will never hand out: taken from the layer's sequence now.
        try db.execute(
            sql: "UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(\(oid.quotedDatabaseIdentifier)), 0) FROM \(t))) + 1 WHERE name = ?",
            arguments: [layer.tableName])
        let objectId = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [layer.tableName]) ?? 1
        values[oid] = objectId.databaseValue
        values[gid] = globalId.databaseValue
        values["outpost_created_gen"] = 0.databaseValue
        values["outpost_gen"] = 0.databaseValue
        try write(values, deleted: false)
        return EditResult(objectId: objectId, globalId: globalId)
    }

    func update(_ feature: EditFeature) throws -> EditResult {
        let key = try key(of: feature)
        guard var values = try current(key) else { throw EditSession.EditFailure(error: .missing("\(key)")) }
        let globalId = String.fromDatabaseValue(values[gid] ?? .null) ?? ""
        let subtypeField = layer.definition.subtypeField?.name
        let stored = subtypeField.flatMap { Int64.fromDatabaseValue(values[$0] ?? .null) }
        for (column, value) in try editor.attributeValues(feature.attributes, layer: layer, globalId: globalId, storedSubtype: stored) {
            values[column] = value
        }
        if layer.isSpatial, let geometry = feature.geometry {
            values[StoredLayer.geometryColumn] = try editor.storedGeometry(geometry, layer: layer, globalId: globalId)
        }
        if let tracking = layer.definition.editFieldsInfo {
            values[tracking.editDateField] = editor.moment.databaseValue
            values[tracking.editorField] = editor.context.editor?.databaseValue ?? .null
        }
        try write(values, deleted: false)
        return EditResult(objectId: Int64.fromDatabaseValue(values[oid] ?? .null), globalId: globalId)
    }

    func delete(_ key: FeatureKey) throws -> EditResult {
        let normalized: FeatureKey = if case .globalId(let id) = key { .globalId(GlobalID.normalize(id) ?? id) } else { key }
        guard let values = try current(normalized) else { throw EditSession.EditFailure(error: .missing("\(key)")) }
        let globalId = String.fromDatabaseValue(values[gid] ?? .null) ?? ""
        let inDefault =
            try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(t) WHERE \(gid.quotedDatabaseIdentifier) = ?", arguments: [globalId]) ?? false
        if inDefault {
            try write(values, deleted: true)
        } else {
            // Added in this version: gone without a trace.
            try db.execute(sql: "DELETE FROM \(v) WHERE outpost_version = ? AND \(gid.quotedDatabaseIdentifier) = ?", arguments: [version, globalId])
        }
        return EditResult(objectId: Int64.fromDatabaseValue(values[oid] ?? .null), globalId: globalId)
    }
}

/// Posts one layer's version rows to DEFAULT.
private struct VersionPoster {
    let editor: EditSession
    let layer: StoredLayer
    let version: DataVersion
    let conflicts: () -> Void

    private var db: Database { editor.db }

    func postAll() throws -> Int {
        let definition = layer.definition
        let t = layer.tableName.quotedDatabaseIdentifier
        let v = layer.versionTable.quotedDatabaseIdentifier
        let gid = definition.globalIdField.quotedDatabaseIdentifier
        let oid = definition.objectIdField.quotedDatabaseIdentifier
        let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [layer.tableName])
            .filter { !$0.hasPrefix("outpost_") }
        // Editor tracking changes on every edit of both sides: not a conflict, and written with
        // the version's values when anything else is.
        let tracking = definition.editFieldsInfo?.all ?? []
        let editable = columns.filter { $0 != definition.objectIdField && $0 != definition.globalIdField && !tracking.contains($0) }
        let stamped = definition.editFieldsInfo?.editStamps ?? []
        var posted = 0
        for row in try Row.fetchAll(db, sql: "SELECT * FROM \(v) WHERE outpost_version = ? ORDER BY \(oid)", arguments: [version.name]) {
            let globalId: String = row[definition.globalIdField]
            let deleted = (row["outpost_deleted"] as Int64? ?? 0) == 1
            let live = try Row.fetchOne(db, sql: "SELECT \(oid), outpost_created_gen, outpost_gen FROM \(t) WHERE \(gid) = ?", arguments: [globalId])
            let existing = live.map { EditSession.ExistingFeature(objectId: $0[0], globalId: globalId, createdGeneration: $0[1]) }
            let changedSinceBase = (live?[2] as Int64? ?? 0) > version.baseGeneration
            if deleted {
                guard let existing else { continue }  // deleted in DEFAULT too
                if changedSinceBase { try record(globalId: globalId, objectId: existing.objectId, operation: "delete", fields: nil) }
                _ = try editor.delete(existing, from: layer)
            } else if let existing {
                // Field by field against the state the version started from.
                let edit = editable.map { ($0, row[$0] as DatabaseValue) }
                let current = try values(
                    of: editable, from: "SELECT \(editable.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) FROM \(t) WHERE \(gid) = ?",
                    [globalId.databaseValue])
                let base =
                    changedSinceBase
                    ? try values(
                        of: editable,
                        from: """
                            SELECT \(editable.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) FROM \(layer.historyTable.quotedDatabaseIdentifier)
                            WHERE \(oid) = ? AND outpost_gen <= ? AND outpost_valid_to > ? ORDER BY outpost_gen DESC LIMIT 1
                            """, [existing.objectId.databaseValue, version.baseGeneration.databaseValue, version.baseGeneration.databaseValue])
                    : current
                let outcome = VersionReconcile.reconcile(base: base, current: current ?? [:], edit: edit)
                guard !outcome.write.isEmpty else { continue }
                if !outcome.conflicts.isEmpty {
                    let fields: [JSONValue] = outcome.conflicts.map { field in
                        [
                            "field": .string(field), "base": SpatiaLiteFeatures.jsonValue(base?[field] ?? .null),
                            "default": SpatiaLiteFeatures.jsonValue(current?[field] ?? .null),
                            "replica": SpatiaLiteFeatures.jsonValue(row[field] as DatabaseValue),
                        ]
                    }
                    try record(globalId: globalId, objectId: existing.objectId, operation: "update", fields: .array(fields))
                }
                try editor.archive(existing.objectId, in: layer)
                let written = outcome.write + stamped
                let assignments = written.map { "\($0.quotedDatabaseIdentifier) = ?" } + ["outpost_gen = ?", "outpost_replica = NULL"]
                try editor.run(
                    "UPDATE \(t) SET \(assignments.joined(separator: ", ")) WHERE \(oid) = ?",
                    StatementArguments(written.map { row[$0] as DatabaseValue } + [editor.generation.databaseValue, existing.objectId.databaseValue]))
            } else {
                let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
                try editor.run(
                    "INSERT INTO \(t) (\(list), outpost_created_gen, outpost_gen) SELECT \(list), ?, ? FROM \(v) WHERE outpost_version = ? AND \(gid) = ?",
                    [editor.generation, editor.generation, version.name, globalId])
            }
            posted += 1
        }
        return posted
    }

    private func values(of columns: [String], from sql: String, _ arguments: [DatabaseValue]) throws -> [String: DatabaseValue]? {
        try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
            Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, row[$0] as DatabaseValue) })
        }
    }

    private func record(globalId: String, objectId: Int64, operation: String, fields: JSONValue?) throws {
        let feature = try SpatiaLiteSync.featureJSON(objectId: objectId, layer: layer, db: db)?.jsonText
        let overwritten = try Row.fetchOne(
            db,
            sql:
                "SELECT outpost_gen, outpost_replica FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ?",
            arguments: [objectId])
        try db.execute(
            sql: """
                INSERT INTO outpost_conflicts(service, replica_id, layer_id, global_id, object_id, upload_operation, overwritten_change,
                    overwritten_generation, overwritten_by, feature, generation, recorded_at, fields)
                VALUES (?, ?, ?, ?, ?, ?, 'update', ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                layer.serviceName, version.guid, layer.definition.id, globalId, objectId, operation,
                overwritten?[0] as Int64? ?? 0, overwritten?[1] as String?, feature, editor.generation, editor.moment,
                fields?.jsonText,
            ])
        conflicts()
    }
}
