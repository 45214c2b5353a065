import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostSync
import OutpostWire

/// A spatial reference system as `gpkg_spatial_ref_sys` records it.
public struct GeoPackageSpatialReference: Sendable, Equatable {
    public var srsId: Int
    public var name: String
    public var organization: String
    public var code: Int
    public var definition: String

    public init(srsId: Int, name: String, organization: String = "EPSG", code: Int? = nil, definition: String) {
        self.srsId = srsId
        self.name = name
        self.organization = organization
        self.code = code ?? srsId
        self.definition = definition
    }
}

/// A layer to write into a replica file.
public struct ReplicaFileLayer: Sendable {
    public var definition: LayerDefinition
    /// The layer resource as the server serves it (kept in the file for clients).
    public var layerJSON: JSONValue
    public var replicaLayer: ReplicaLayer
    /// Whether the file gets an attachment (media) table for this layer.
    public var withAttachments: Bool

    public init(definition: LayerDefinition, layerJSON: JSONValue, replicaLayer: ReplicaLayer, withAttachments: Bool) {
        self.definition = definition
        self.layerJSON = layerJSON
        self.replicaLayer = replicaLayer
        self.withAttachments = withAttachments
    }
}

/// Writes a replica file: a GeoPackage 1.4 with one feature (or attributes) table per
/// layer, attachments as Related Tables media, and the `outpost_sync` extension
/// (`docs/replica-format.md`).
///
/// Rows go in first with no index or trigger in place; each layer's R-tree is then packed
/// in one pass and the spatial-index and change-log triggers created, so a million rows cost
/// a sequential write and a sort. The whole file is one transaction; the caller writes to
/// a temporary path and renames it when `finish()` returns, so no one ever reads a
/// half-written replica.
public final class ReplicaFileWriter {
    public static let formatVersion = 1
    public static let extensionName = "outpost_sync"
    public static let extensionDefinition = "Outpost replica format 1 (docs/replica-format.md)"

    let queue: DatabaseQueue
    let replica: ReplicaDefinition
    private var usedTableNames: Set<String> = []
    private var spatialReferences: Set<Int> = [-1, 0]

