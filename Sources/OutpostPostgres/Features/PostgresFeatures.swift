import Foundation
import OutpostGeometry
import OutpostStorage
import OutpostWhereSQL
import OutpostWire

/// Reading features on PostgreSQL: queries, counts and extents, with the SpatiaLite
/// backend's answers (docs/postgres.md, "Queries"). The `where` is compiled by the shared
/// `WhereCompiler` in its PostgreSQL dialect (`PostgresWhereDialect`); geometries travel as WKB.
public struct PostgresFeatures: FeatureQuerying {
    let pool: PostgresPool
    let held: PostgresCatalog
    /// The data folder attachment keys are read under.
    let files: AttachmentFiles

    static let maximumObjectIds = 100_000

    public func count(service: String, layer layerId: Int) throws -> Int {
        let layer = try held.load().existingLayer(service: service, id: layerId)
        return try pool.query("SELECT count(*) FROM \(identifier: layer.tableName)").first?.int(0) ?? 0
    }

    /// The exact extent of a layer's geometries (`ST_Extent`), kept inside its reference's
    /// domain (docs/decisions.md, "Coordinate domains").
    public func extent(of layer: StoredLayer) throws -> Envelope {
        guard layer.isSpatial else { return .empty }
        return try pool.withConnection { try Self.extent(of: layer, to: layer.srid, connection: $0) }
    }

    public func fullExtent(of service: StoredService) throws -> Envelope {
        try pool.withConnection { connection in
            var envelope = Envelope.empty
            for layer in service.layers where layer.isSpatial {
                envelope.expand(try Self.extent(of: layer, to: service.definition.spatialReference.epsg, connection: connection))
            }
            return envelope
        }
    }

    public func lastEditDate(of layer: StoredLayer) throws -> Int64 {
        try pool.query(
            """
            SELECT greatest(l.last_edit_date, (SELECT max(e.last_edit_date) FROM outpost_layer_edits e WHERE e.service = l.service AND e.layer_id = l.layer_id))
            FROM outpost_layers l WHERE l.service = \(layer.serviceName) AND l.layer_id = \(layer.definition.id)
            """
        ).first?.int64(0) ?? 0
    }

    /// Answers a layer query in one snapshot. The `where` is parsed and compiled, never pasted;
    /// what PostgreSQL refuses of a valid parse (a text compared with a number) is the
    /// client's invalid query, not a server error.
    public func query(_ query: LayerQuery, service: String, layer layerId: Int) throws -> QueryAnswer {
        let layer = try held.load().existingLayer(service: service, id: layerId)
        do {
            return try pool.transaction(.repeatableRead) { try Self.answer(query, layer: layer, connection: $0) }
        } catch let error as PostgresError where error.kind == .statement && ["22", "42"].contains(error.sqlState?.prefix(2) ?? "") {
            throw StorageRefusal.invalidClause(error.message, in: .whereClause)
        }
    }

