import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostSync
import OutpostWire

/// The rows of one replica layer: a `FROM … WHERE …` over the layer table aliased `t`.
struct ReplicaLayerSelection {
    var layer: StoredLayer
    var replicaLayer: ReplicaLayer
    var from: String
    var arguments: [DatabaseValue]
    /// The filter alone, as a boolean expression over `t` (`1` for every row); with
    /// `useIndex` it may refer to the R-tree joined in `from`.
    var condition: String
}

extension SpatiaLiteSync {
    /// Checks what a plan needs from the store before any work: known spatial references.
    public func validate(_ plan: ReplicaPlan) throws {
        try pool.read { db in
            let target = plan.definition.spatialReference
            guard try SpatiaLiteFeatures.isKnownSRID(target.epsg, db: db) else {
                throw StorageRefusal.unknownSpatialReference(target.wkid, of: .replicaSpatialReference)
            }
            if plan.definition.geometry != nil {
                guard try SpatiaLiteFeatures.isKnownSRID(plan.definition.geometrySpatialReference.epsg, db: db) else {
                    throw StorageRefusal.unknownSpatialReference(
                        plan.definition.geometrySpatialReference.wkid, of: .replicaGeometrySpatialReference)
                }
            }
        }
    }

    /// Takes one consistent snapshot of the replica's rows and writes it to `output`.
    /// `serviceJSON` and `layerJSON` (the resources as served) are stored in GeoPackages only.
    ///
    /// The snapshot is a single read transaction: the generation it reports is the newest one
    /// committed when the transaction began, and every row it exports is as of that moment.
    /// An edit committed concurrently is therefore either in the snapshot with a generation
    /// ≤ the reported one, or later than it, and comes with the next sync — never lost
    /// between the two. Returns the definition stamped with that generation.
    public func exportReplica(
        _ plan: ReplicaPlan, to output: ReplicaOutput, serviceURL: String, serviceJSON: JSONValue,
        layerJSON: [Int: JSONValue], phase: (ServerJobStatus) -> Void = { _ in }
    ) throws -> (ReplicaDefinition, ReplicaExportCounts) {
        let service = try self.service(named: plan.definition.serviceName)
        let directory = self.directory
        // Give the memory of a large export back to the system: exports run on pool threads
        // whose malloc arenas would otherwise keep their peak (glibc).
        defer { Self.releaseFreeMemory() }
        if case .geoPackage(let path) = output {
            return try exportGeoPackage(
                plan, service: service, path: path, serviceURL: serviceURL, serviceJSON: serviceJSON, layerJSON: layerJSON, phase: phase)
        }
        guard case .records(let receiver) = output else { preconditionFailure("two kinds of output") }
        return try pool.read { db in
            // A snapshot scans each table once: a large page cache buys nothing and would
            // stay filled on this pooled connection.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -65536
            try db.execute(sql: "PRAGMA cache_size = -4096")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            var definition = plan.definition
            definition.setGeneration(try SpatiaLiteEdits.newestGeneration(db))
            let selections = try definition.layers.map { try Self.selection(for: $0, of: definition, service: service, db: db) }
            phase(.exportingData)
            var counts = ReplicaExportCounts()
            try receiver.beginReplica(definition, deliversByURL: plan.deliversByURL)
            for selection in selections {
                let layerCounts = try Self.readLayerData(
                    selection, spatialReference: definition.spatialReference,
                    withAttachments: selection.layer.definition.hasAttachments && definition.returnAttachments,
                    directory: directory, db: db, into: receiver)
                counts.features += layerCounts.features
                counts.attachments += layerCounts.attachments
            }
            try receiver.endReplica()
            return (definition, counts)
        }
    }

