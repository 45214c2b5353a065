import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteSchema {
    /// `ALTER TABLE ADD COLUMN` per field, its catalog row after the layer's last, and the
    /// layer's last edit date, in one transaction; then the catalog is read again.
    public func addFields(_ fields: [FieldDefinition], service name: String, layer layerId: Int) throws -> StoredLayer {
        let stored = try service(named: name)
        let layer = try self.layer(service: name, id: layerId)
        try SchemaRules.checkAddable(fields, to: layer.definition, isVersioned: stored.definition.isVersioned)
        try pool.write { db in
            let service = stored.definition.name
            let next =
                try Int.fetchOne(
                    db, sql: "SELECT coalesce(max(position), -1) + 1 FROM outpost_fields WHERE service = ? AND layer_id = ?",
                    arguments: [service, layerId]) ?? 0
            for (offset, field) in fields.enumerated() {
                try db.execute(
                    sql:
                        "ALTER TABLE \(layer.tableName.quotedDatabaseIdentifier) ADD COLUMN \(field.name.quotedDatabaseIdentifier) \(field.type.sqliteType)"
                )
                try db.execute(
                    sql: """
                        INSERT INTO outpost_fields(service, layer_id, position, name, type, alias, length, nullable, editable, default_value, domain)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        service, layerId, next + offset, field.name, field.type.rawValue, field.alias, field.length,
                        field.nullable, field.editable, field.defaultValue.jsonText, field.domain.jsonText,
                    ])
            }
            try db.execute(
                sql: "UPDATE outpost_layers SET last_edit_date = max(last_edit_date, ?) WHERE service = ? AND layer_id = ?",
                arguments: [clock.milliseconds(), service, layerId])
        }
        try reloadCatalog()
        return try self.layer(service: name, id: layerId)
    }
}
