import Foundation
import OutpostWire

/// How one layer is taken offline (`layerQueries`, §4.3).
public struct GenerateLayerOption: Sendable, Equatable, Codable {
    public var layerId: Int
    /// `useFilter` (the extent and `whereClause`), `all`, or `none` (schema only).
    public var queryOption: ReplicaQueryOption
    public var whereClause: String?
    public var useGeometry: Bool
    public var includeRelated: Bool

    public init(
        layerId: Int, queryOption: ReplicaQueryOption = .useFilter, whereClause: String? = nil, useGeometry: Bool = true,
        includeRelated: Bool = true
    ) {
        self.layerId = layerId
        self.queryOption = queryOption
        self.whereClause = whereClause
        self.useGeometry = useGeometry
        self.includeRelated = includeRelated
    }
}

/// What `generateGeodatabase` asks for (`createReplica`, §4).
public struct GenerateGeodatabaseParameters: Sendable, Equatable, Codable {
    public var extent: Envelope?
    /// The spatial reference of `extent`.
    public var extentSpatialReference: SpatialReference
    /// The spatial reference of the geodatabase's data (default: the service's).
    public var outSpatialReference: SpatialReference?
    public var layerOptions: [GenerateLayerOption]
    public var syncModel: SyncModel
    public var returnAttachments: Bool
    public var attachmentsSyncDirection: AttachmentsSyncDirection
    public var replicaName: String?

    public init(
        extent: Envelope?, extentSpatialReference: SpatialReference = .wgs84, outSpatialReference: SpatialReference? = nil,
        layerOptions: [GenerateLayerOption], syncModel: SyncModel = .perLayer, returnAttachments: Bool = true,
        attachmentsSyncDirection: AttachmentsSyncDirection = .bidirectional, replicaName: String? = nil
    ) {
        self.extent = extent
        self.extentSpatialReference = extentSpatialReference
        self.outSpatialReference = outSpatialReference
        self.layerOptions = layerOptions
        self.syncModel = syncModel
        self.returnAttachments = returnAttachments
        self.attachmentsSyncDirection = attachmentsSyncDirection
        self.replicaName = replicaName
    }

    /// The `createReplica` request (asynchronous, GeoPackage), in the wire vocabulary the
    /// server parses.
    var request: CreateReplicaRequest {
        var request = CreateReplicaRequest()
        request.replicaName = replicaName
        request.layers = layerOptions.map(\.layerId)
        for option in layerOptions {
            request.layerQueries[option.layerId] = ReplicaLayerQuery(
                queryOption: option.queryOption, useGeometry: option.useGeometry,
                includeRelated: option.includeRelated, whereClause: option.whereClause)
        }
        if let extent {
            request.geometry = QueryGeometry(
                text: "\(extent.xmin),\(extent.ymin),\(extent.xmax),\(extent.ymax)", geometryType: .envelope,
                inSR: extentSpatialReference)
        }
        request.replicaSR = outSpatialReference
        request.syncModel = syncModel
        request.dataFormat = .sqlite
        request.isAsync = true
        request.transportType = .url
        request.returnAttachments = returnAttachments
        request.attachmentsSyncDirection = attachmentsSyncDirection
        return request
    }

    var formFields: [(String, String)] { request.formFields }
}

/// Per-layer choices of a sync (per-layer model).
public struct SyncLayerOption: Sendable, Equatable, Codable {
    public var layerId: Int
    public var syncDirection: SyncDirection

    public init(layerId: Int, syncDirection: SyncDirection = .bidirectional) {
        self.layerId = layerId
        self.syncDirection = syncDirection
    }
}

/// What `syncGeodatabase` asks for (`synchronizeReplica`, §5).
public struct SyncGeodatabaseParameters: Sendable, Equatable, Codable {
    /// The direction of every layer (per-replica model), or of layers without an option.
    public var syncDirection: SyncDirection
    /// Per-layer directions (per-layer model); empty: every layer with `syncDirection`.
    public var layerOptions: [SyncLayerOption]
    public var rollbackOnFailure: Bool

    public init(syncDirection: SyncDirection = .bidirectional, layerOptions: [SyncLayerOption] = [], rollbackOnFailure: Bool = false) {
        self.syncDirection = syncDirection
        self.layerOptions = layerOptions
        self.rollbackOnFailure = rollbackOnFailure
    }
}

extension SyncModel: Codable {}
extension SyncDirection: Codable {}
extension AttachmentsSyncDirection: Codable {}
extension ReplicaQueryOption: Codable {}

extension SpatialReference: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(wkid: try decoder.singleValueContainer().decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wkid)
    }
}

extension Envelope: Codable {
    enum CodingKeys: String, CodingKey { case xmin, ymin, xmax, ymax }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            xmin: try c.decode(Double.self, forKey: .xmin), ymin: try c.decode(Double.self, forKey: .ymin),
            xmax: try c.decode(Double.self, forKey: .xmax), ymax: try c.decode(Double.self, forKey: .ymax))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(xmin, forKey: .xmin)
        try c.encode(ymin, forKey: .ymin)
        try c.encode(xmax, forKey: .xmax)
        try c.encode(ymax, forKey: .ymax)
    }
}