    /// The SQL selecting a replica layer's rows (§4.3): `all` takes every row; `useFilter` the
    /// layer's `where` and, with `useGeometry`, the rows intersecting the replica geometry
    /// (tables have no geometry to test); `none` takes no rows unless `includeRelated`, which
    /// takes the rows related to the selected rows of origin layers in the replica.
    static func selection(
        for replicaLayer: ReplicaLayer, of replica: ReplicaDefinition, service: StoredService,
        useIndex: Bool = true, db: Database
    ) throws -> ReplicaLayerSelection {
        guard let layer = service.layers.first(where: { $0.definition.id == replicaLayer.layerId }) else {
            throw StoreError.layerNotFound(service: service.definition.name, layer: replicaLayer.layerId)
        }
        var (conditions, arguments, join) = try filter(for: replicaLayer, layer: layer, replica: replica, alias: "t", useIndex: useIndex, db: db)
        if replicaLayer.queryOption == .none {
            var related: [String] = []
            for origin in service.relatedOrigins(of: layer, as: replicaLayer, in: replica) {
                let (originConditions, originArguments, _) = try filter(
                    for: origin.replicaLayer, layer: origin.layer, replica: replica, alias: "o", useIndex: false, db: db)
                let whereSQL = originConditions.isEmpty ? "" : " WHERE " + originConditions.joined(separator: " AND ")
                related.append(
                    "t.\(origin.keyField.quotedDatabaseIdentifier) IN (SELECT o.\(origin.originKey.quotedDatabaseIdentifier) FROM \(origin.layer.tableName.quotedDatabaseIdentifier) o\(whereSQL))"
                )
                arguments.append(contentsOf: originArguments)
            }
            conditions = [related.isEmpty ? "0" : "(" + related.joined(separator: " OR ") + ")"]
            join = ""
        }
        let condition = conditions.isEmpty ? "1" : conditions.map { "(\($0))" }.joined(separator: " AND ")
        return ReplicaLayerSelection(
            layer: layer, replicaLayer: replicaLayer,
            from: " FROM \(layer.tableName.quotedDatabaseIdentifier) t\(join) WHERE \(condition)", arguments: arguments,
            condition: condition)
    }

    /// The `useFilter` conditions of a layer (none for `all`).
    private static func filter(
        for replicaLayer: ReplicaLayer, layer: StoredLayer, replica: ReplicaDefinition, alias: String,
        useIndex: Bool, db: Database
    ) throws -> (conditions: [String], arguments: [DatabaseValue], join: String) {
        guard replicaLayer.queryOption == .useFilter else { return ([], [], "") }
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        var join = ""
        if let text = replicaLayer.whereClause {
            let fragment = try SpatiaLiteFeatures.compile(where: text, columns: SpatiaLiteFeatures.resolver(for: layer.definition, alias: alias))
            conditions.append(fragment.sql)
            arguments.append(contentsOf: fragment.arguments.map(\.databaseValue))
        }
        if replicaLayer.useGeometry, layer.isSpatial, let geometry = replica.geometry {
            let spatial = QueryGeometry(text: geometry.esriJSONText, geometryType: nil, inSR: replica.geometrySpatialReference)
            let filter = try SpatiaLiteFeatures.spatialFilter(spatial, relationship: .intersects, layer: layer, db: db, alias: alias)
            if filter.isEmptyResult {
                conditions.append("0")
            } else {
                if filter.useIndex && useIndex {
                    let oid = "\(alias).\(layer.definition.objectIdField.quotedDatabaseIdentifier)"
                    join = " JOIN \(layer.spatialIndexTable.quotedDatabaseIdentifier) r ON r.pkid = \(oid)"
                    conditions.append("r.xmin <= ? AND r.xmax >= ? AND r.ymin <= ? AND r.ymax >= ?")
                    arguments.append(contentsOf: [filter.bbox.xmax, filter.bbox.xmin, filter.bbox.ymax, filter.bbox.ymin].map(\.databaseValue))
                }
                conditions.append(filter.predicate)
                arguments.append(contentsOf: filter.arguments)
            }
        }
        return (conditions, arguments, join)
    }

    /// Calls `body` with every selected row: values aligned with the layer's fields (as
    /// stored) and the geometry in `spatialReference`.
    static func forEachFeature(
        _ selection: ReplicaLayerSelection, spatialReference: SpatialReference, db: Database,
        _ body: ([DatabaseValue], OGCGeometry?) throws -> Void
    ) throws {
        let layer = selection.layer
        let columns = featureColumns(layer, spatialReference: spatialReference)
        let oid = "t.\(layer.definition.objectIdField.quotedDatabaseIdentifier)"
        let statement = try db.makeStatement(sql: "SELECT \(columns.joined(separator: ", "))\(selection.from) ORDER BY \(oid)")
        try forEachFeatureRow(layer, statement: statement, arguments: StatementArguments(selection.arguments), db: db) { values, geometry, _, _ in
            try body(values, geometry)
        }
    }

    /// Steps a statement whose first columns are `featureColumns(layer, …)`: `body` gets the
    /// field values, the decoded geometry, and the reader with the index of the first column
    /// after them.
    static func forEachFeatureRow(
        _ layer: StoredLayer, statement: Statement, arguments: StatementArguments, db: Database,
        _ body: ([DatabaseValue], OGCGeometry?, RawRowReader, Int32) throws -> Void
    ) throws {
        let reader = try RawRowReader(statement: statement, arguments: arguments)
        let fieldCount = layer.definition.fields.count
        let next = Int32(fieldCount + (layer.isSpatial ? 1 : 0))
        var values = [DatabaseValue](repeating: .null, count: fieldCount)
        while try reader.step(db: db) {
            for index in 0..<fieldCount { values[index] = reader.value(Int32(index)) }
            var geometry: OGCGeometry?
            if layer.isSpatial, let blob = reader.bytes(Int32(fieldCount)), !blob.isEmpty {
                geometry = try SpatiaLiteBlob.decode(blob)
            }
            try body(values, geometry, reader, next)
        }
    }

