import OutpostStorage
import OutpostWire

extension PostgresSchema {
    /// `ALTER TABLE ADD COLUMN` per field, its catalog row after the layer's last, the layer's
    /// last edit date and the catalog version (other processes read the catalog again), in one
    /// transaction.
    public func addFields(_ fields: [FieldDefinition], service name: String, layer layerId: Int) throws -> StoredLayer {
        let stored = try held.current().existingService(named: name)
        let layer = try held.current().existingLayer(service: name, id: layerId)
        try SchemaRules.checkAddable(fields, to: layer.definition, isVersioned: stored.definition.isVersioned)
        let service = stored.definition.name
        try pool.transaction { connection in
            let next =
                try connection.query(
                    "SELECT coalesce(max(position), -1) + 1 FROM outpost_fields WHERE service = \(service) AND layer_id = \(layerId)"
                ).first?.int(0) ?? 0
            for (offset, field) in fields.enumerated() {
                try connection.execute(
                    "ALTER TABLE \(PostgresQuery.quoted(identifier: layer.tableName)) ADD COLUMN \(PostgresQuery.quoted(identifier: field.name)) \(Self.columnType(field.type))"
                )
                try connection.query(
                    """
                    INSERT INTO outpost_fields(service, layer_id, position, name, type, alias, length, nullable, editable, default_value, domain)
                    VALUES (\(service), \(layerId), \(next + offset), \(field.name), \(field.type.rawValue), \(field.alias), \(field.length),
                        \(field.nullable), \(field.editable), \(field.defaultValue.jsonText), \(field.domain.jsonText))
                    """)
            }
            try connection.query(
                """
                UPDATE outpost_layers SET last_edit_date = greatest(last_edit_date, \(clock.milliseconds()))
                WHERE service = \(service) AND layer_id = \(layerId)
                """)
            try PostgresCatalog.bump(connection)
        }
        return try held.load().existingLayer(service: name, id: layerId)
    }
}
