import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// Replicas' data on PostgreSQL (`SyncStore`): snapshots, the sync upload and the change
/// feed, decided by the same pure rules as on SpatiaLite (`SyncRules`, read against ticks:
/// `TransactionSnapshot.row(…)`). Every read of an answer or export is one REPEATABLE READ
/// transaction whose snapshot becomes the generation handed out (docs/postgres.md,
/// "Generations").
public struct PostgresSync: Sendable {
    let pool: PostgresPool
    let held: PostgresCatalog
    let clock: any WallClock
    /// The edit primitives sync uploads are carried out with, and the attachment files.
    let edits: PostgresEdits

    /// The rows of one replica layer: `FROM … WHERE …` over the layer table aliased `t`.
    struct Selection {
        var layer: StoredLayer
        var replicaLayer: ReplicaLayer
        var condition: String
        var binds: [PostgresValue]

        var from: String { " FROM \(PostgresQuery.quoted(identifier: layer.tableName)) t WHERE \(condition)" }
    }

    /// Checks what a plan needs before any work: known spatial references.
    public func validate(_ plan: ReplicaPlan) throws {
        try pool.withConnection { connection in
            let target = plan.definition.spatialReference
            guard try PostgresFeatures.isKnownSRID(target.epsg, connection: connection) else {
                throw StorageRefusal.unknownSpatialReference(target.wkid, of: .replicaSpatialReference)
            }
            if plan.definition.geometry != nil,
                try !PostgresFeatures.isKnownSRID(plan.definition.geometrySpatialReference.epsg, connection: connection)
            {
                throw StorageRefusal.unknownSpatialReference(plan.definition.geometrySpatialReference.wkid, of: .replicaGeometrySpatialReference)
            }
        }
    }

    /// The rows a replica layer holds (`SpatiaLiteSync.selection`'s rules): `all` every row;
    /// `useFilter` the layer's `where` and, with `useGeometry`, the rows intersecting the
    /// replica geometry; `none` no rows unless `includeRelated`, then the rows related to the
    /// selected rows of origin layers in the replica.
    static func selection(
        for replicaLayer: ReplicaLayer, of replica: ReplicaDefinition, service: StoredService, connection: PostgresConnection
    ) throws -> Selection {
        guard let layer = service.layers.first(where: { $0.definition.id == replicaLayer.layerId }) else {
            throw StoreError.layerNotFound(service: service.definition.name, layer: replicaLayer.layerId)
        }
        var (conditions, binds) = try filter(for: replicaLayer, layer: layer, replica: replica, alias: "t", connection: connection)
        if replicaLayer.queryOption == .none {
            var related: [String] = []
            for origin in service.relatedOrigins(of: layer, as: replicaLayer, in: replica) {
                let (originConditions, originBinds) = try filter(
                    for: origin.replicaLayer, layer: origin.layer, replica: replica, alias: "o", connection: connection)
                let whereSQL = originConditions.isEmpty ? "" : " WHERE " + originConditions.joined(separator: " AND ")
                related.append(
                    "t.\(PostgresQuery.quoted(identifier: origin.keyField)) IN (SELECT o.\(PostgresQuery.quoted(identifier: origin.originKey)) FROM \(PostgresQuery.quoted(identifier: origin.layer.tableName)) o\(whereSQL))"
                )
                binds += originBinds
            }
            conditions = [related.isEmpty ? "false" : "(" + related.joined(separator: " OR ") + ")"]
        }
        let condition = conditions.isEmpty ? "true" : conditions.map { "(\($0))" }.joined(separator: " AND ")
        return Selection(layer: layer, replicaLayer: replicaLayer, condition: condition, binds: binds)
    }

    private static func filter(
        for replicaLayer: ReplicaLayer, layer: StoredLayer, replica: ReplicaDefinition, alias: String, connection: PostgresConnection
    ) throws -> (conditions: [String], binds: [PostgresValue]) {
        guard replicaLayer.queryOption == .useFilter else { return ([], []) }
        var conditions: [String] = []
        var binds: [PostgresValue] = []
        if let text = replicaLayer.whereClause {
            let fragment = try PostgresFeatures.compile(where: text, columns: PostgresFeatures.resolver(for: layer.definition, alias: alias))
            conditions.append(fragment.sql)
            binds += fragment.arguments.map(\.postgresValue)
        }
        if replicaLayer.useGeometry, layer.isSpatial, let geometry = replica.geometry {
            let spatial = QueryGeometry(text: geometry.esriJSONText, geometryType: nil, inSR: replica.geometrySpatialReference)
            conditions.append(
                try PostgresFeatures.spatialFilter(
                    spatial, relationship: .intersects, layer: layer, connection: connection, binds: &binds, alias: alias))
        }
        return (conditions, binds)
    }

    /// The SELECT columns of a feature: the fields, then the geometry (WKB) in `spatialReference`.
    static func featureColumns(_ layer: StoredLayer, spatialReference: SpatialReference) -> [String] {
        var columns = layer.definition.fields.map { "t.\(PostgresQuery.quoted(identifier: $0.name))" }
        if layer.isSpatial {
            let target = spatialReference.epsg
            columns.append(target == layer.srid ? "ST_AsBinary(t.shape)" : "ST_AsBinary(ST_Transform(t.shape, \(target)))")
        }
        return columns
    }

    /// A row of `featureColumns` as a record (values as the SpatiaLite backend reads them).
    static func record(_ row: PostgresRow, layer: StoredLayer) throws -> FeatureRecord {
        let fields = layer.definition.fields
        var attributes: [JSONValue] = []
        attributes.reserveCapacity(fields.count)
        for (index, field) in fields.enumerated() { attributes.append(try PostgresFeatures.jsonValue(row, index, type: field.type)) }
        let geometry = layer.isSpatial ? try row.bytes(fields.count).flatMap { $0.isEmpty ? nil : try WKB.decode($0) } : nil
        return FeatureRecord(attributes: attributes, geometry: geometry)
    }

    /// Every selected row, in OBJECTID order, read through a cursor.
    static func forEachFeature(
        _ selection: Selection, spatialReference: SpatialReference, connection: PostgresConnection, _ body: (FeatureRecord) throws -> Void
    ) throws {
        let layer = selection.layer
        let columns = featureColumns(layer, spatialReference: spatialReference)
        let oid = "t.\(PostgresQuery.quoted(identifier: layer.definition.objectIdField))"
        try connection.forEachRow(
            PostgresQuery(questionMarks: "SELECT \(columns.joined(separator: ", "))\(selection.from) ORDER BY \(oid)", binds: selection.binds)
        ) { row in try body(try record(row, layer: layer)) }
    }

    /// The tick a generation names, as the snapshot to read changes since; the beginning for 0.
    static func snapshot(ofGeneration generation: Int64, connection: PostgresConnection) throws -> TransactionSnapshot {
        if generation == 0 { return GenerationTick.beginning.snapshot }
        guard let snapshot = try GenerationTicks.snapshot(of: generation, on: connection) else {
            throw StorageRefusal.unknownGeneration(generation)
        }
        return snapshot
    }
}
