import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostSync
import OutpostWire

/// A spatial reference system as `gpkg_spatial_ref_sys` records it.
public typealias GeoPackageSpatialReference = SpatialReferenceDefinition

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

    /// A database the writer reads rows from inside SQLite (`ReplicaLayerWriter.copyFeatures`):
    /// attached to the file's connection as `source` before its transaction begins, so every
    /// read of it in the writer's one transaction sees one snapshot. `prepare` readies the
    /// connection first (the source's SQL functions); the GeoPackage's own functions are
    /// registered after it and win where names meet.
    public struct Source: Sendable {
        public var path: String
        public var prepare: @Sendable (Database) throws -> Void

        public init(path: String, prepare: @escaping @Sendable (Database) throws -> Void) {
            self.path = path
            self.prepare = prepare
        }
    }

    /// Creates the file (which must not exist) with the core tables, the spatial reference
    /// systems and the replica's metadata.
    public init(
        path: String, replica: ReplicaDefinition, serviceURL: String, serviceJSON: JSONValue,
        spatialReferences: [GeoPackageSpatialReference], delta: ReplicaDeltaHeader? = nil, source: Source? = nil
    ) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(path) exists already")
        }
        var configuration = Configuration()
        // The file is written in one transaction spanning many calls (begun here, committed
        // by `finish`); this connection is private to the writer.
        configuration.allowsUnsafeTransactions = true
        configuration.prepareDatabase { db in
            try source?.prepare(db)
            GeoPackageSchema.registerFunctions(db)
            GeoPackageSchema.registerCopyFunctions(db)
            // A crash mid-write leaves only a temporary file that is never served, so the
            // bulk load needs no journal; the finished file uses the default rollback journal.
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        self.replica = replica
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA application_id = \(GeoPackageSchema.applicationID); PRAGMA user_version = \(GeoPackageSchema.userVersion)")
            if let source {
                try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [source.path])
                // The file's tables are made after this: none may hide a source table of the same name.
                usedTableNames.formUnion(try String.fetchAll(db, sql: "SELECT lower(name) FROM source.sqlite_master"))
            }
            // Deferred: an immediate one would take the write lock of the attached source too.
            try db.beginTransaction(.deferred)
            try db.execute(sql: GeoPackageSchema.coreTables)
            var systems = spatialReferences
            if !systems.contains(where: { $0.srsId == 4326 }) {
                systems.append(GeoPackageSpatialReference(srsId: 4326, name: "WGS 84", definition: Self.wgs84WKT))
            }
            for srs in systems where !self.spatialReferences.contains(srs.srsId) {
                try db.execute(
                    sql: "INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, NULL)",
                    arguments: [srs.name, srs.srsId, srs.organization, srs.code, srs.definition])
                self.spatialReferences.insert(srs.srsId)
            }
            try Self.createSyncTables(db)
            try db.execute(
                sql: """
                    INSERT INTO outpost_sync_replica(replica_id, replica_name, service_url, service_name, sync_model, target_type,
                        sync_direction, attachments_sync_direction, return_attachments, replica_server_gen, spatial_reference,
                        geometry, creation_date, last_sync_date, format_version, service_definition)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    replica.id, replica.name, serviceURL, replica.serviceName, replica.syncModel.rawValue,
                    replica.targetType.rawValue, replica.syncDirection.rawValue,
                    replica.attachmentsSyncDirection.rawValue, replica.returnAttachments, replica.replicaServerGen,
                    replica.spatialReference.wkid, replica.geometry == nil ? nil : replica.geometryJSON.jsonText,
                    replica.creationDate, replica.lastSyncDate, Self.formatVersion, serviceJSON.jsonText,
                ])
            if let delta { try Self.createDeltaTables(db, header: delta) }
        }
    }

    /// Starts a replica's layer: with an attachment table when the layer has attachments and
    /// the replica syncs them (`ReplicaLayerWriter.attachmentTable`).
    public func beginLayer(_ definition: LayerDefinition, replicaLayer: ReplicaLayer, layerJSON: [Int: JSONValue]) throws -> ReplicaLayerWriter {
        try beginLayer(
            ReplicaFileLayer(
                definition: definition, layerJSON: layerJSON[definition.id] ?? .null, replicaLayer: replicaLayer,
                withAttachments: definition.hasAttachments && replica.attachmentsSyncDirection != .none))
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
            try ReplicaLayerWriter(
                db: db, queue: queue, layer: layer, table: table, attachmentTable: attachmentTable,
                mappingTable: mappingTable, srsId: srsId, scratchDirectory: (queue.path as NSString).deletingLastPathComponent)
        }
    }

    /// Records the generation the rows are as of, when it is read only after the file was
    /// begun (from the `Source`'s snapshot): the replica's, and each layer's to come.
    public func stampGeneration(_ generation: Int64) throws {
        try queue.inDatabase { db in
            try db.execute(sql: "UPDATE outpost_sync_replica SET replica_server_gen = ?", arguments: [generation])
        }
    }

    /// Runs `body` on the file's connection, inside its transaction (the source's snapshot).
    public func inDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.inDatabase(body)
    }

    /// Commits the file and closes it.
    public func finish() throws {
        try queue.inDatabase { db in
            try db.commit()
            try db.execute(sql: "PRAGMA main.journal_mode = DELETE")
        }
        try queue.close()
    }

    /// Gives up: rolls back and closes (the caller removes the file).
    public func abandon() {
        try? queue.inDatabase { db in if db.isInsideTransaction { try db.rollback() } }
        try? queue.close()
    }

    private func uniqueTableName(for name: String) -> String {
        var base = String(
            name.unicodeScalars.map { scalar -> Character in
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
        try db.execute(
            sql: """
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
        try db.execute(
            sql: "INSERT OR IGNORE INTO gpkg_extensions(table_name, column_name, extension_name, definition, scope) VALUES (?, ?, ?, ?, ?)",
            arguments: [table, column, name, definition, scope])
    }

    static let wgs84WKT = """
        GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],\
        PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]]
        """
}
