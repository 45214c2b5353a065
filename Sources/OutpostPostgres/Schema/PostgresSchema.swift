import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// Services and layers on PostgreSQL (`CatalogStore`): the catalog tables of migration 3 and
/// one table per layer (docs/postgres.md, "Layers").
public struct PostgresSchema: CatalogStore {
    let pool: PostgresPool
    let held: PostgresCatalog
    let clock: any WallClock
    /// Where a deleted service's attachment and upload files are removed from.
    let files: AttachmentFiles
    let uploads: UploadFolder

    public func catalog() throws(StoreError) -> Catalog { try held.current() }

    /// Creates a service with its layers: catalog rows, one table per layer with typed
    /// columns, change stamps, a unique GlobalID index, a PostGIS geometry column with a GiST
    /// index, and an attachment table where the layer has attachments. All or nothing.
    @discardableResult
    public func createService(_ service: ServiceDefinition) throws -> StoredService {
        try SchemaRules.checkCreatable(service)
        try pool.transaction { connection in
            if let existing = try connection.query("SELECT name FROM outpost_services WHERE lower(name) = lower(\(service.name))").first?.string(0) {
                throw StoreError.serviceExists(existing)
            }
            // Locators and networks share the directory (docs/routing.md, "Networks"): not their
            // name, nor a folder of theirs, nor a folder named as one of them.
            let folder = service.name.contains("/") ? String(service.name.split(separator: "/")[0]) : ""
            if let taken = try connection.query(
                """
                SELECT name FROM (SELECT name FROM outpost_locators UNION ALL SELECT name FROM outpost_networks) AS directory
                WHERE lower(name) = lower(\(service.name)) OR lower(name) = lower(\(folder))
                   OR (position('/' in name) > 0 AND lower(split_part(name, '/', 1)) = lower(\(service.name)))
                """
            ).first?.string(0) {
                throw StoreError.serviceExists(taken)
            }
            let now = clock.milliseconds()
            try connection.query(
                """
                INSERT INTO outpost_services(name, description, is_versioned, capabilities, wkid, max_record_count, created_at)
                VALUES (\(service.name), \(service.description), \(service.isVersioned), \(service.capabilities.joined(separator: ",")),
                    \(service.spatialReference.wkid), \(service.maxRecordCount), \(now))
                """)
            let prefix = try Self.freeTablePrefix(service: service, connection: connection)
            for layer in service.layers {
                let table = "\(prefix)_\(layer.id)"
                try Self.createLayer(layer, service: service.name, table: table, connection: connection, now: now)
                if service.isVersioned { try Self.createVersioning(of: table, layer: layer, connection: connection) }
            }
            if service.isVersioned { try Self.createDefaultVersion(service: service.name, connection: connection, now: now) }
            try PostgresCatalog.bump(connection)
        }
        return try held.load().existingService(named: service.name)
    }

