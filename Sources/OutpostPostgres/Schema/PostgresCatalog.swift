import OutpostStorage
import OutpostWire
import Synchronization

/// The catalog a process holds, and the version row it was read at. Every read of the catalog
/// compares the version row (one indexed single-row read) and reloads when another process —
/// or this one — changed the schema meanwhile: no process serves a service another deleted.
final class PostgresCatalog: Sendable {
    private let pool: PostgresPool
    private let held = Mutex<(version: Int64, catalog: Catalog)?>(nil)

    init(pool: PostgresPool) { self.pool = pool }

    /// The current catalog. When the database cannot be asked this throws: the catalog held
    /// may name a service another process deleted, or miss one it made.
    func current() throws(StoreError) -> Catalog {
        do { return try load() } catch { throw Self.storeError(error) }
    }

    /// A failed catalog read as the store reports it: unavailable (503, retried) while the
    /// database cannot be reached, a server fault otherwise.
    static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? PostgresError { return error.isUnavailable ? .unavailable(error.description) : .database(error.description) }
        return .database(String(describing: error))
    }

    /// The statement that reads the version row (`cached(atVersion:)` takes its answer).
    static let versionQuery = "SELECT version FROM outpost_catalog_version"

    /// The catalog held, when it is at `version` (read by the caller in a statement of its
    /// own: one round trip fewer for a request that starts a transaction anyway).
    func cached(atVersion version: Int64) -> Catalog? {
        held.withLock { $0?.version == version ? $0?.catalog : nil }
    }

    func load() throws -> Catalog {
        try pool.withConnection { try load(on: $0) }
    }

    /// The current catalog, read on `connection` (outside a transaction) when the one held is old.
    func load(on connection: PostgresConnection) throws -> Catalog {
        let version = try connection.query("\(unescaped: Self.versionQuery)").first?.int64(0) ?? 0
        if let catalog = cached(atVersion: version) { return catalog }
        // Read at one snapshot, with the version it belongs to.
        let (read, catalog) = try connection.transaction(.repeatableRead) { connection in
            (try connection.query("\(unescaped: Self.versionQuery)").first?.int64(0) ?? 0, try Self.read(connection))
        }
        held.withLock { $0 = (read, catalog) }
        return catalog
    }

    /// Marks the schema changed, inside the transaction that changes it.
    static func bump(_ connection: PostgresConnection) throws {
        try connection.query("UPDATE outpost_catalog_version SET version = version + 1")
    }

    static func read(_ connection: PostgresConnection) throws -> Catalog {
        let fields = try connection.query(
            """
            SELECT service, layer_id, name, type, alias, length, nullable, editable, default_value, domain
            FROM outpost_fields ORDER BY service, layer_id, position
            """
        ).rows
        var fieldsByLayer: [String: [FieldDefinition]] = [:]
        for f in fields {
            let key = "\(f.string(0) ?? "")/\(try f.required(1, f.int))"
            fieldsByLayer[key, default: []].append(
                FieldDefinition(
                    name: try f.required(2, f.string), type: EsriFieldType(rawValue: f.string(3) ?? "") ?? .string,
                    alias: f.string(4) ?? "", length: try f.int(5), nullable: try f.required(6, f.bool), editable: try f.required(7, f.bool),
                    defaultValue: (try? JSONParser.parse(f.string(8) ?? "null")) ?? .null,
                    domain: (try? JSONParser.parse(f.string(9) ?? "null")) ?? .null))
        }
        var relationshipsByLayer: [String: [RelationshipDefinition]] = [:]
        for r in try connection.query(
            """
            SELECT service, layer_id, relationship_id, name, related_table_id, cardinality, role, key_field, composite
            FROM outpost_relationships ORDER BY service, layer_id, relationship_id
            """
        ).rows {
            guard let cardinality = r.string(5).flatMap(RelationshipDefinition.Cardinality.init(rawValue:)),
                let role = r.string(6).flatMap(RelationshipDefinition.Role.init(rawValue:))
            else { continue }
            relationshipsByLayer["\(r.string(0) ?? "")/\(try r.required(1, r.int))", default: []].append(
                RelationshipDefinition(
                    id: try r.required(2, r.int), name: try r.required(3, r.string), relatedTableId: try r.required(4, r.int),
                    cardinality: cardinality, role: role, keyField: try r.required(7, r.string), composite: try r.required(8, r.bool)))
        }
        var layersByService: [String: [StoredLayer]] = [:]
        for l in try connection.query(
            """
            SELECT l.service, l.layer_id, l.name, l.kind, l.description, l.geometry_type, l.wkid, l.object_id_field, l.global_id_field,
                l.display_field, l.has_attachments, l.max_record_count, l.table_name, l.edit_fields_info, s.is_versioned, l.subtypes
            FROM outpost_layers l JOIN outpost_services s ON s.name = l.service ORDER BY l.service, l.layer_id
            """
        ).rows {
            let service = try l.required(0, l.string)
            let id = try l.required(1, l.int)
            var editFieldsInfo: LayerDefinition.EditFieldsInfo?
            if let text = l.string(13), let json = try? JSONParser.parse(text) {
                editFieldsInfo = LayerDefinition.EditFieldsInfo(
                    creationDateField: json["creationDateField"]?.stringValue ?? "CreationDate",
                    creatorField: json["creatorField"]?.stringValue ?? "Creator",
                    editDateField: json["editDateField"]?.stringValue ?? "EditDate", editorField: json["editorField"]?.stringValue ?? "Editor")
            }
            let definition = LayerDefinition(
                id: id, name: try l.required(2, l.string), kind: l.string(3).flatMap(LayerDefinition.Kind.init(rawValue:)) ?? .table,
                description: l.string(4) ?? "", geometryType: l.string(5).flatMap(EsriGeometryType.init(rawValue:)),
                spatialReference: SpatialReference(wkid: try l.required(6, l.int)), fields: fieldsByLayer["\(service)/\(id)"] ?? [],
                objectIdField: try l.required(7, l.string), globalIdField: try l.required(8, l.string), displayField: l.string(9) ?? "",
                hasAttachments: try l.required(10, l.bool), relationships: relationshipsByLayer["\(service)/\(id)"] ?? [],
                editFieldsInfo: editFieldsInfo, maxRecordCount: try l.required(11, l.int),
                subtypes: l.string(15).flatMap { try? JSONParser.parse($0) }.flatMap(LayerSubtypes.init(json:)))
            layersByService[service, default: []].append(
                StoredLayer(
                    definition: definition, serviceName: service, tableName: try l.required(12, l.string), isVersioned: try l.required(14, l.bool)))
        }
        var services: [StoredService] = []
        for s in try connection.query(
            "SELECT name, description, is_versioned, capabilities, wkid, max_record_count FROM outpost_services ORDER BY lower(name) COLLATE \"C\", name COLLATE \"C\""
        ).rows {
            let name = try s.required(0, s.string)
            let layers = layersByService[name] ?? []
            let definition = ServiceDefinition(
                name: name, description: s.string(1) ?? "", isVersioned: try s.required(2, s.bool),
                capabilities: (s.string(3) ?? "").split(separator: ",").map(String.init),
                spatialReference: SpatialReference(wkid: try s.required(4, s.int)),
                maxRecordCount: try s.required(5, s.int), layers: layers.map(\.definition))
            services.append(StoredService(definition: definition, layers: layers))
        }
        return Catalog(services: services)
    }
}
