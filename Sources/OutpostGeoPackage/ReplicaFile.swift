import Foundation
import GRDB
import OutpostWire

/// What a replica file says about itself: the `outpost_sync` extension's tables.
public struct ReplicaFileInfo: Sendable, Equatable {
    public struct Layer: Sendable, Equatable {
        public var layerId: Int
        public var name: String
        public var tableName: String
        public var attachmentTable: String?
        public var mappingTable: String?
        public var serverGen: Int64
        public var queryOption: ReplicaQueryOption
        public var useGeometry: Bool
        public var includeRelated: Bool
        public var whereClause: String?
        public var layerDefinition: JSONValue
    }

    public var replicaId: String
    public var replicaName: String
    public var serviceURL: String
    public var serviceName: String
    public var syncModel: SyncModel
    public var targetType: ReplicaTargetType
    public var syncDirection: SyncDirection
    public var attachmentsSyncDirection: AttachmentsSyncDirection
    public var returnAttachments: Bool
    public var replicaServerGen: Int64
    public var spatialReference: SpatialReference
    /// The replica geometry as Esri JSON with its spatial reference, if any.
    public var geometry: JSONValue?
    public var creationDate: Int64
    public var formatVersion: Int
    public var serviceDefinition: JSONValue
    public var layers: [Layer]
    /// Local changes not yet acknowledged by the server (change-log rows).
    public var pendingChanges: Int
}

/// Opens replica files (GeoPackages with the `outpost_sync` extension).
public enum ReplicaFile {
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case notAGeoPackage(String)
        case notAReplica(String)
        case unsupportedVersion(Int)

        public var description: String {
            switch self {
            case .notAGeoPackage(let path): "\(path) is not a GeoPackage"
            case .notAReplica(let path): "\(path) has no outpost_sync extension: it is not an Outpost replica"
            case .unsupportedVersion(let v): "replica format version \(v) is newer than this build understands (\(ReplicaFileWriter.formatVersion))"
            }
        }
    }

    /// Opens a connection with the GeoPackage SQL functions registered (for editing).
    public static func open(_ path: String, readonly: Bool = false) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.prepareDatabase { db in GeoPackageSchema.registerFunctions(db) }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Sets the replica name recorded in a file (when registration had to rename it).
    public static func setReplicaName(_ name: String, in path: String) throws {
        let queue = try open(path)
        defer { try? queue.close() }
        try queue.write { db in try db.execute(sql: "UPDATE outpost_sync_replica SET replica_name = ?", arguments: [name]) }
    }

    public static func info(_ path: String) throws -> ReplicaFileInfo {
        let queue = try open(path, readonly: true)
        defer { try? queue.close() }
        return try queue.read { db in try info(db, path: path) }
    }

    public static func info(_ db: Database, path: String = "replica") throws -> ReplicaFileInfo {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        guard applicationID == GeoPackageSchema.applicationID else { throw Failure.notAGeoPackage(path) }
        guard try db.tableExists("outpost_sync_replica"), let row = try Row.fetchOne(db, sql: "SELECT * FROM outpost_sync_replica") else {
            throw Failure.notAReplica(path)
        }
        let version: Int = try row.required("format_version")
        guard version <= ReplicaFileWriter.formatVersion else { throw Failure.unsupportedVersion(version) }
        // Every value through `untrusted`/`required`: a file may be anyone's (an upload, a package).
        let layers = try Row.fetchAll(db, sql: "SELECT * FROM outpost_sync_layers ORDER BY layer_id").map { layer in
            ReplicaFileInfo.Layer(
                layerId: try layer.required("layer_id"), name: try layer.untrusted("layer_name") ?? "", tableName: try layer.required("table_name"),
                attachmentTable: try layer.untrusted("attachment_table"), mappingTable: try layer.untrusted("mapping_table"),
                serverGen: try layer.untrusted("server_gen") ?? 0,
                queryOption: ReplicaQueryOption(lenient: try layer.untrusted("query_option") ?? "") ?? .useFilter,
                useGeometry: try layer.untrusted("use_geometry") ?? false, includeRelated: try layer.untrusted("include_related") ?? false,
                whereClause: try layer.untrusted("where_clause"),
                layerDefinition: (try layer.untrusted("layer_definition", String.self)).flatMap { try? JSONParser.parse($0) } ?? .null)
        }
        let geometryText: String? = try row.untrusted("geometry")
        return ReplicaFileInfo(
            replicaId: try row.required("replica_id"), replicaName: try row.untrusted("replica_name") ?? "",
            serviceURL: try row.untrusted("service_url") ?? "", serviceName: try row.untrusted("service_name") ?? "",
            syncModel: SyncModel(lenient: try row.untrusted("sync_model") ?? "") ?? .none,
            targetType: ReplicaTargetType(lenient: try row.untrusted("target_type") ?? "") ?? .client,
            syncDirection: SyncDirection(lenient: try row.untrusted("sync_direction") ?? "") ?? .bidirectional,
            attachmentsSyncDirection: AttachmentsSyncDirection(lenient: try row.untrusted("attachments_sync_direction") ?? "") ?? .none,
            returnAttachments: try row.untrusted("return_attachments") ?? false, replicaServerGen: try row.untrusted("replica_server_gen") ?? 0,
            spatialReference: SpatialReference(wkid: try row.untrusted("spatial_reference") ?? 4326),
            geometry: geometryText.flatMap { try? JSONParser.parse($0) }, creationDate: try row.untrusted("creation_date") ?? 0,
            formatVersion: version,
            serviceDefinition: (try row.untrusted("service_definition", String.self)).flatMap { try? JSONParser.parse($0) } ?? .null,
            layers: layers, pendingChanges: try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_sync_changes") ?? 0)
    }
}