    /// Creates the file (which must not exist) with the core tables, the spatial reference
    /// systems and the replica's metadata.
    public init(path: String, replica: ReplicaDefinition, serviceURL: String, serviceJSON: JSONValue,
                spatialReferences: [GeoPackageSpatialReference], delta: ReplicaDeltaHeader? = nil) throws
    {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(path) exists already")
        }
        var configuration = Configuration()
        // The file is written in one transaction spanning many calls (begun here, committed
        // by `finish`); this connection is private to the writer.
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            GeoPackageSchema.registerFunctions(db)
            // A crash mid-write leaves only a temporary file that is never served, so the
            // bulk load needs no journal; the finished file uses the default rollback journal.
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        self.replica = replica
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA application_id = \(GeoPackageSchema.applicationID); PRAGMA user_version = \(GeoPackageSchema.userVersion)")
            try db.beginTransaction()
            try db.execute(sql: GeoPackageSchema.coreTables)
            var systems = spatialReferences
            if !systems.contains(where: { $0.srsId == 4326 }) {
                systems.append(GeoPackageSpatialReference(srsId: 4326, name: "WGS 84", definition: Self.wgs84WKT))
            }
            for srs in systems where !self.spatialReferences.contains(srs.srsId) {
                try db.execute(sql: "INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, NULL)",
                               arguments: [srs.name, srs.srsId, srs.organization, srs.code, srs.definition])
                self.spatialReferences.insert(srs.srsId)
            }
            try Self.createSyncTables(db)
            try db.execute(sql: """
                INSERT INTO outpost_sync_replica(replica_id, replica_name, service_url, service_name, sync_model, target_type,
                    sync_direction, attachments_sync_direction, return_attachments, replica_server_gen, spatial_reference,
                    geometry, creation_date, last_sync_date, format_version, service_definition)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [replica.id, replica.name, serviceURL, replica.serviceName, replica.syncModel.rawValue,
                                 replica.targetType.rawValue, replica.syncDirection.rawValue,
                                 replica.attachmentsSyncDirection.rawValue, replica.returnAttachments, replica.replicaServerGen,
                                 replica.spatialReference.wkid, replica.geometry == nil ? nil : replica.geometryJSON.jsonText,
                                 replica.creationDate, replica.lastSyncDate, Self.formatVersion, serviceJSON.jsonText])
            if let delta { try Self.createDeltaTables(db, header: delta) }
        }
    }

    /// Starts a layer: creates its tables (no index or trigger yet).
    public func beginLayer(_ layer: ReplicaFileLayer) throws -> ReplicaLayerWriter {
        let table = uniqueTableName(for: layer.definition.name)
        let attachmentTable = layer.withAttachments ? uniqueTableName(for: "\(table)__ATTACH") : nil
        let mappingTable = layer.withAttachments ? uniqueTableName(for: "\(table)__ATTACH_MAP") : nil
        let srsId = replica.spatialReference.epsg
        guard layer.definition.geometryType == nil || spatialReferences.contains(srsId) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "spatial reference \(srsId) was not given to the writer")
        }
        return try queue.inDatabase { db in
            try ReplicaLayerWriter(db: db, queue: queue, layer: layer, table: table, attachmentTable: attachmentTable,
                                   mappingTable: mappingTable, srsId: srsId)
        }
    }

    /// Commits the file and closes it.
    public func finish() throws {
        try queue.inDatabase { db in
            try db.commit()
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
        }
        try queue.close()
    }

    /// Gives up: rolls back and closes (the caller removes the file).
    public func abandon() {
        try? queue.inDatabase { db in if db.isInsideTransaction { try db.rollback() } }
        try? queue.close()
    }

    private func uniqueTableName(for name: String) -> String {
        var base = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_") ? Character(scalar) : "_"
        })
        if base.isEmpty || !(base.unicodeScalars.first!.properties.isAlphabetic) { base = "L_" + base }
        let lowered = base.lowercased()
        if lowered.hasPrefix("gpkg") || lowered.hasPrefix("rtree_") || lowered.hasPrefix("outpost_") || lowered.hasPrefix("sqlite_") {
            base = "L_" + base
        }
        var candidate = base
        var n = 1
        while usedTableNames.contains(candidate.lowercased()) {
            n += 1
            candidate = "\(base)_\(n)"
        }
        usedTableNames.insert(candidate.lowercased())
        return candidate
    }

    static func createSyncTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE outpost_sync_replica (
                replica_id TEXT NOT NULL PRIMARY KEY,
                replica_name TEXT NOT NULL,
                service_url TEXT NOT NULL,
                service_name TEXT NOT NULL,
                sync_model TEXT NOT NULL CHECK (sync_model IN ('perReplica', 'perLayer', 'none')),
                target_type TEXT NOT NULL CHECK (target_type IN ('client', 'server')),
                sync_direction TEXT NOT NULL,
                attachments_sync_direction TEXT NOT NULL CHECK (attachments_sync_direction IN ('none', 'upload', 'bidirectional')),
                return_attachments INTEGER NOT NULL,
                replica_server_gen INTEGER NOT NULL,
                spatial_reference INTEGER NOT NULL,
                geometry TEXT,
                creation_date INTEGER NOT NULL,
                last_sync_date INTEGER,
                format_version INTEGER NOT NULL,
                service_definition TEXT NOT NULL,
                applying_server_changes INTEGER NOT NULL DEFAULT 0 CHECK (applying_server_changes IN (0, 1))
            );
            CREATE TABLE outpost_sync_layers (
                layer_id INTEGER NOT NULL PRIMARY KEY,
                layer_name TEXT NOT NULL,
                table_name TEXT NOT NULL UNIQUE,
                attachment_table TEXT,
                mapping_table TEXT,
                server_gen INTEGER NOT NULL,
                query_option TEXT NOT NULL CHECK (query_option IN ('none', 'useFilter', 'all')),
                use_geometry INTEGER NOT NULL,
                include_related INTEGER NOT NULL,
                where_clause TEXT,
                layer_definition TEXT NOT NULL
            );
            CREATE TABLE outpost_sync_changes (
                change_id INTEGER PRIMARY KEY AUTOINCREMENT,
                layer_id INTEGER NOT NULL,
                item TEXT NOT NULL CHECK (item IN ('feature', 'attachment')),
                global_id TEXT NOT NULL,
                object_id INTEGER,
                operation TEXT NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
                changed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            );
            """)
        for table in ["outpost_sync_replica", "outpost_sync_layers", "outpost_sync_changes"] {
            try registerExtension(db, table: table, column: nil, name: extensionName, definition: extensionDefinition, scope: "read-write")
        }
    }

    static func registerExtension(_ db: Database, table: String?, column: String?, name: String, definition: String, scope: String) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO gpkg_extensions(table_name, column_name, extension_name, definition, scope) VALUES (?, ?, ?, ?, ?)",
                       arguments: [table, column, name, definition, scope])
    }

    static let wgs84WKT = """
        GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],\
        PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]]
        """
}

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
    private var entries: [RTreeBulkLoader.Entry] = []
    private var extent = Envelope.empty
    public private(set) var featureCount = 0
    public private(set) var attachmentCount = 0

    init(db: Database, queue: DatabaseQueue, layer: ReplicaFileLayer, table: String, attachmentTable: String?,
         mappingTable: String?, srsId: Int) throws
    {
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
        try db.execute(sql: "INSERT INTO gpkg_contents(table_name, data_type, identifier, description, srs_id) VALUES (?, ?, ?, ?, ?)",
                       arguments: [table, geometryType == nil ? "attributes" : "features", definition.name, definition.description,
                                   geometryType == nil ? nil : srsId])
        if let geometryType {
            try db.execute(sql: "INSERT INTO gpkg_geometry_columns VALUES (?, ?, ?, ?, 0, 0)",
                           arguments: [table, GeoPackageSchema.geometryColumn, geometryType, srsId])
        }
        // The user table is not registered with outpost_sync: its change-log triggers run in
        // any SQLite and ask nothing of the tool editing it, and a registration would make
        // GDAL and QGIS warn against edits that are safe (docs/replica-format.md).
        let replicaLayer = layer.replicaLayer
        try db.execute(sql: """
            INSERT INTO outpost_sync_layers(layer_id, layer_name, table_name, attachment_table, mapping_table, server_gen,
                query_option, use_geometry, include_related, where_clause, layer_definition)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [definition.id, definition.name, table, attachmentTable, mappingTable, replicaLayer.serverGen,
                             replicaLayer.queryOption.rawValue, replicaLayer.useGeometry, replicaLayer.includeRelated,
                             replicaLayer.whereClause, layer.layerJSON.jsonText])

        var names = definition.fields.map(\.name.quotedDatabaseIdentifier)
        if geometryType != nil { names.append(GeoPackageSchema.geometryColumn.quotedDatabaseIdentifier) }
        insertFeature = RawStatementBinder(statement: try db.makeStatement(
            sql: "INSERT INTO \(table.quotedDatabaseIdentifier) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"))
        logChange = RawStatementBinder(statement: try db.makeStatement(
            sql: "INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation) VALUES (?, ?, ?, ?, ?)"))
        row = [DatabaseValue](repeating: .null, count: names.count)
        dateColumns = definition.fields.indices.filter { definition.fields[$0].type == .date }

        if let attachmentTable, let mappingTable {
            // Related Tables Extension, media profile: `id`, `data`, `content_type`, plus
            // Esri's attachment attributes keyed by GlobalID.
            try db.execute(sql: """
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
                try ReplicaFileWriter.registerExtension(db, table: "gpkgext_relations", column: nil, name: "gpkg_related_tables",
                                                        definition: GeoPackageSchema.relatedTablesDefinition, scope: "read-write")
            }
            try db.execute(sql: "INSERT INTO gpkg_contents(table_name, data_type, identifier, description) VALUES (?, 'attributes', ?, ?)",
                           arguments: [attachmentTable, "\(definition.name) attachments", "Attachments of \(definition.name)"])
            try db.execute(sql: """
                INSERT INTO gpkgext_relations(base_table_name, base_primary_column, related_table_name, related_primary_column,
                    relation_name, mapping_table_name) VALUES (?, ?, ?, 'id', 'media', ?)
                """, arguments: [table, definition.objectIdField, attachmentTable, mappingTable])
            try ReplicaFileWriter.registerExtension(db, table: mappingTable, column: nil, name: "gpkg_related_tables",
                                                    definition: GeoPackageSchema.relatedTablesDefinition, scope: "read-write")
            insertAttachment = RawStatementBinder(statement: try db.makeStatement(sql: """
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
    public func insertAll(logging operation: DeltaOperation? = nil,
                          _ produce: (_ insert: ([DatabaseValue], OGCGeometry?) throws -> Void) throws -> Void) throws
    {
        try queue.inDatabase { db in
            try produce { values, geometry in
                try insert(values: values, geometry: geometry, db: db)
                if let operation {
                    try log(.feature, globalId: values[globalIdIndex], objectId: values[objectIdIndex], operation, db: db)
                }
            }
        }
    }

    /// Lists deletes in a delta file's `outpost_sync_changes` (the rows are gone: only their ids).
    public func logDeletes(_ item: DeltaItem, _ deleted: [(globalId: String, objectId: Int64?)]) throws {
        try queue.inDatabase { db in
            for (globalId, objectId) in deleted {
                try log(item, globalId: globalId.databaseValue, objectId: objectId?.databaseValue ?? .null, .delete, db: db)
            }
        }
    }

    private func log(_ item: DeltaItem, globalId: DatabaseValue, objectId: DatabaseValue, _ operation: DeltaOperation, db: Database) throws {
        guard let logChange else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "layer \(table) is finished") }
        try logChange.execute([Int64(layer.definition.id).databaseValue, item.rawValue.databaseValue, globalId, objectId,
                               operation.rawValue.databaseValue], db: db)
    }

    private func insert(values: [DatabaseValue], geometry: OGCGeometry?, db: Database) throws {
        precondition(values.count == layer.definition.fields.count, "one value per field")
        for index in values.indices { row[index] = values[index] }
        for index in dateColumns {
            if case .int64(let ms) = values[index].storage { row[index] = GeoPackageDate.text(fromEpochMilliseconds: ms).databaseValue }
        }
        if layer.definition.geometryType != nil {
            if let geometry {
                let envelope = geometry.envelope
                row[values.count] = Data(GeoPackageBinary.encode(geometry, srsID: Int32(srsId))).databaseValue
                if !envelope.isEmpty, case .int64(let id) = values[objectIdIndex].storage {
                    entries.append(RTreeBulkLoader.Entry(id: id, envelope: envelope))
                    extent.expand(envelope)
                }
            } else {
                row[values.count] = .null
            }
        }
        guard let insertFeature else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "layer \(table) is finished") }
        try insertFeature.execute(row, db: db)
        featureCount += 1
    }

    private lazy var objectIdIndex: Int = layer.definition.fields.firstIndex { $0.type == .oid } ?? 0
    private lazy var globalIdIndex: Int = layer.definition.fields.firstIndex { $0.type == .globalID } ?? 0

    /// Adds an attachment of a feature already written.
    /// `logging`: as for `insertAll`.
    public func insertAttachment(attachmentId: Int64, globalId: String, parentGlobalId: String, name: String,
                                 contentType: String, keywords: String, data: Data, logging operation: DeltaOperation? = nil) throws
    {
        guard let insertAttachment else { return }
        try queue.inDatabase { db in
            try insertAttachment.execute([data.databaseValue, contentType.databaseValue, attachmentId.databaseValue,
                                          globalId.databaseValue, parentGlobalId.databaseValue, name.databaseValue,
                                          Int64(data.count).databaseValue, keywords.databaseValue], db: db)
            if let operation { try log(.attachment, globalId: globalId.databaseValue, objectId: attachmentId.databaseValue, operation, db: db) }
        }
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
        let entries = self.entries
        let extent = self.extent
        try queue.inDatabase { db in
            try db.execute(sql: "CREATE UNIQUE INDEX \("\(table)_globalid".quotedDatabaseIdentifier) ON \(t)(\(gid))")
            if definition.geometryType != nil {
                let column = GeoPackageSchema.geometryColumn
                let rtree = "rtree_\(table)_\(column)"
                try db.execute(sql: "CREATE VIRTUAL TABLE \(rtree.quotedDatabaseIdentifier) USING rtree(id, minx, maxx, miny, maxy)")
                try RTreeBulkLoader.load(entries, into: rtree, db: db)
                try db.execute(sql: GeoPackageSchema.rtreeTriggers(table: table, column: column, key: definition.objectIdField))
                try ReplicaFileWriter.registerExtension(db, table: table, column: column, name: "gpkg_rtree_index",
                                                        definition: GeoPackageSchema.rtreeDefinition, scope: "write-only")
                if !extent.isEmpty {
                    try db.execute(sql: "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
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
                try db.execute(sql: "INSERT INTO \(m)(base_id, related_id) SELECT f.\(oid), a.id FROM \(a) a JOIN \(t) f ON f.\(gid) = a.REL_GLOBALID")
                try db.execute(sql: ReplicaFileTriggers.attachmentChangeLog(table: table, attachmentTable: attachmentTable, mappingTable: mappingTable,
                                                                            layerId: layerId, objectId: oid, globalId: gid))
            }
        }
        self.entries = []
    }
}