    /// Removes a service with everything kept for it: its tables, catalog rows, change
    /// tracking, conflict log, uploads and versions, then its attachment and upload files.
    /// Refused while replicas are registered with it or its jobs run (`StoreError.serviceInUse`).
    public func deleteService(named name: String, refusingWhileInUse: Bool) throws {
        let stored = try held.load().existingService(named: name)
        let name = stored.definition.name
        let (attachments, uploadIDs) = try pool.transaction { connection -> ([String], [String]) in
            // The service's row locked first: a replica registered meanwhile waits, then finds no service.
            guard try connection.query("SELECT name FROM outpost_services WHERE name = \(name) FOR UPDATE").first != nil else {
                throw StoreError.serviceNotFound(name)  // deleted meanwhile by another request
            }
            let replicas = try connection.query("SELECT count(*) FROM outpost_replicas WHERE service = \(name)").first?.int64(0) ?? 0
            let jobs =
                try connection.query(
                    """
                    SELECT count(*) FROM outpost_job_records WHERE lower(service) = lower(\(name)) AND NOT finished
                        AND record::jsonb->>'kind' = ANY(\(PostgresTextArray(JobKind.featureServiceKinds.map(\.rawValue))))
                    """
                ).first?.int64(0) ?? 0
            guard !refusingWhileInUse || (replicas == 0 && jobs == 0) else {
                throw StoreError.serviceInUse(service: name, replicas: Int(replicas), jobs: Int(jobs))
            }
            var attachments: [String] = []
            for layer in stored.layers {
                if layer.definition.hasAttachments {
                    attachments += try connection.query("SELECT \"BLOB_KEY\" FROM \(identifier: layer.attachmentTable)").rows.compactMap {
                        $0.string(0)
                    }
                }
                for table in Self.companionTables(of: layer.tableName).reversed() {
                    try connection.execute("DROP TABLE IF EXISTS \(PostgresQuery.quoted(identifier: table))")
                }
            }
            let uploads = try connection.query("SELECT item_id FROM outpost_uploads WHERE service = \(name)").rows.compactMap { $0.string(0) }
            try connection.query(
                "DELETE FROM outpost_sync_receipts WHERE replica_id IN (SELECT replica_id FROM outpost_unregistered_replicas WHERE service = \(name))"
            )
            try connection.query(
                "DELETE FROM outpost_replica_origins WHERE replica_id IN (SELECT replica_id FROM outpost_unregistered_replicas WHERE service = \(name))"
            )
            try connection.query("DELETE FROM outpost_unregistered_replicas WHERE service = \(name)")
            try connection.query("DELETE FROM outpost_replica_name_reservations WHERE service = \(name)")
            try connection.query("DELETE FROM outpost_tombstones WHERE service = \(name)")
            try connection.query("DELETE FROM outpost_conflicts WHERE service = \(name)")
            try connection.query("DELETE FROM outpost_uploads WHERE service = \(name)")
            // Its ended replica jobs (`JobKind.replicaKinds`): a service made later with the name
            // never answers them.
            try connection.query(
                """
                DELETE FROM outpost_job_records WHERE lower(service) = lower(\(name))
                    AND record::jsonb->>'kind' = ANY(\(PostgresTextArray(JobKind.replicaKinds.map(\.rawValue))))
                """)
            // Layers, fields, relationships, edit dates and versions go with the service's row.
            try connection.query("DELETE FROM outpost_services WHERE name = \(name)")
            try PostgresCatalog.bump(connection)
            return (attachments, uploads)
        }
        _ = try held.load()
        // After the commit: an attachment object whose removal fails is an orphan the start-up
        // sweep takes; an upload's stays.
        files.remove(attachments)
        for upload in uploadIDs { uploads.remove(upload) }
    }

    /// The service's table prefix, numbered when another service's tables already use it;
    /// short enough that every table named after a layer's fits PostgreSQL's 63 bytes
    /// (longer names are cut silently, and two cut names can meet).
    static func freeTablePrefix(service: ServiceDefinition, connection: PostgresConnection) throws -> String {
        let base = String(SchemaRules.tablePrefix(service: service.name).prefix(32))
        var candidate = base
        var number = 1
        func isTaken(_ table: String) throws -> Bool {
            let names = PostgresTextArray(companionTables(of: table))
            return try connection.query(
                "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND lower(relname) = ANY(\(names))"
            ).first?.int64(0) != 0
        }
        while try service.layers.contains(where: { try isTaken("\(candidate)_\($0.id)") }) {
            number += 1
            candidate = "\(base)_\(number)"
        }
        return candidate
    }

    /// The column type of a field: the values SpatiaLite keeps, in PostgreSQL's types (dates
    /// as epoch milliseconds, both floating types as `double precision` so a value reads back
    /// the same on either backend, text compared and sorted byte by byte).
    static func columnType(_ type: EsriFieldType) -> String {
        switch type {
        case .oid: "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
        case .integer, .smallInteger, .date: "bigint"
        case .double, .single: "double precision"
        // Byte order, as SQLite compares text, whatever the database's locale.
        case .string, .guid, .xml: "text COLLATE \"C\""
        case .globalID: "text COLLATE \"C\" NOT NULL"
        case .blob: "bytea"
        }
    }