    struct ExportedAttachment {
        var id: Int64
        var globalId: String
        var parentGlobalId: String
        var parentObjectId: Int64
        var name: String
        var contentType: String
        var keywords: String
        var size: Int64
        var path: String?
        var bytes: Data?

        /// From a row of `attachmentColumns` (`t` the parent table).
        init(row: Row, directory: String) {
            id = row[0]
            globalId = row[1]
            parentGlobalId = row[2]
            parentObjectId = row[3]
            name = row[4]
            contentType = row[5]
            keywords = row[6] ?? ""
            size = row[7]
            path = (row[8] as String?).map { (directory as NSString).appendingPathComponent($0) }
            bytes = row[9]
        }

        /// The columns `init(row:)` reads, over the attachment table `a` and its parent feature table.
        static func columns(objectIdField: String, parent: String) -> String {
            """
            a.ATTACHMENTID, a.GLOBALID, a.REL_GLOBALID, \(parent).\(objectIdField.quotedDatabaseIdentifier), a.ATT_NAME, a.CONTENT_TYPE, a.KEYWORDS,
            a.DATA_SIZE, a.DATA_PATH, CASE WHEN a.DATA_PATH IS NULL THEN a.DATA END
            """
        }

        func data() throws -> Data {
            if let path { return try Data(contentsOf: URL(fileURLWithPath: path)) }
            return bytes ?? Data()
        }

        /// Writes this attachment into a replica file or delta being written (`db`: from inside
        /// the writer's own connection).
        func write(to writer: ReplicaLayerWriter, logging operation: DeltaOperation? = nil, db: Database? = nil) throws {
            try writer.insertAttachment(
                attachmentId: id, globalId: globalId, parentGlobalId: parentGlobalId, name: name, contentType: contentType,
                keywords: keywords, data: try data(), logging: operation, db: db)
        }
    }

    /// Calls `body` with the attachments of the selected rows, in attachment id order.
    static func forEachAttachment(
        _ selection: ReplicaLayerSelection, directory: String, db: Database,
        _ body: (ExportedAttachment) throws -> Void
    ) throws {
        let layer = selection.layer
        let gid = layer.definition.globalIdField.quotedDatabaseIdentifier
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT \(ExportedAttachment.columns(objectIdField: layer.definition.objectIdField, parent: "p"))
                FROM \(layer.attachmentTable.quotedDatabaseIdentifier) a
                JOIN \(layer.tableName.quotedDatabaseIdentifier) p ON p.\(gid) = a.REL_GLOBALID
                WHERE a.REL_GLOBALID IN (SELECT t.\(gid)\(selection.from))
                ORDER BY a.ATTACHMENTID
                """, arguments: StatementArguments(selection.arguments))
        while let row = try rows.next() {
            try body(ExportedAttachment(row: row, directory: directory))
        }
    }

    static func releaseFreeMemory() {
        #if os(Linux)
            _ = outpostMallocTrim(0)
        #endif
    }

    /// The spatial reference systems a GeoPackage needs, from SpatiaLite's EPSG table.
    static func geoPackageSpatialReferences(_ codes: [Int], db: Database) throws -> [GeoPackageSpatialReference] {
        var result: [GeoPackageSpatialReference] = []
        for code in Set(codes) {
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT ref_sys_name, auth_name, auth_srid, srtext FROM spatial_ref_sys WHERE srid = ?",
                    arguments: [code])
            else { continue }
            let wkt: String = row["srtext"] ?? "undefined"
            result.append(
                GeoPackageSpatialReference(
                    srsId: code, name: row["ref_sys_name"] ?? "EPSG:\(code)",
                    organization: (row["auth_name"] as String?)?.uppercased() ?? "EPSG",
                    code: row["auth_srid"] ?? code, definition: wkt.isEmpty ? "undefined" : wkt))
        }
        return result
    }
}

#if os(Linux)
    /// glibc's `malloc_trim` (declared in malloc.h, which Swift's Glibc module does not export).
    @_silgen_name("malloc_trim")
    private func outpostMallocTrim(_ pad: Int) -> Int32
#endif
