import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresVersions {
    /// Reconciles a named version with DEFAULT and posts its edits in one transaction:
    /// updates field by field against the feature as the version's base knew it, adds as
    /// adds, deletes as deletes; conflicts go to the conflict log under the version's GUID,
    /// decided for the version (posted last). The version is then empty and based on the new
    /// DEFAULT: a tick taken in the posting transaction, and that transaction itself.
    public func reconcileAndPost(service: String, version name: String) throws -> VersionPost {
        let serviceName = try held.load().existingService(named: service).definition.name
        let moment = clock.milliseconds()
        return try PostgresEditSession.run(
            pool, catalog: held, moment: moment, context: EditContext(replicaId: nil),
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true)
        ) { editor, catalog in
            let connection = editor.connection
            // Locked: two posts of one version run one after the other.
            guard let row = try Self.versionRow(name, service: serviceName, connection: connection, locked: true) else {
                throw VersionFailure.notFound(name)
            }
            let version = try Self.version(row)
            guard version.parent != nil, version.replicaId == nil, let guid = version.guid else { throw VersionFailure.notFound(name) }
            let base = try PostgresVersionBase.of(tick: version.baseGeneration, postedBy: try row.int64(8), connection: connection)
            var post = VersionPost(posted: 0, conflicts: 0, generation: nil)
            var edited: [StoredLayer] = []
            for layer in try catalog.existingService(named: serviceName).layers where layer.isVersioned {
                let poster = PostgresVersionPoster(editor: editor, layer: layer, version: version.name, writer: guid, base: base)
                let (posted, conflicts) = try poster.postAll()
                post.posted += posted
                post.conflicts += conflicts
                if posted > 0 { edited.append(layer) }
                try connection.query("DELETE FROM \(identifier: layer.versionTable) WHERE outpost_version = \(version.name)")
            }
            let stamp = try PostgresEditSession.markEdited(edited, at: moment, connection: connection)
            let tick = try GenerationTicks.take(on: connection).tick
            try connection.query(
                "UPDATE outpost_versions SET base_tick = \(tick), base_xid = \(stamp) WHERE service = \(serviceName) AND name = \(version.name)")
            post.generation = post.posted > 0 ? stamp : nil
            return post
        }
    }
}

/// Posts one layer's version rows to DEFAULT.
struct PostgresVersionPoster {
    let editor: PostgresEditSession
    let layer: StoredLayer
    let version: String
    /// The version's GUID: the writer its conflicts are recorded under.
    let writer: String
    let base: PostgresVersionBase

    private var connection: PostgresConnection { editor.connection }

    func postAll() throws -> (posted: Int, conflicts: Int) {
        let definition = layer.definition
        let table = PostgresQuery.quoted(identifier: layer.tableName)
        let rows = PostgresQuery.quoted(identifier: layer.versionTable)
        let gid = PostgresQuery.quoted(identifier: definition.globalIdField)
        let oid = PostgresQuery.quoted(identifier: definition.objectIdField)
        // Editor tracking changes on every edit of both sides: never a conflict, and written
        // with the version's values when anything else is.
        let tracking = definition.editFieldsInfo?.all ?? []
        let stamped = definition.editFieldsInfo?.editStamps ?? []
        var editable = definition.fields.filter {
            $0.name != definition.objectIdField && $0.name != definition.globalIdField && !tracking.contains($0.name)
        }
        .map { PostgresFieldStates.Written(column: $0.name, type: $0.type, edit: "e.\(PostgresQuery.quoted(identifier: $0.name))") }
        if layer.isSpatial {
            editable.append(PostgresFieldStates.Written(column: StoredLayer.geometryColumn, type: nil, edit: "e.\(StoredLayer.geometryColumn)"))
        }
        let userColumns = (definition.fields.map(\.name) + (layer.isSpatial ? [StoredLayer.geometryColumn] : []))
            .map(PostgresQuery.quoted(identifier:)).joined(separator: ", ")
        var posted = 0
        var conflicts = 0
        let pending = try connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT \(gid), outpost_deleted FROM \(rows) WHERE outpost_version = $1 ORDER BY \(oid)", binds: [.text(version)]))
        for row in pending.rows {
            let globalId = try row.required(0, row.string)
            let deleted = try row.bool(1) ?? false
            let live = try connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT \(oid), outpost_created_xid, outpost_created_by, outpost_xid, outpost_replica FROM \(table) WHERE \(gid) = $1 FOR UPDATE",
                    binds: [.text(globalId)])
            ).first
            let existing = try live.map {
                PostgresEditSession.ExistingFeature(
                    objectId: try $0.required(0, $0.int64), globalId: globalId, createdStamp: try $0.required(1, $0.int64), createdBy: $0.string(2))
            }
            let changedXid = try live?.int64(3)
            let changedSinceBase = changedXid.map { !base.sees($0) } ?? false
            func record(_ operation: String, fields: JSONValue?) throws {
                guard let existing, let changedXid else { return }
                try PostgresSync.recordConflict(
                    PostgresSync.Overwritten(
                        layer: layer, globalId: globalId, objectId: existing.objectId, change: "update", xid: changedXid, by: live?.string(4),
                        feature: try PostgresSync.featureJSON(objectId: existing.objectId, layer: layer, connection: connection)?.jsonText,
                        fields: fields),
                    by: writer, operation: operation, at: editor.moment, connection: connection)
                conflicts += 1
            }
            if deleted {
                guard let existing else { continue }  // deleted in DEFAULT too
                if changedSinceBase { try record("delete", fields: nil) }
                _ = try editor.delete(existing, from: layer)
            } else if let existing {
                var states = try PostgresFieldStates.read(
                    editable, objectId: existing.objectId, layer: layer, base: base,
                    join: "JOIN (SELECT * FROM \(rows) WHERE outpost_version = $1 AND \(gid) = $2) e ON true",
                    binds: [.text(version), .text(globalId)], connection: connection)
                if !changedSinceBase { (states.base, states.baseJSON) = (states.current, states.currentJSON) }
                let outcome = states.reconciled
                guard !outcome.write.isEmpty else { continue }
                if !outcome.conflicts.isEmpty { try record("update", fields: states.conflictFields(outcome.conflicts)) }
                let assignments = (outcome.write + stamped).map {
                    "\(PostgresQuery.quoted(identifier: $0)) = e.\(PostgresQuery.quoted(identifier: $0))"
                }
                try connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE \(table) SET \((assignments + ["outpost_replica = NULL"]).joined(separator: ", "))
                            FROM \(rows) e WHERE e.outpost_version = $1 AND e.\(gid) = $2 AND \(table).\(oid) = $3
                            """, binds: [.text(version), .text(globalId), existing.objectId.postgresValue]))
            } else {
                try connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "INSERT INTO \(table) (\(userColumns)) SELECT \(userColumns) FROM \(rows) WHERE outpost_version = $1 AND \(gid) = $2",
                        binds: [.text(version), .text(globalId)]))
            }
            posted += 1
        }
        return (posted, conflicts)
    }
}
