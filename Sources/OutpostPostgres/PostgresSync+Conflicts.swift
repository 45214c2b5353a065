import OutpostGeometry
import OutpostStorage
import OutpostWire

extension PostgresSync {
    /// A server change an upload or a post overwrites.
    struct Overwritten {
        var layer: StoredLayer
        var globalId: String
        var objectId: Int64
        /// `update` (a live row) or `delete` (a tombstone).
        var change: String
        var xid: Int64
        var by: String?
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