    /// `source`: the rows to read instead of the layer's table (a named version's overlay),
    /// SQL with `?` parameters.
    static func answer(
        _ query: LayerQuery, layer: StoredLayer, source: (sql: String, binds: [PostgresValue])? = nil, connection: PostgresConnection
    ) throws -> QueryAnswer {
        let definition = layer.definition
        let resolve = resolver(for: definition)
        var conditions: [String] = []
        var binds: [PostgresValue] = []
        if let text = query.whereClause {
            let fragment = try compile(where: text, columns: resolve)
            if fragment.sql != "(1 = 1)" {
                conditions.append(fragment.sql)
                binds += fragment.arguments.map(\.postgresValue)
            }
        }
        let oid = "t.\(PostgresQuery.quoted(identifier: definition.objectIdField))"
        if let ids = query.objectIds {
            guard ids.count <= maximumObjectIds else { throw StorageRefusal.tooManyObjectIds(limit: maximumObjectIds) }
            conditions.append("\(oid) = ANY(?)")
            binds.append(PostgresInt64Array(ids).postgresValue)
        }
        if let spatial = query.geometry {
            guard layer.isSpatial else { throw StorageRefusal.notSpatial(layer: definition.name) }
            conditions.append(
                try spatialFilter(spatial, relationship: query.spatialRelationship, layer: layer, connection: connection, binds: &binds))
        }
        let from = " FROM \(source?.sql ?? PostgresQuery.quoted(identifier: layer.tableName)) t"
        // The source comes first in the text, so its parameters are numbered first.
        binds = (source?.binds ?? []) + binds
        let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        func run(_ sql: String) throws -> PostgresResult { try connection.query(PostgresQuery(questionMarks: sql, binds: binds)) }

        if !query.outStatistics.isEmpty {
            return try statistics(query, layer: layer, from: from + whereSQL, binds: binds, connection: connection)
        }
        let outSR = query.answerSpatialReference(for: definition)
        if query.returnDistinctValues && !query.returnIdsOnly && !query.returnExtentOnly {
            return try distinctValues(query, layer: layer, from: from + whereSQL, binds: binds, outSR: outSR, connection: connection)
        }
        if query.returnCountOnly && !query.returnExtentOnly {
            return .count(try run("SELECT count(*)\(from)\(whereSQL)").first?.int(0) ?? 0)
        }
        if query.returnIdsOnly {
            return .objectIds(try run("SELECT \(oid)\(from)\(whereSQL) ORDER BY \(oid)").rows.map { try $0.required(0, $0.int64) })
        }
        if outSR.epsg != layer.srid, query.returnExtentOnly || (query.returnGeometry && layer.isSpatial) {
            guard try isKnownSRID(outSR.epsg, connection: connection) else {
                throw StorageRefusal.unknownSpatialReference(outSR.wkid, of: .outputSpatialReference)
            }
        }
        if query.returnExtentOnly {
            let (count, extent) = try extent(
                from: (from + whereSQL, binds), layer: layer, to: outSR.epsg, connection: connection, withCount: true)
            return .extent(extent, count: count, spatialReference: outSR)
        }
        let fields = try outFields(query, definition: definition)
        var select = fields.map { "t.\(PostgresQuery.quoted(identifier: $0.name))" }
        let wantsGeometry = query.returnGeometry && layer.isSpatial
        let reprojects = wantsGeometry && outSR.epsg != layer.srid
        let attributes = select
        if wantsGeometry { select.append(reprojects ? "ST_AsBinary(ST_Transform(t.shape, \(outSR.epsg)))" : "ST_AsBinary(t.shape)") }
        var order: [String] = []
        for item in query.orderBy {
            guard let column = resolve(item.field) else {
                throw StorageRefusal.unknownField(item.field, in: .orderBy)
            }
            order.append("\(column.sql) \(item.ascending ? "ASC" : "DESC")")
        }
        order.append(oid)
        let pageSize = query.pageSize(for: definition)
        let offset = query.resultOffset ?? 0
        if query.answersNothingOverTheLimit,
            try exceedsPage(from + whereSQL, binds: binds, pageSize: pageSize, offset: offset, connection: connection)
        {
            return .features(FeaturePage(fields: fields, features: [], exceededTransferLimit: true, spatialReference: outSR))
        }
        let page = " ORDER BY \(order.joined(separator: ", ")) LIMIT \(pageSize + 1) OFFSET \(offset)"
        let pageQuery = PostgresQuery(questionMarks: "SELECT \(select.joined(separator: ", "))\(from)\(whereSQL)\(page)", binds: binds)
        let oidIndex = fields.firstIndex { $0.name == definition.objectIdField } ?? 0
        var rows: [PostgresRow]
        // Set when PostGIS could not project every row of the page: the rows projected apart.
        var projectedApart: [Int64: OGCGeometry]?
        if !reprojects {
            rows = try connection.query(pageQuery).rows
        } else if let result = try resultUnlessRefused(pageQuery, connection: connection) {
            rows = result.rows
        } else {
            rows = try run("SELECT \(attributes.joined(separator: ", "))\(from)\(whereSQL)\(page)").rows
            projectedApart = try projectedGeometries(
                ids: rows.prefix(pageSize).compactMap { try $0.int64(oidIndex) }, source: (from, source?.binds ?? []),
                objectIdField: definition.objectIdField, srid: outSR.epsg, connection: connection)
        }
        var features: [QueriedFeature] = []
        features.reserveCapacity(min(rows.count, pageSize))
        for row in rows.prefix(pageSize) {
            var attributes: [JSONValue] = []
            attributes.reserveCapacity(fields.count)
            for (index, field) in fields.enumerated() { attributes.append(try jsonValue(row, index, type: field.type)) }
            var geometry: OGCGeometry?
            if let projectedApart {
                geometry = try row.int64(oidIndex).flatMap { projectedApart[$0] }
            } else if wantsGeometry {
                geometry = try row.bytes(fields.count).flatMap { try? WKB.decode($0) }
            }
            if reprojects, geometry?.isFinite == false { geometry = nil }
            features.append(QueriedFeature(attributes: attributes, geometry: geometry))
        }
        return .features(FeaturePage(fields: fields, features: features, exceededTransferLimit: rows.count > pageSize, spatialReference: outSR))
    }

