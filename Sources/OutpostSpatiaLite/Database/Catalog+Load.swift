import GRDB
import OutpostStorage
import OutpostWire

/// The catalog as the embedded database holds it.
extension Catalog {
    static func load(_ db: Database) throws -> Catalog {
        var services: [StoredService] = []
        for row in try Row.fetchAll(db, sql: "SELECT * FROM outpost_services ORDER BY name") {
            let name: String = row["name"]
            var layers: [StoredLayer] = []
            for layerRow in try Row.fetchAll(db, sql: "SELECT * FROM outpost_layers WHERE service = ? ORDER BY layer_id", arguments: [name]) {
                let layerId: Int = layerRow["layer_id"]
                let fields = try Row.fetchAll(
                    db, sql: "SELECT * FROM outpost_fields WHERE service = ? AND layer_id = ? ORDER BY position",
                    arguments: [name, layerId]
                ).map { f -> FieldDefinition in
                    FieldDefinition(
                        name: f["name"], type: EsriFieldType(rawValue: f["type"]) ?? .string, alias: f["alias"],
                        length: f["length"], nullable: f["nullable"], editable: f["editable"],
                        defaultValue: (try? JSONParser.parse(f["default_value"] as String)) ?? .null,
                        domain: (try? JSONParser.parse(f["domain"] as String)) ?? .null)
                }
                let relationships = try Row.fetchAll(
                    db, sql: "SELECT * FROM outpost_relationships WHERE service = ? AND layer_id = ? ORDER BY relationship_id",
                    arguments: [name, layerId]
                ).compactMap { r -> RelationshipDefinition? in
                    guard let cardinality = RelationshipDefinition.Cardinality(rawValue: r["cardinality"]),
                        let role = RelationshipDefinition.Role(rawValue: r["role"])
                    else { return nil }
                    return RelationshipDefinition(
                        id: r["relationship_id"], name: r["name"], relatedTableId: r["related_table_id"],
                        cardinality: cardinality, role: role, keyField: r["key_field"], composite: r["composite"])
                }
                var editFieldsInfo: LayerDefinition.EditFieldsInfo?
                if let text: String = layerRow["edit_fields_info"], let json = try? JSONParser.parse(text) {
                    editFieldsInfo = LayerDefinition.EditFieldsInfo(
                        creationDateField: json["creationDateField"]?.stringValue ?? "CreationDate",
                        creatorField: json["creatorField"]?.stringValue ?? "Creator",
                        editDateField: json["editDateField"]?.stringValue ?? "EditDate",
                        editorField: json["editorField"]?.stringValue ?? "Editor")
                }
                let definition = LayerDefinition(
                    id: layerId, name: layerRow["name"],
                    kind: LayerDefinition.Kind(rawValue: layerRow["kind"]) ?? .table,
                    description: layerRow["description"],
                    geometryType: (layerRow["geometry_type"] as String?).flatMap(EsriGeometryType.init(rawValue:)),
                    spatialReference: SpatialReference(wkid: layerRow["wkid"]), fields: fields,
                    objectIdField: layerRow["object_id_field"], globalIdField: layerRow["global_id_field"],
                    displayField: layerRow["display_field"], hasAttachments: layerRow["has_attachments"],
                    relationships: relationships, editFieldsInfo: editFieldsInfo,
                    maxRecordCount: layerRow["max_record_count"],
                    subtypes: (layerRow["subtypes"] as String?).flatMap { try? JSONParser.parse($0) }.flatMap(LayerSubtypes.init(json:)))
                layers.append(
                    StoredLayer(
                        definition: definition, serviceName: name, tableName: layerRow["table_name"],
                        isVersioned: row["is_versioned"]))
            }
            let definition = ServiceDefinition(
                name: name, description: row["description"], isVersioned: row["is_versioned"],
                capabilities: (row["capabilities"] as String).split(separator: ",").map(String.init),
                spatialReference: SpatialReference(wkid: row["wkid"]), maxRecordCount: row["max_record_count"],
                layers: layers.map(\.definition))
            services.append(StoredService(definition: definition, layers: layers))
        }
        return Catalog(services: services)
    }
}
