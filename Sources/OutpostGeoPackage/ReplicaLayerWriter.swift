import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostSync
import OutpostWire

/// Writes one layer's rows and attachments, then its indexes and triggers.
public final class ReplicaLayerWriter {
    let queue: DatabaseQueue
    let layer: ReplicaFileLayer
    public let table: String
    public let attachmentTable: String?
    public let mappingTable: String?
    let srsId: Int
    // Released by `finish` so the connection can close (SQLite refuses to close with live statements).
    private var insertFeature: RawStatementBinder?
    private var insertAttachment: RawStatementBinder?
    private var logChange: RawStatementBinder?
    private var row: [DatabaseValue]
    private let dateColumns: [Int]
    private var entries: RTreeEntries
    public private(set) var featureCount = 0
    public private(set) var attachmentCount = 0

    init(
        db: Database, queue: DatabaseQueue, layer: ReplicaFileLayer, table: String, attachmentTable: String?,
        mappingTable: String?, srsId: Int, scratchDirectory: String
    ) throws {
        entries = RTreeEntries(scratchDirectory: scratchDirectory)
        self.queue = queue
        self.layer = layer
        self.table = table
        self.attachmentTable = attachmentTable
        self.mappingTable = mappingTable
        self.srsId = srsId
        let definition = layer.definition
        var columns: [String] = []
        for field in definition.fields {
            let name = field.name.quotedDatabaseIdentifier
            switch field.type {
            case .oid: columns.append("\(name) INTEGER PRIMARY KEY AUTOINCREMENT")
            // No DEFAULT expression (GDAL cannot parse one): the insert trigger fills it in.
            case .globalID: columns.append("\(name) TEXT(38)")
            default: columns.append("\(name) \(GeoPackageSchema.columnType(for: field))")
            }
        }
        let geometryType = definition.geometryType.map(GeoPackageSchema.geometryTypeName)
        if let geometryType { columns.append("\(GeoPackageSchema.geometryColumn.quotedDatabaseIdentifier) \(geometryType)") }
        try db.execute(sql: "CREATE TABLE \(table.quotedDatabaseIdentifier) (\(columns.joined(separator: ", ")))")
        try db.execute(
            sql: "INSERT INTO gpkg_contents(table_name, data_type, identifier, description, srs_id) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                table, geometryType == nil ? "attributes" : "features", definition.name, definition.description,
                geometryType == nil ? nil : srsId,
            ])
        if let geometryType {
            try db.execute(
                sql: "INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, ?, 0, 0)",
                arguments: [table, GeoPackageSchema.geometryColumn, geometryType, srsId])
        }
        try GeoPackageDomains.write(definition.fields, table: table, db: db)
        // The user table is not registered with outpost_sync: its change-log triggers run in
        // any SQLite and ask nothing of the tool editing it, and a registration would make
        // GDAL and QGIS warn against edits that are safe (docs/replica-format.md).
        let replicaLayer = layer.replicaLayer
        try db.execute(
            sql: """
                INSERT INTO outpost_sync_layers(layer_id, layer_name, table_name, attachment_table, mapping_table, server_gen,
                    query_option, use_geometry, include_related, where_clause, layer_definition)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                definition.id, definition.name, table, attachmentTable, mappingTable, replicaLayer.serverGen,
                replicaLayer.queryOption.rawValue, replicaLayer.useGeometry, replicaLayer.includeRelated,
                replicaLayer.whereClause, layer.layerJSON.jsonText,
            ])

        var names = definition.fields.map(\.name.quotedDatabaseIdentifier)
        if geometryType != nil { names.append(GeoPackageSchema.geometryColumn.quotedDatabaseIdentifier) }
        insertFeature = RawStatementBinder(
            statement: try db.makeStatement(
                sql:
                    "INSERT INTO \(table.quotedDatabaseIdentifier) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
            ))
        logChange = RawStatementBinder(
            statement: try db.makeStatement(
                sql: "INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation) VALUES (?, ?, ?, ?, ?)"))
        row = [DatabaseValue](repeating: .null, count: names.count)
        dateColumns = definition.fields.indices.filter { definition.fields[$0].type == .date }

        if let attachmentTable, let mappingTable {
            // Related Tables Extension, media profile: `id`, `data`, `content_type`, plus
            // Esri's attachment attributes keyed by GlobalID.
            try db.execute(
                sql: """
                    CREATE TABLE \(attachmentTable.quotedDatabaseIdentifier) (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        data BLOB NOT NULL,
                        content_type TEXT NOT NULL,
                        ATTACHMENTID INTEGER,
                        GLOBALID TEXT(38),
                        REL_GLOBALID TEXT(38) NOT NULL,
                        ATT_NAME TEXT NOT NULL,
                        DATA_SIZE INTEGER NOT NULL,
                        KEYWORDS TEXT
                    );
                    CREATE TABLE \(mappingTable.quotedDatabaseIdentifier) (
                        base_id INTEGER NOT NULL,
                        related_id INTEGER NOT NULL
                    );
                    """)
            if try !db.tableExists("gpkgext_relations") {
                try db.execute(sql: GeoPackageSchema.relatedTablesDDL)
                try ReplicaFileWriter.registerExtension(
                    db, table: "gpkgext_relations", column: nil, name: "gpkg_related_tables",
                    definition: GeoPackageSchema.relatedTablesDefinition, scope: "read-write")
            }
            try db.execute(
                sql: "INSERT INTO gpkg_contents(table_name, data_type, identifier, description) VALUES (?, 'attributes', ?, ?)",
                arguments: [attachmentTable, "\(definition.name) attachments", "Attachments of \(definition.name)"])
            try db.execute(
                sql: """
                    INSERT INTO gpkgext_relations(base_table_name, base_primary_column, related_table_name, related_primary_column,
                        relation_name, mapping_table_name) VALUES (?, ?, ?, 'id', 'media', ?)
                    """, arguments: [table, definition.objectIdField, attachmentTable, mappingTable])
            try ReplicaFileWriter.registerExtension(
                db, table: mappingTable, column: nil, name: "gpkg_related_tables",
                definition: GeoPackageSchema.relatedTablesDefinition, scope: "read-write")
            insertAttachment = RawStatementBinder(
                statement: try db.makeStatement(
                    sql: """
                        INSERT INTO \(attachmentTable.quotedDatabaseIdentifier) (data, content_type, ATTACHMENTID, GLOBALID, REL_GLOBALID, ATT_NAME, DATA_SIZE, KEYWORDS)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """))
        } else {
            insertAttachment = nil
        }
    }

    /// Adds features through one database access: `produce` calls `insert` once per feature,
    /// with values aligned with the layer's fields (OBJECTID included) as the server stores
    /// them — dates as epoch milliseconds, which become DATETIME text here.
    ///
    /// In a delta file, `logging` names the change each row is (`docs/replica-format.md`,
    /// Deltas): it is listed in `outpost_sync_changes` with the row's GlobalID.
    public func insertAll(
        logging operation: DeltaOperation? = nil,
        _ produce: (_ insert: ([DatabaseValue], OGCGeometry?) throws -> Void) throws -> Void
    ) throws {
        try queue.inDatabase { db in
            try produce { values, geometry in
                try insert(values: values, geometry: geometry, db: db)
                if let operation {
                    try log(.feature, globalId: values[globalIdIndex], objectId: values[objectIdIndex], operation, db: db)
                }
            }
        }
    }

    /// Copies features inside SQLite, from the writer's `Source`: `columns` are SQL over the
    /// source giving the layer's fields as the server stores them (dates as epoch
    /// milliseconds, made DATETIME text here) and, for a spatial layer, then the geometry as
    /// GeoPackage binary with an envelope in its header (SpatiaLite's `AsGPB`), which the
    /// R-tree entries are read from afterwards; `rest` is the statement's `FROM … WHERE …
    /// ORDER BY …`. No row passes through Swift.
    public func copyFeatures(columns: [String], rest: String, arguments: [DatabaseValue]) throws {
        let fields = layer.definition.fields
        let isSpatial = layer.definition.geometryType != nil
        precondition(columns.count == fields.count + (isSpatial ? 1 : 0), "one column per field, then the geometry")
        var names = fields.map(\.name.quotedDatabaseIdentifier)
        if isSpatial { names.append(GeoPackageSchema.geometryColumn.quotedDatabaseIdentifier) }
        let converted = columns.indices.map { dateColumns.contains($0) ? "outpost_gpkg_date(\(columns[$0]))" : columns[$0] }
        let t = table.quotedDatabaseIdentifier
        let geometry = GeoPackageSchema.geometryColumn.quotedDatabaseIdentifier
        let oid = layer.definition.objectIdField.quotedDatabaseIdentifier
        try queue.inDatabase { db in
            try db.execute(
                sql: """
                    INSERT INTO \(t) (\(names.joined(separator: ", ")))
                    SELECT \(converted.joined(separator: ", ")) \(rest)
                    """, arguments: StatementArguments(arguments))
            featureCount += db.changesCount
            guard isSpatial else { return }
            // AsGPB writes each envelope into the header; a header without one is decoded.
            let reader = try RawRowReader(
                statement: try db.makeStatement(sql: "SELECT \(oid), \(geometry) FROM \(t) WHERE \(geometry) IS NOT NULL"),
                arguments: StatementArguments())
            while try reader.step(db: db) {
                let envelope =
                    try reader.withBlob(1, Self.headerEnvelope)
                    ?? (reader.bytes(1).map { try GeoPackageBinary.decode($0).geometry.envelope } ?? .empty)
                try entries.append(id: reader.int64(0), envelope: envelope)
            }
        }
    }

    /// The x/y envelope in a GeoPackage binary header, read in place (nil when the header has
    /// none: the geometry is decoded instead). Bytes 0–7: "GP", version, flags (bit 0 little
    /// endian, bits 1–3 the envelope kind), srs_id; then minx, maxx, miny, maxy.
    static func headerEnvelope(_ blob: UnsafeRawBufferPointer) -> Envelope? {
        guard blob.count >= 40, blob[0] == 0x47, blob[1] == 0x50 else { return nil }
        let flags = blob[3]
        guard (flags >> 1) & 0x07 != 0, flags & 0x20 == 0 else { return nil }
        func double(_ offset: Int) -> Double {
            let bits = blob.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            return Double(bitPattern: flags & 0x01 == 1 ? UInt64(littleEndian: bits) : UInt64(bigEndian: bits))
        }
        return Envelope(xmin: double(8), ymin: double(24), xmax: double(16), ymax: double(32))
    }

    /// Lists deletes in a delta file's `outpost_sync_changes` (the rows are gone: only their ids).
    public func logDeletes(_ item: DeltaItem, _ deleted: [(globalId: String, objectId: Int64?)]) throws {
        try queue.inDatabase { db in
            for (globalId, objectId) in deleted {
                try log(item, globalId: globalId.databaseValue, objectId: objectId?.databaseValue ?? .null, .delete, db: db)
            }
        }
    }

    func log(_ item: DeltaItem, globalId: DatabaseValue, objectId: DatabaseValue, _ operation: DeltaOperation, db: Database) throws {
        guard let logChange else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "layer \(table) is finished") }
        try logChange.execute(
            [
                Int64(layer.definition.id).databaseValue, item.rawValue.databaseValue, globalId, objectId,
                operation.rawValue.databaseValue,
            ], db: db)
    }

    func insert(values: [DatabaseValue], geometry: OGCGeometry?, db: Database) throws {
        precondition(values.count == layer.definition.fields.count, "one value per field")
        for index in values.indices { row[index] = values[index] }
        for index in dateColumns {
            if case .int64(let ms) = values[index].storage { row[index] = GeoPackageDate.text(fromEpochMilliseconds: ms).databaseValue }
        }
        if layer.definition.geometryType != nil {
            if let geometry {
                row[values.count] = Data(GeoPackageBinary.encode(geometry, srsID: Int32(srsId))).databaseValue
                if case .int64(let id) = values[objectIdIndex].storage { try entries.append(id: id, envelope: geometry.envelope) }
            } else {
                row[values.count] = .null
            }
        }
        guard let insertFeature else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "layer \(table) is finished") }
        try insertFeature.execute(row, db: db)
        featureCount += 1
    }

    lazy var objectIdIndex: Int = layer.definition.fields.firstIndex { $0.type == .oid } ?? 0
    lazy var globalIdIndex: Int = layer.definition.fields.firstIndex { $0.type == .globalID } ?? 0

    /// Adds an attachment of a feature already written. `logging`: as for `insertAll`; `db`:
    /// the writer's connection when called from inside `ReplicaFileWriter.inDatabase`.
    public func insertAttachment(
        attachmentId: Int64, globalId: String, parentGlobalId: String, name: String,
        contentType: String, keywords: String, data: Data, logging operation: DeltaOperation? = nil, db: Database? = nil
    ) throws {
        guard let insertAttachment else { return }
        let values = [
            data.databaseValue, contentType.databaseValue, attachmentId.databaseValue, globalId.databaseValue,
            parentGlobalId.databaseValue, name.databaseValue, Int64(data.count).databaseValue, keywords.databaseValue,
        ]
        func insert(_ db: Database) throws {
            try insertAttachment.execute(values, db: db)
            if let operation { try log(.attachment, globalId: globalId.databaseValue, objectId: attachmentId.databaseValue, operation, db: db) }
        }
        if let db { try insert(db) } else { try queue.inDatabase(insert) }
        attachmentCount += 1
    }

    /// Packs the R-tree, builds the indexes and installs the triggers.
    public func finish() throws {
        let definition = layer.definition
        let t = table.quotedDatabaseIdentifier
        let oid = definition.objectIdField.quotedDatabaseIdentifier
        let gid = definition.globalIdField.quotedDatabaseIdentifier
        let layerId = definition.id
        insertFeature = nil
        insertAttachment = nil
        logChange = nil
        // The writer lets go of its entries: the packing holds them until it is done.
        let entries = self.entries
        self.entries = RTreeEntries(scratchDirectory: entries.scratchDirectory)
        let extent = entries.extent
        try queue.inDatabase { db in
            let column = GeoPackageSchema.geometryColumn
            let rtree = "rtree_\(table)_\(column)"
            // Held entries are packed on another core while SQLite sorts the GlobalID index here.
            var packing: RTreePacking?
            if definition.geometryType != nil {
                try db.execute(sql: "CREATE VIRTUAL TABLE \(rtree.quotedDatabaseIdentifier) USING rtree(id, minx, maxx, miny, maxy)")
                packing = entries.pack(nodeSize: try RTreeBulkLoader.nodeSize(of: rtree, db: db))
            }
            try db.execute(sql: "CREATE UNIQUE INDEX \("\(table)_globalid".quotedDatabaseIdentifier) ON \(t)(\(gid))")
            if let packing {
                try packing.write(into: rtree, db: db)
                try db.execute(sql: GeoPackageSchema.rtreeTriggers(table: table, column: column, key: definition.objectIdField))
                try ReplicaFileWriter.registerExtension(
                    db, table: table, column: column, name: "gpkg_rtree_index",
                    definition: GeoPackageSchema.rtreeDefinition, scope: "write-only")
                if !extent.isEmpty {
                    try db.execute(
                        sql: "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
                        arguments: [extent.xmin, extent.ymin, extent.xmax, extent.ymax, table])
                }
            }
            // Change log: one row per local insert, update and delete, written by stock SQLite.
            try db.execute(sql: ReplicaFileTriggers.featureChangeLog(table: table, layerId: layerId, objectId: oid, globalId: gid))
            if let attachmentTable, let mappingTable {
                let a = attachmentTable.quotedDatabaseIdentifier
                let m = mappingTable.quotedDatabaseIdentifier
                try db.execute(sql: "CREATE UNIQUE INDEX \("\(attachmentTable)_globalid".quotedDatabaseIdentifier) ON \(a)(GLOBALID)")
                try db.execute(sql: "CREATE INDEX \("\(attachmentTable)_rel".quotedDatabaseIdentifier) ON \(a)(REL_GLOBALID)")
                try db.execute(
                    sql: "INSERT INTO \(m)(base_id, related_id) SELECT f.\(oid), a.id FROM \(a) a JOIN \(t) f ON f.\(gid) = a.REL_GLOBALID")
                try db.execute(
                    sql: ReplicaFileTriggers.attachmentChangeLog(
                        table: table, attachmentTable: attachmentTable, mappingTable: mappingTable,
                        layerId: layerId, objectId: oid, globalId: gid))
            }
        }
    }
}
