import OutpostGeometry
import OutpostWire

/// One layer of a replica: which rows it takes and the generation it holds.
public struct ReplicaLayer: Sendable, Equatable {
    public var layerId: Int
    public var queryOption: ReplicaQueryOption
    public var useGeometry: Bool
    public var includeRelated: Bool
    public var whereClause: String?
    /// The last server generation this layer received (per-layer model; equal to the
    /// replica's generation in the per-replica model).
    public var serverGen: Int64

    public init(
        layerId: Int, queryOption: ReplicaQueryOption = .useFilter, useGeometry: Bool = true,
        includeRelated: Bool = false, whereClause: String? = nil, serverGen: Int64 = 0
    ) {
        self.layerId = layerId
        self.queryOption = queryOption
        self.useGeometry = useGeometry
        self.includeRelated = includeRelated
        self.whereClause = whereClause
        self.serverGen = serverGen
    }
}

/// A registered replica: everything the server needs to sync it later, and what
/// `replicas/<id>` reports. The same values are written into the replica file.
public struct ReplicaDefinition: Sendable, Equatable {
    /// Canonical upper-case braced GUID; empty for `syncModel=none` exports.
    public var id: String
    public var name: String
    public var serviceName: String
    public var owner: String
    public var syncModel: SyncModel
    public var targetType: ReplicaTargetType
    public var syncDirection: SyncDirection
    public var attachmentsSyncDirection: AttachmentsSyncDirection
    public var returnAttachments: Bool
    /// The replica geometry (intersects filter) and its spatial reference; nil: no spatial filter.
    public var geometry: Geometry?
    public var geometrySpatialReference: SpatialReference
    /// The spatial reference of the replica's data.
    public var spatialReference: SpatialReference
    public var layers: [ReplicaLayer]
    /// The last generation the replica received (per-replica model; the minimum over the
    /// layers in the per-layer model).
    public var replicaServerGen: Int64
    public var creationDate: Int64
    public var lastSyncDate: Int64?
    public var syncDataOptions: Int64

    public init(
        id: String, name: String, serviceName: String, owner: String = "", syncModel: SyncModel,
        targetType: ReplicaTargetType = .client, syncDirection: SyncDirection = .bidirectional,
        attachmentsSyncDirection: AttachmentsSyncDirection = .none, returnAttachments: Bool = false,
        geometry: Geometry? = nil, geometrySpatialReference: SpatialReference = .wgs84,
        spatialReference: SpatialReference = .wgs84, layers: [ReplicaLayer], replicaServerGen: Int64 = 0,
        creationDate: Int64 = 0, lastSyncDate: Int64? = nil, syncDataOptions: Int64 = 0
    ) {
        self.id = id
        self.name = name
        self.serviceName = serviceName
        self.owner = owner
        self.syncModel = syncModel
        self.targetType = targetType
        self.syncDirection = syncDirection
        self.attachmentsSyncDirection = attachmentsSyncDirection
        self.returnAttachments = returnAttachments
        self.geometry = geometry
        self.geometrySpatialReference = geometrySpatialReference
        self.spatialReference = spatialReference
        self.layers = layers
        self.replicaServerGen = replicaServerGen
        self.creationDate = creationDate
        self.lastSyncDate = lastSyncDate
        self.syncDataOptions = syncDataOptions
    }

    public func layer(id: Int) -> ReplicaLayer? { layers.first { $0.layerId == id } }

    /// Stamps every generation with `generation` (a fresh snapshot).
    public mutating func setGeneration(_ generation: Int64) {
        replicaServerGen = generation
        for index in layers.indices { layers[index].serverGen = generation }
    }

    /// Whether this replica is registered (an export with `syncModel=none` is not).
    public var isRegistered: Bool { syncModel != .none }
}

extension ReplicaDefinition {
    /// `layerServerGens` as replicas answer it: an array of objects (§6.3). `serverSibGen`
    /// is -1 for client replicas, as on ArcGIS Online.
    /// The generations an answer hands out for the replica as registered: `replicaServerGen`
    /// (per replica) or `layerServerGens` (per layer); nil for `syncModel=none`.
    public var generations: ReplicaGenerations? {
        switch syncModel {
        case .perReplica: .perReplica(replicaServerGen)
        case .perLayer: .perLayer(layers.map { ($0.layerId, $0.serverGen) })
        case .none: nil
        }
    }

    /// The generation member(s) of an answer (`generations`).
    public func generationMembers(into object: inout JSONObject) {
        generations?.write(into: &object)
    }

    /// The generations of a sync answer for those it hands out by layer: per replica, the
    /// lowest of them; per layer, each.
    public func generations(answered: [Int: Int64]) -> ReplicaGenerations {
        switch syncModel {
        case .perReplica: .perReplica(answered.values.min() ?? replicaServerGen)
        case .perLayer, .none: .perLayer(answered.keys.sorted().map { ($0, answered[$0]!) })
        }
    }

    public var geometryJSON: JSONValue {
        guard let geometry else { return .null }
        var w = JSONWriter()
        geometry.writeEsriJSON(to: &w)
        guard case .object(var object) = (try? JSONParser.parse(w.string)) ?? .null else { return .null }
        object["spatialReference"] = geometrySpatialReference.json
        return .object(object)
    }

    /// `replicas/<id>` (§6.3).
    public var infoJSON: JSONValue {
        var object: JSONObject = [
            "replicaName": .string(name),
            "replicaID": .string(id),
            "replicaOwner": .string(owner),
            "syncModel": .string(syncModel.rawValue),
            "targetType": .string(targetType.rawValue),
            "syncDirection": .string(syncDirection.rawValue),
        ]
        generationMembers(into: &object)
        if syncModel == .perReplica { object["replicaServerSibGen"] = -1 }
        object["creationDate"] = .int(creationDate)
        object["lastSyncDate"] = lastSyncDate.map { .int($0) } ?? .null
        object["returnAttachments"] = .bool(returnAttachments)
        object["attachmentsSyncDirection"] = .string(attachmentsSyncDirection.rawValue)
        object["spatialRel"] = "esriSpatialRelIntersects"
        object["geometry"] = geometryJSON
        object["spatialReference"] = spatialReference.json
        object["syncDataOptions"] = .int(syncDataOptions)
        object["layers"] = .array(
            layers.map { layer in
                [
                    "id": .int(Int64(layer.layerId)), "queryOption": .string(layer.queryOption.rawValue),
                    "useGeometry": .bool(layer.useGeometry), "includeRelated": .bool(layer.includeRelated),
                    "where": layer.whereClause.map { .string($0) } ?? "",
                ]
            })
        return .object(object)
    }
}
