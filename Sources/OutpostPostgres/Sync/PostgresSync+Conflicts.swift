import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync {
    /// A server change an upload or a post overwrites.
    struct Overwritten {
        var layer: StoredLayer
        var globalId: String
        var objectId: Int64
        /// `update` (a live row) or `delete` (a tombstone), made by transaction `xid` of
        /// writer `by` (a replica, a version; nil for an online edit).
        var change: String, xid: Int64, by: String?
        /// The row as stored, as Esri JSON text.
        var feature: String?
        /// For a reconciled update: `{"field", "base", "default", "replica"}` of each field both sides changed.
        var fields: JSONValue?
    }

    /// Writes a conflict: `writer` (a replica's id, or a named version's GUID) overwrote it by `operation`.
    static func recordConflict(
        _ overwritten: Overwritten, by writer: String, operation: String, at moment: Int64, connection: PostgresConnection
    ) throws {
        let o = overwritten
        try connection.query(
            """
            INSERT INTO outpost_conflicts(service, replica_id, layer_id, global_id, object_id, upload_operation, overwritten_change,
                overwritten_xid, overwritten_by, feature, recorded_at, fields)
            VALUES (\(o.layer.serviceName), \(writer), \(o.layer.definition.id), \(o.globalId), \(o.objectId), \(operation), \(o.change),
                \(o.xid), \(o.by), \(o.feature), \(moment), \(o.fields?.jsonText))
            """)
    }

    /// One stored feature as Esri JSON (attributes as stored, geometry in the layer's spatial reference).
    static func featureJSON(objectId: Int64, layer: StoredLayer, connection: PostgresConnection) throws -> JSONValue? {
        let definition = layer.definition
        let columns = featureColumns(layer, spatialReference: definition.spatialReference)
        guard
            let row = try connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT \(columns.joined(separator: ", ")) FROM \(PostgresQuery.quoted(identifier: layer.tableName)) t WHERE t.\(PostgresQuery.quoted(identifier: definition.objectIdField)) = $1",
                    binds: [objectId.postgresValue])
            ).first
        else { return nil }
        let record = try record(row, layer: layer)
        var attributes = JSONObject()
        for (field, value) in zip(definition.fields, record.attributes) { attributes[field.name] = value }
        var feature: JSONObject = ["attributes": .object(attributes)]
        if let ogc = record.geometry {
            var writer = JSONWriter()
            Geometry(ogc: ogc, layerType: definition.geometryType).writeEsriJSON(to: &writer)
            if var object = (try? JSONParser.parse(writer.string))?.objectValue {
                object["spatialReference"] = ["wkid": .int(Int64(layer.srid))]
                feature["geometry"] = .object(object)
            }
        }
        return .object(feature)
    }
}

/// What a sync upload overwrites, and what a versioned reconcile compares.
extension PostgresUploadRecords {
    /// Copies what the upload is about to overwrite into the conflict log: the live feature as
    /// stored, or the delete it undoes, with the raw stamp of the change overwritten.
    func recordConflict(_ operation: UploadOperation, over held: Held, globalId: String, fields: JSONValue?) throws {
        let objectId: Int64
        let xid: Int64
        let by: String?
        let kind: String
        var feature: String?
        switch held.stamped {
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

    /// Read in one statement, after the writes held so far are sent, against the replica's tick.
    func fieldStates(_ update: VersionedUpdate, of feature: EditFeature, objectId: Int64, globalId: String) throws -> PostgresFieldStates {
        var binds = update.fields.map(\.value.postgresValue)
        var written = update.fields.enumerated().map { index, sent in
            PostgresFieldStates.Written(column: sent.field.name, type: sent.field.type, edit: "$\(index + 1)")
        }
        if layer.isSpatial, let geometry = feature.geometry {
            let value = try editor.storedGeometry(geometry, layer: layer, globalId: globalId)
            written.append(PostgresFieldStates.Written(column: StoredLayer.geometryColumn, type: nil, edit: value.placeholder(&binds)))
        }
        try editor.flush()
        return try PostgresFieldStates.read(
            written, objectId: objectId, layer: layer, base: PostgresVersionBase(snapshot: snapshot), binds: binds, connection: connection)
    }
}

extension PostgresFieldStates: VersionedFieldStates {
    func json(_ field: String, in state: VersionedFieldState) -> JSONValue {
        switch state {
        case .base: baseJSON[field] ?? .null
        case .current: currentJSON[field] ?? .null
        case .edit: editJSON[field] ?? .null
        }
    }
}