    static func outFields(_ query: LayerQuery, definition: LayerDefinition) throws -> [FieldDefinition] {
        guard let requested = query.outFields else { return [definition.field(named: definition.objectIdField)!] }
        if requested.contains("*") { return definition.fields }
        var fields = [definition.field(named: definition.objectIdField)!]
        for name in requested {
            guard let field = definition.field(named: name) else {
                throw StorageRefusal.unknownField(name, in: .outFields)
            }
            if !fields.contains(where: { $0.name == field.name }) { fields.append(field) }
        }
        return fields
    }

    static func resolver(for definition: LayerDefinition, alias: String = "t") -> WhereCompiler.Resolver {
        let columns = Dictionary(
            uniqueKeysWithValues: definition.fields.map {
                ($0.name.lowercased(), WhereColumn(sql: "\(alias).\(PostgresQuery.quoted(identifier: $0.name))", type: $0.type))
            })
        return { name in columns[name.lowercased()] }
    }

    /// Compiles a `where` in PostgreSQL's dialect; what the compiler refuses is the request's.
    static func compile(where text: String, columns: @escaping WhereCompiler.Resolver) throws(StorageRefusal) -> SQLFragment {
        do {
            return try WhereCompiler.compile(where: text, columns: columns, dialect: .postgres)
        } catch {
            throw StorageRefusal(error, in: .whereClause)
        }
    }

    /// A value as the SpatiaLite backend answers it, read by the column's Esri type.
    static func jsonValue(_ row: PostgresRow, _ column: Int, type: EsriFieldType) throws -> JSONValue {
        guard let text = row.string(column) else { return .null }
        switch type {
        case .oid, .integer, .smallInteger, .date:
            if let integer = Int64(text) { return .int(integer) }
            return try row.double(column).map(JSONValue.double) ?? .null
        case .double, .single: return try row.double(column).map(JSONValue.double) ?? .null
        case .blob: return .string(Data(try row.bytes(column) ?? []).base64EncodedString())
        case .string, .globalID, .guid, .xml: return .string(text)
        }
    }

    static func isKnownSRID(_ srid: Int, connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT count(*) FROM spatial_ref_sys WHERE srid = \(srid)").first?.int64(0) != 0
    }

    /// The spatial condition, its query geometry bound as WKB and projected by PostGIS into
    /// the layer's spatial reference; Esri's relation names read as the SpatiaLite backend
    /// reads them (the query geometry contains, or is within, the feature).
    static func spatialFilter(
        _ spatial: QueryGeometry, relationship: SpatialRelationship, layer: StoredLayer, connection: PostgresConnection,
        binds: inout [PostgresValue], alias: String = "t"
    ) throws -> String {
        let parsed: (Geometry, SpatialReference?)
        do {
            parsed = try Geometry.fromQueryParameter(spatial.text, geometryType: spatial.geometryType)
            try parsed.0.validate()
        } catch {
            throw StorageRefusal.invalidGeometry(error.description)
        }
        let geometry = parsed.0
        let sourceSR = spatial.spatialReference(named: parsed.1, layer: layer.definition.spatialReference)
        binds.append(.binary(WKB.encode(geometry.polygonized.ogc)))
        var query = "ST_GeomFromWKB(?, \(sourceSR.epsg))"
        if sourceSR.epsg != layer.srid {
            guard try isKnownSRID(sourceSR.epsg, connection: connection) else {
                throw StorageRefusal.unknownSpatialReference(sourceSR.wkid, of: .geometrySpatialReference)
            }
            query = "ST_Transform(\(query), \(layer.srid))"
            if case .envelope = geometry { query = "ST_Envelope(\(query))" }
        }
        let shape = "\(alias).shape"
        switch relationship {
        case .envelopeIntersects, .indexIntersects: return "\(shape) && \(query)"
        case .intersects: return "ST_Intersects(\(shape), \(query))"
        case .contains: return "ST_Contains(\(query), \(shape))"
        case .within: return "ST_Within(\(query), \(shape))"
        case .crosses: return "ST_Crosses(\(query), \(shape))"
        case .overlaps: return "ST_Overlaps(\(query), \(shape))"
        case .touches: return "ST_Touches(\(query), \(shape))"
        }
    }
}
