import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostWhereSQL
import OutpostWire

/// Reading features: queries, counts, extents, attachments, and the bulk load (`FeatureQuerying`, `AttachmentReading`).
public struct SpatiaLiteFeatures: FeatureQuerying, AttachmentReading, StoreRepository {
    public let database: StoreDatabase
}

extension SpatiaLiteFeatures {
    /// When the layer last changed (epoch ms). Read on demand: edits update one row instead of
    /// invalidating the cached catalog.
    public func lastEditDate(of layer: StoredLayer) throws -> Int64 {
        try pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT last_edit_date FROM outpost_layers WHERE service = ? AND layer_id = ?",
                arguments: [layer.serviceName, layer.definition.id]) ?? 0
        }
    }

    public func count(service: String, layer layerId: Int) throws -> Int {
        let layer = try self.layer(service: service, id: layerId)
        return try pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \(layer.tableName.quotedDatabaseIdentifier)") ?? 0
        }
    }

    /// Answers a layer query. The `where` is parsed and compiled, never pasted.
    public func query(_ query: LayerQuery, service: String, layer layerId: Int) throws -> QueryAnswer {
        let layer = try self.layer(service: service, id: layerId)
        return try pool.read { db in try Self.answer(query, layer: layer, db: db) }
    }

    static let maximumObjectIds = 100_000

    /// `version`: a named version's rows overlay DEFAULT's (its rows are not in the R-tree:
    /// spatial filters then test every row).
    static func answer(_ query: LayerQuery, layer: StoredLayer, version: String? = nil, db: Database) throws -> QueryAnswer {
        let definition = layer.definition
        let resolve = Self.resolver(for: definition)
        var conditions: [String] = []
        var arguments: [DatabaseValue] = version.map { [$0.databaseValue, $0.databaseValue] } ?? []

        if let text = query.whereClause {
            let fragment = try compile(where: text, columns: resolve)
            if fragment.sql != "(1 = 1)" {
                conditions.append(fragment.sql)
                arguments.append(contentsOf: fragment.arguments.map(\.databaseValue))
            }
        }
        let oid = "t.\(definition.objectIdField.quotedDatabaseIdentifier)"
        if let ids = query.objectIds {
            guard ids.count <= maximumObjectIds else {
                throw StorageRefusal.tooManyObjectIds(limit: maximumObjectIds)
            }
            conditions.append(ids.isEmpty ? "0" : "\(oid) IN (\(ids.map(String.init).joined(separator: ",")))")
        }
        if let spatial = query.geometry {
            guard layer.isSpatial else { throw StorageRefusal.notSpatial(layer: definition.name) }
            let filter = try spatialFilter(spatial, relationship: query.spatialRelationship, layer: layer, db: db)
            if filter.isEmptyResult {
                conditions.append("0")
            } else {
                if filter.useIndex && version == nil {
                    // The R*Tree's ids as a list: SQLite sorts them and reads the rows in
                    // OBJECTID order, which is the page's order too (a join read them in the
                    // tree's order and sorted whole rows after).
                    conditions.append(
                        "\(oid) IN (SELECT pkid FROM \(layer.spatialIndexTable.quotedDatabaseIdentifier) WHERE xmin <= ? AND xmax >= ? AND ymin <= ? AND ymax >= ?)"
                    )
                    arguments.append(contentsOf: [filter.bbox.xmax, filter.bbox.xmin, filter.bbox.ymax, filter.bbox.ymin].map(\.databaseValue))
                }
                conditions.append(filter.predicate)
                arguments.append(contentsOf: filter.arguments)
            }
        }
        let source = version == nil ? layer.tableName.quotedDatabaseIdentifier : try SpatiaLiteVersions.overlay(layer, db: db)
        let from = " FROM \(source) t"
        let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let statementArguments = StatementArguments(arguments)

        if !query.outStatistics.isEmpty {
            return try statistics(query, layer: layer, from: from + whereSQL, arguments: statementArguments, db: db)
        }
        let outSR = query.answerSpatialReference(for: definition)
        if query.returnDistinctValues && !query.returnIdsOnly && !query.returnExtentOnly {
            return try distinctValues(query, layer: layer, from: from + whereSQL, arguments: statementArguments, outSR: outSR, db: db)
        }
        if query.returnCountOnly && !query.returnExtentOnly {
            let count = try Int.fetchOne(db, sql: "SELECT count(*)\(from)\(whereSQL)", arguments: statementArguments) ?? 0
            return .count(count)
        }
        if query.returnIdsOnly {
            let ids = try Int64.fetchAll(db, sql: "SELECT \(oid)\(from)\(whereSQL) ORDER BY \(oid)", arguments: statementArguments)
            return .objectIds(ids)
        }
        if query.returnExtentOnly {
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*), min(MbrMinX(t.shape)), min(MbrMinY(t.shape)), max(MbrMaxX(t.shape)), max(MbrMaxY(t.shape))\(from)\(whereSQL)
                    """, arguments: statementArguments)
            let count: Int = row?[0] ?? 0
            var extent = Envelope.empty
            if let row, let xmin: Double = row[1], let ymin: Double = row[2], let xmax: Double = row[3], let ymax: Double = row[4] {
                extent = Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
            }
            extent = try projectedExtent(extent, from: layer.srid, to: outSR.epsg, db: db)
            return .extent(extent, count: count, spatialReference: outSR)
        }

        // Features.
        var fields: [FieldDefinition] = []
        if let requested = query.outFields {
            if requested.contains("*") {
                fields = definition.fields
            } else {
                fields = [definition.field(named: definition.objectIdField)!]
                for name in requested {
                    guard let field = definition.field(named: name) else {
                        throw StorageRefusal.unknownField(name, in: .outFields)
                    }
                    if !fields.contains(where: { $0.name == field.name }) { fields.append(field) }
                }
            }
        } else {
            fields = [definition.field(named: definition.objectIdField)!]
        }
        var select = fields.map { "t.\($0.name.quotedDatabaseIdentifier)" }
        let wantsGeometry = query.returnGeometry && layer.isSpatial
        // What PROJ cannot project comes back as infinities: such a feature is answered without geometry.
        let reprojects = wantsGeometry && outSR.epsg != layer.srid
        if wantsGeometry {
            if !reprojects {
                select.append("t.shape")
            } else {
                guard try isKnownSRID(outSR.epsg, db: db) else {
                    throw StorageRefusal.unknownSpatialReference(outSR.wkid, of: .outputSpatialReference)
                }
                select.append("ST_Transform(t.shape, \(outSR.epsg), NULL, 'EPSG:\(layer.srid)', 'EPSG:\(outSR.epsg)')")
            }
        }
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
            try exceedsPage(from + whereSQL, arguments: statementArguments, pageSize: pageSize, offset: offset, db: db)
        {
            return .features(FeaturePage(fields: fields, features: [], exceededTransferLimit: true, spatialReference: outSR))
        }
        let sql =
            "SELECT \(select.joined(separator: ", "))\(from)\(whereSQL) ORDER BY \(order.joined(separator: ", ")) LIMIT \(pageSize + 1) OFFSET \(offset)"
        var features: [QueriedFeature] = []
        features.reserveCapacity(min(pageSize, 4096))
        var exceeded = false
        let geometryIndex = fields.count
        // Columns read in place (no `Row` of `DatabaseValue`s per feature), through a statement
        // prepared once per connection: the same layer is queried with the same SQL.
        let rows = try RawRowReader(statement: try db.cachedStatement(sql: sql), arguments: statementArguments)
        defer { rows.reset() }
        while try rows.step(db: db) {
            if features.count == pageSize {
                exceeded = true
                break
            }
            var attributes: [JSONValue] = []
            attributes.reserveCapacity(fields.count)
            for index in 0..<fields.count { attributes.append(jsonValue(rows, Int32(index))) }
            var geometry: OGCGeometry?
            if wantsGeometry, let bytes = rows.bytes(Int32(geometryIndex)) {
                geometry = try? SpatiaLiteBlob.decode(bytes)
                if reprojects, geometry?.isFinite == false { geometry = nil }
            }
            features.append(QueriedFeature(attributes: attributes, geometry: geometry))
        }
        return .features(FeaturePage(fields: fields, features: features, exceededTransferLimit: exceeded, spatialReference: outSR))
    }

    static func resolver(for definition: LayerDefinition, alias: String = "t") -> WhereCompiler.Resolver {
        let columns = Dictionary(
            uniqueKeysWithValues: definition.fields.map {
                ($0.name.lowercased(), WhereColumn(sql: "\(alias).\($0.name.quotedDatabaseIdentifier)", type: $0.type))
            })
        return { name in columns[name.lowercased()] }
    }

    /// Compiles a `where` in SQLite's dialect; what the compiler refuses is the request's.
    static func compile(where text: String, columns: @escaping WhereCompiler.Resolver) throws(StorageRefusal) -> SQLFragment {
        do {
            return try WhereCompiler.compile(where: text, columns: columns, dialect: .sqlite)
        } catch {
            throw StorageRefusal(error, in: .whereClause)
        }
    }

    static func jsonValue(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: .null
        case .int64(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .blob(let data): .string(data.base64EncodedString())
        }
    }

    /// A column of the row `reader` is on, as `jsonValue(_:)` would make its `DatabaseValue`.
    static func jsonValue(_ reader: RawRowReader, _ column: Int32) -> JSONValue {
        switch reader.storageClass(column) {
        case .null: .null
        case .integer: .int(reader.int64(column))
        case .real: .double(reader.double(column))
        case .text: .string(reader.text(column) ?? "")
        case .blob: .string(Data(reader.bytes(column) ?? []).base64EncodedString())
        }
    }

    static func isKnownSRID(_ srid: Int, db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM spatial_ref_sys WHERE srid = ?", arguments: [srid]) ?? false
    }

    static func transform(_ geometry: OGCGeometry, from source: Int, to target: Int, db: Database) throws -> OGCGeometry {
        guard source != target else { return geometry }
        let blob = Data(SpatiaLiteBlob.encode(geometry, srid: Int32(source)))
        guard let data = try Data.fetchOne(db, sql: "SELECT ST_Transform(?, ?)", arguments: [blob, target]) else {
            throw ArcGISError.invalidQuery("cannot project from spatial reference \(source) to \(target)")
        }
        return try SpatiaLiteBlob.decode([UInt8](data))
    }

    struct SpatialFilter {
        var bbox: Envelope
        var useIndex: Bool
        var predicate: String
        var arguments: [DatabaseValue]
        var isEmptyResult: Bool
    }

    static func spatialFilter(
        _ spatial: QueryGeometry, relationship: SpatialRelationship, layer: StoredLayer, db: Database,
        alias: String = "t"
    ) throws -> SpatialFilter {
        let parsed: (Geometry, SpatialReference?)
        do {
            parsed = try Geometry.fromQueryParameter(spatial.text, geometryType: spatial.geometryType)
        } catch {
            throw StorageRefusal.invalidGeometry(error.description)
        }
        var geometry = parsed.0
        do { try geometry.validate() } catch {
            throw StorageRefusal.invalidGeometry(error.description)
        }
        let sourceSR = spatial.spatialReference(named: parsed.1, layer: layer.definition.spatialReference)
        if sourceSR.epsg != layer.srid {
            guard try isKnownSRID(sourceSR.epsg, db: db) else {
                throw StorageRefusal.unknownSpatialReference(sourceSR.wkid, of: .geometrySpatialReference)
            }
            let projected = try transform(geometry.polygonized.ogc, from: sourceSR.epsg, to: layer.srid, db: db)
            if case .envelope = geometry {
                geometry = .envelope(projected.envelope)
            } else {
                geometry = Geometry(ogc: projected)
            }
        }
        let bbox = geometry.envelope
        let layerExtent = try extent(of: layer, db: db)
        guard bbox.intersects(layerExtent) else {
            return SpatialFilter(bbox: bbox, useIndex: false, predicate: "0", arguments: [], isEmptyResult: true)
        }
        // The R*Tree pays off unless the box covers most of the layer; then a scan in
        // OBJECTID order with the exact test is cheaper than sorting every index hit.
        let coverage = layerExtent.area > 0 ? bbox.intersection(layerExtent).area / layerExtent.area : 1
        let useIndex = coverage < 0.5
        let isPointLayer = layer.definition.geometryType == .point
        let queryBlob = Data(SpatiaLiteBlob.encode(geometry.polygonized.ogc, srid: Int32(layer.srid))).databaseValue
        let mbr = "BuildMbr(?, ?, ?, ?)"
        let mbrArguments = [bbox.xmin, bbox.ymin, bbox.xmax, bbox.ymax].map(\.databaseValue)
        var predicate: String
        var arguments: [DatabaseValue]
        switch relationship {
        case .envelopeIntersects, .indexIntersects:
            (predicate, arguments) = ("MbrIntersects(\(alias).shape, \(mbr)) = 1", mbrArguments)
        case .intersects:
            if case .envelope = geometry, isPointLayer {
                (predicate, arguments) = ("MbrIntersects(\(alias).shape, \(mbr)) = 1", mbrArguments)
            } else {
                (predicate, arguments) = ("ST_Intersects(\(alias).shape, ?) = 1", [queryBlob])
            }
        case .contains:
            // Esri: the query geometry contains the feature.
            (predicate, arguments) = ("ST_Contains(?, \(alias).shape) = 1", [queryBlob])
        case .within:
            // Esri: the query geometry is within the feature.
            (predicate, arguments) = ("ST_Within(?, \(alias).shape) = 1", [queryBlob])
        case .crosses:
            (predicate, arguments) = ("ST_Crosses(?, \(alias).shape) = 1", [queryBlob])
        case .overlaps:
            (predicate, arguments) = ("ST_Overlaps(?, \(alias).shape) = 1", [queryBlob])
        case .touches:
            (predicate, arguments) = ("ST_Touches(?, \(alias).shape) = 1", [queryBlob])
        }
        return SpatialFilter(bbox: bbox, useIndex: useIndex, predicate: predicate, arguments: arguments, isEmptyResult: false)
    }
}