    static func createLayer(_ layer: LayerDefinition, service: String, table: String, connection: PostgresConnection, now: Int64) throws {
        let quoted = PostgresQuery.quoted(identifier: table)
        var columns = layer.fields.map { "\(PostgresQuery.quoted(identifier: $0.name)) \(columnType($0.type))" }
        if let geometryType = layer.geometryType {
            columns.append("\(StoredLayer.geometryColumn) geometry(\(geometryType.ogcColumnType), \(layer.spatialReference.epsg))")
        }
        columns += PostgresTracking.columns
        try connection.execute("CREATE TABLE \(quoted) (\(columns.joined(separator: ", ")))")
        try connection.execute(
            "CREATE UNIQUE INDEX \(PostgresQuery.quoted(identifier: "\(table)_globalid")) ON \(quoted) (\(PostgresQuery.quoted(identifier: layer.globalIdField)))"
        )
        try connection.execute(PostgresTracking.changeIndex(table: table))
        if layer.geometryType != nil {
            try connection.execute(
                "CREATE INDEX \(PostgresQuery.quoted(identifier: "\(table)_shape")) ON \(quoted) USING gist (\(StoredLayer.geometryColumn))")
        }
        if layer.hasAttachments {
            let attach = "\(table)__attach"
            try connection.execute(
                """
                CREATE TABLE \(PostgresQuery.quoted(identifier: attach)) (
                    "ATTACHMENTID" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    "GLOBALID" text NOT NULL UNIQUE,
                    "REL_GLOBALID" text NOT NULL,
                    "CONTENT_TYPE" text NOT NULL,
                    "ATT_NAME" text NOT NULL,
                    "DATA_SIZE" bigint NOT NULL,
                    "KEYWORDS" text NOT NULL DEFAULT '',
                    "BLOB_KEY" text NOT NULL,
                    \(PostgresTracking.columns.joined(separator: ", ")));
                CREATE INDEX \(PostgresQuery.quoted(identifier: "\(attach)_rel")) ON \(PostgresQuery.quoted(identifier: attach)) ("REL_GLOBALID");
                \(PostgresTracking.changeIndex(table: attach))
                """)
        }
        var editFieldsInfo: String?
        if let info = layer.editFieldsInfo {
            let json: JSONValue = [
                "creationDateField": .string(info.creationDateField), "creatorField": .string(info.creatorField),
                "editDateField": .string(info.editDateField), "editorField": .string(info.editorField),
            ]
            editFieldsInfo = json.jsonText
        }
        try connection.query(
            """
            INSERT INTO outpost_layers(service, layer_id, name, kind, description, geometry_type, wkid, object_id_field,
                global_id_field, display_field, has_attachments, max_record_count, table_name, edit_fields_info, last_edit_date, subtypes)
            VALUES (\(service), \(layer.id), \(layer.name), \(layer.kind.rawValue), \(layer.description), \(layer.geometryType?.rawValue),
                \(layer.spatialReference.wkid), \(layer.objectIdField), \(layer.globalIdField), \(layer.displayField), \(layer.hasAttachments),
                \(layer.maxRecordCount), \(table), \(editFieldsInfo), \(now), \(layer.subtypes?.json().jsonText))
            """)
        for (position, field) in layer.fields.enumerated() {
            try connection.query(
                """
                INSERT INTO outpost_fields(service, layer_id, position, name, type, alias, length, nullable, editable, default_value, domain)
                VALUES (\(service), \(layer.id), \(position), \(field.name), \(field.type.rawValue), \(field.alias), \(field.length),
                    \(field.nullable), \(field.editable), \(field.defaultValue.jsonText), \(field.domain.jsonText))
                """)
        }
        for relationship in layer.relationships {
            try connection.query(
                """
                INSERT INTO outpost_relationships(service, layer_id, relationship_id, name, related_table_id, cardinality, role, key_field, composite)
                VALUES (\(service), \(layer.id), \(relationship.id), \(relationship.name), \(relationship.relatedTableId),
                    \(relationship.cardinality.rawValue), \(relationship.role.rawValue), \(relationship.keyField), \(relationship.composite))
                """)
        }
    }
}

/// The change stamps every layer and attachment table carries (docs/postgres.md,
/// "Generations"): the transaction that last wrote the row (set by the `outpost_stamp`
/// trigger), the one that created it, and the replica whose sync wrote it.
enum PostgresTracking {
    static let columns = [
        "outpost_xid bigint NOT NULL DEFAULT \(GenerationTicks.stamp)",
        "outpost_created_xid bigint NOT NULL DEFAULT \(GenerationTicks.stamp)",
        "outpost_replica text",
        // The replica whose sync created the row (nil: online): "the replica has it" even
        // when it was created after the replica's tick.
        "outpost_created_by text",
    ]

    /// "Changed since a snapshot, not by this replica", answered from the index; and the
    /// trigger that stamps every insert and update.
    static func changeIndex(table: String) -> String {
        let quoted = PostgresQuery.quoted(identifier: table)
        return """
            CREATE INDEX \(PostgresQuery.quoted(identifier: "\(table)_changes")) ON \(quoted) (outpost_xid, outpost_replica, outpost_created_xid);
            CREATE TRIGGER outpost_stamp BEFORE INSERT OR UPDATE ON \(quoted) FOR EACH ROW EXECUTE FUNCTION outpost_stamp();
            """
    }
}
