import OutpostStorage
import OutpostWire

extension PostgresVersions {
    /// `applyEdits` with `gdbVersion`: adds, updates (by OBJECTID or GlobalID) and deletes
    /// written to the version only, in one transaction, validated as DEFAULT edits are. Adds
    /// take OBJECTIDs from the layer's identity, so DEFAULT never hands them out.
    public func applyVersionEdits(
        service: String, version name: String, edits: [LayerEdits], options: EditOptions, context: EditContext
    ) throws -> EditOutcome {
        let serviceName = try held.load().existingService(named: service).definition.name
        let moment = clock.milliseconds()
        do {
            return try PostgresEditSession.run(pool, catalog: held, moment: moment, context: context, options: options) { editor, catalog in
                guard let version = try Self.version(name, service: serviceName, connection: editor.connection) else {
                    throw VersionFailure.notFound(name)
                }
                guard version.parent != nil else { throw VersionFailure.isDefault }
                let results = try VersionEditFrame.apply(
                    edits, to: try catalog.existingService(named: serviceName), options: options, attempt: { try editor.attempt($0) },
                    writer: { PostgresVersionWriter(editor: editor, layer: $0, version: version.name) })
                return EditOutcome(layers: results, editMoment: moment, generation: nil)
            }
        } catch let rolledBack as VersionEditFrame.RolledBack {
            return rolledBack.outcome(editMoment: moment)
        }
    }
}

/// Writes one layer's edits into a named version: whole rows in `<table>__version_rows`,
/// copied from DEFAULT on the version's first change of a feature.
struct PostgresVersionWriter: VersionRowWriter {
    let editor: PostgresEditSession
    let layer: StoredLayer
    let version: String

    private var connection: PostgresConnection { editor.connection }
    private var rows: String { PostgresQuery.quoted(identifier: layer.versionTable) }
    private var oid: String { PostgresQuery.quoted(identifier: layer.definition.objectIdField) }
    private var gid: String { PostgresQuery.quoted(identifier: layer.definition.globalIdField) }

    /// The feature as the version sees it: its own row (nil when it deleted it), else DEFAULT's.
    private func find(_ key: FeatureKey) throws -> (objectId: Int64, globalId: String, inVersion: Bool)? {
        let (column, value): (String, PostgresValue) =
            switch key {
            case .objectId(let id): (oid, id.postgresValue)
            case .globalId(let id): (gid, .text(GlobalID.normalize(id) ?? id))
            }
        if let row = try connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT \(oid), \(gid), outpost_deleted FROM \(rows) WHERE outpost_version = $1 AND \(column) = $2",
                binds: [.text(version), value])
        ).first {
            return try row.bool(2) == true ? nil : (try row.required(0, row.int64), try row.required(1, row.string), true)
        }
        let table = PostgresQuery.quoted(identifier: layer.tableName)
        return try connection.query(PostgresQuery(unsafeSQL: "SELECT \(oid), \(gid) FROM \(table) WHERE \(column) = $1", binds: [value]))
            .first.map { (try $0.required(0, $0.int64), try $0.required(1, $0.string), false) }
    }

    private func missing(_ key: FeatureKey) -> PostgresEditSession.EditFailure {
        PostgresEditSession.EditFailure(error: .missing("\(key)"))
    }

    /// DEFAULT's row copied into the version.
    private func copy(_ globalId: String, deleted: Bool) throws {
        let columns = PostgresVersions.columns(of: layer).map(PostgresQuery.quoted(identifier:)).joined(separator: ", ")
        try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(rows) (\(columns), outpost_version, outpost_deleted)
                    SELECT \(columns), $1, $2 FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(gid) = $3
                    """, binds: [.text(version), deleted.postgresValue, .text(globalId)]))
    }

    func add(_ feature: EditFeature) throws -> EditResult {
        let given = feature.attributes.value(forCaseInsensitiveKey: layer.definition.globalIdField)?.stringValue.flatMap(GlobalID.normalize)
        let globalId = given ?? GlobalID.make()
        if try find(.globalId(globalId)) != nil {
            throw PostgresEditSession.EditFailure(error: .duplicateGlobalID(globalId), globalId: globalId)
        }
        // A feature the version deleted comes back as this add.
        try connection.query(
            "DELETE FROM \(identifier: layer.versionTable) WHERE outpost_version = \(version) AND \(identifier: layer.definition.globalIdField) = \(globalId)"
        )
        var added = feature
        added.attributes[layer.definition.globalIdField] = .string(globalId)
        var rowsLayer = layer
        rowsLayer.tableName = layer.versionTable
        return try editor.add(added, to: rowsLayer, extra: ["outpost_version": .text(version)])
    }

    func update(_ feature: EditFeature) throws -> EditResult {
        let definition = layer.definition
        let key: FeatureKey
        if editor.options.useGlobalIds {
            guard let text = feature.attributes.value(forCaseInsensitiveKey: definition.globalIdField)?.stringValue, let id = GlobalID.normalize(text)
            else { throw PostgresEditSession.EditFailure(error: .invalid("With useGlobalIds=true every update needs its GlobalID.")) }
            key = .globalId(id)
        } else {
            guard let id = feature.attributes.value(forCaseInsensitiveKey: definition.objectIdField)?.int64Value else {
                throw PostgresEditSession.EditFailure(error: .invalid("Every update needs its \(definition.objectIdField)."))
            }
            key = .objectId(id)
        }
        guard let found = try find(key) else { throw missing(key) }
        if !found.inVersion { try copy(found.globalId, deleted: false) }
        var stored: Int64?
        if let field = definition.subtypeField, definition.needsStoredSubtype(toCheck: feature.attributes) {
            stored = try connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(PostgresQuery.quoted(identifier: field.name)) FROM \(rows) WHERE outpost_version = $1 AND \(gid) = $2",
                    binds: [.text(version), .text(found.globalId)])
            ).first?.int64(0)
        }
        var (assignments, binds) = try editor.assignments(
            feature, in: layer, globalId: found.globalId, objectId: found.objectId, storedSubtype: stored)
        binds += [.text(version), .text(found.globalId)]
        try connection.query(
            PostgresQuery(
                unsafeSQL: "UPDATE \(rows) SET \(assignments) WHERE outpost_version = $\(binds.count - 1) AND \(gid) = $\(binds.count)",
                binds: binds))
        return EditResult(objectId: found.objectId, globalId: found.globalId)
    }

    func delete(_ key: FeatureKey) throws -> EditResult {
        guard let found = try find(key) else { throw missing(key) }
        let inDefault =
            try connection.query(
                "SELECT 1 FROM \(identifier: layer.tableName) WHERE \(identifier: layer.definition.globalIdField) = \(found.globalId)"
            ).first != nil
        if !inDefault {
            // Added in this version: gone without a trace.
            try connection.query(
                "DELETE FROM \(identifier: layer.versionTable) WHERE outpost_version = \(version) AND \(identifier: layer.definition.globalIdField) = \(found.globalId)"
            )
        } else if found.inVersion {
            try connection.query(
                "UPDATE \(identifier: layer.versionTable) SET outpost_deleted = true WHERE outpost_version = \(version) AND \(identifier: layer.definition.globalIdField) = \(found.globalId)"
            )
        } else {
            try copy(found.globalId, deleted: true)
        }
        return EditResult(objectId: found.objectId, globalId: found.globalId)
    }
}
