/// One layer's entry of `layerQueries` (§4.3). Absent members take the defaults the replica
/// plan decides (`docs/decisions.md`, "Replicas").
public struct ReplicaLayerQuery: Sendable, Equatable {
    public var queryOption: ReplicaQueryOption?
    public var useGeometry: Bool?
    public var includeRelated: Bool?
    public var whereClause: String?

    public init(
        queryOption: ReplicaQueryOption? = nil, useGeometry: Bool? = nil, includeRelated: Bool? = nil,
        whereClause: String? = nil
    ) {
        self.queryOption = queryOption
        self.useGeometry = useGeometry
        self.includeRelated = includeRelated
        self.whereClause = whereClause
    }
}

/// `replicaOptions` asking to register data that already exists on a device (§4.7): the
/// replica gets an id and generations of its own and no data is sent.
///
/// Outpost's request (the reference leaves it open): `{"registerExistingData": true,
/// "refReplicaId": "<id of the replica the data was copied from>", "replicaServerGen": G}` or
/// `"layerServerGens": [{"id": 0, "serverGen": G}, …]`; either key alone makes it a
/// registration. Generations default to the reference replica's when it is still registered.
public struct RegisterExistingData: Sendable, Equatable {
    public var referenceReplicaId: String?
    public var replicaServerGen: Int64?
    public var layerServerGens: [Int: Int64]

    public init(referenceReplicaId: String? = nil, replicaServerGen: Int64? = nil, layerServerGens: [Int: Int64] = [:]) {
        self.referenceReplicaId = referenceReplicaId
        self.replicaServerGen = replicaServerGen
        self.layerServerGens = layerServerGens
    }
}

/// A `createReplica` request as sent (§4.2), checked for syntax only: every value is of the
/// right kind. Whether it makes sense for a service is decided by `ReplicaPlanner`.
public struct CreateReplicaRequest: Sendable, Equatable {
    public var replicaName: String?
    /// nil when the parameter is absent (allowed only when registering existing data).
    public var layers: [Int]?
    public var layerQueries: [Int: ReplicaLayerQuery] = [:]
    /// The replica geometry as sent; parsed against the service by the planner.
    public var geometry: QueryGeometry?
    public var replicaSR: SpatialReference?
    public var transportType: TransportType = .url
    public var returnAttachments = false
    public var returnAttachmentsDataByUrl = true
    public var isAsync = false
    public var syncModel: SyncModel?
    public var targetType: ReplicaTargetType = .client
    public var syncDirection: SyncDirection?
    public var attachmentsSyncDirection: AttachmentsSyncDirection?
    public var dataFormat: ReplicaDataFormat = .json
    public var registerExistingData: RegisterExistingData?
    public var syncDataOptions: Int64 = 0

    public init() {}

    /// The spellings clients use for `returnAttachmentsDataByUrl` (§1.4).
    public static let dataByUrlSpellings = ["returnAttachmentsDataByUrl", "returnAttachmentDataByUrl"]

    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> CreateReplicaRequest {
        var request = CreateReplicaRequest()
        request.replicaName = p.string("replicaName")
        if let name = request.replicaName, name.count > 256 || name.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw .invalidParameter("replicaName", "names are at most 256 characters without control characters")
        }
        if let ids = try p.intList("layers") {
            guard !ids.isEmpty else { throw .invalidParameter("layers", "name at least one layer or table") }
            var seen = Set<Int>()
            request.layers = ids.map { Int($0) }.filter { seen.insert($0).inserted }
        }
        if let value = try p.json("layerQueries") {
            request.layerQueries = try parseLayerQueries(value)
        }
        if let text = p.string("geometry") {
            var geometryType: EsriGeometryType?
            if let typeText = p.string("geometryType") {
                guard let type = EsriGeometryType(lenient: typeText) else {
                    throw .invalidParameter("geometryType", "unknown geometry type '\(typeText)'")
                }
                geometryType = type
            }
            request.geometry = QueryGeometry(text: text, geometryType: geometryType, inSR: try spatialReference(p, "inSR"))
        }
        request.replicaSR = try spatialReference(p, "replicaSR")
        if let text = p.string("transportType") {
            guard let type = TransportType(lenient: text) else {
                throw .invalidParameter("transportType", "expected esriTransportTypeUrl or esriTransportTypeEmbedded")
            }
            request.transportType = type
        }
        request.returnAttachments = try p.bool("returnAttachments", default: false)
        request.returnAttachmentsDataByUrl = try p.bool(anyOf: dataByUrlSpellings, default: true)
        request.isAsync = try p.bool("async", default: false)
        if let text = p.string("syncModel") {
            guard let model = SyncModel(lenient: text) else {
                throw .invalidParameter("syncModel", "expected perReplica, perLayer or none")
            }
            request.syncModel = model
        }
        if let text = p.string("targetType") {
            guard let target = ReplicaTargetType(lenient: text) else { throw .invalidParameter("targetType", "expected client or server") }
            request.targetType = target
        }
        if let text = p.string("syncDirection") {
            guard let direction = SyncDirection(lenient: text), direction != .snapshot else {
                throw .invalidParameter("syncDirection", "expected bidirectional, upload or download")
            }
            request.syncDirection = direction
        }
        if let text = p.string("attachmentsSyncDirection") {
            guard let direction = AttachmentsSyncDirection(lenient: text) else {
                throw .invalidParameter("attachmentsSyncDirection", "expected none, upload or bidirectional")
            }
            request.attachmentsSyncDirection = direction
        }
        if let text = p.string("dataFormat") {
            request.dataFormat = try ReplicaDataFormat.parse(text, parameter: "dataFormat")
        }
        if let value = try p.json("replicaOptions") {
            request.registerExistingData = try parseReplicaOptions(value)
        }
        if let options = p.string("syncDataOptions") {
            guard let value = Int64(options), value >= 0 else { throw .invalidParameter("syncDataOptions", "expected a non-negative integer") }
            request.syncDataOptions = value
        }
        return request
    }

    static func spatialReference(_ p: RequestParameters, _ name: String) throws(ArcGISError) -> SpatialReference? {
        guard let text = p.string(name) else { return nil }
        guard let reference = SpatialReference(json: .string(text)) else {
            throw .invalidParameter(name, "expected a wkid or {\"wkid\": …}, got '\(text)'")
        }
        return reference
    }

    static func parseLayerQueries(_ value: JSONValue) throws(ArcGISError) -> [Int: ReplicaLayerQuery] {
        guard let object = value.objectValue else {
            throw .invalidParameter("layerQueries", "expected an object keyed by layer id")
        }
        var result: [Int: ReplicaLayerQuery] = [:]
        for (key, entry) in object {
            guard let id = Int(key.trimmingWhitespace()), id >= 0 else {
                throw .invalidParameter("layerQueries", "'\(key)' is not a layer id")
            }
            guard let options = entry.objectValue else {
                throw .invalidParameter("layerQueries", "the entry of layer \(id) is not an object")
            }
            var query = ReplicaLayerQuery()
            for (name, member) in options {
                switch name.lowercased() {
                case "queryoption":
                    guard let text = member.stringValue, let option = ReplicaQueryOption(lenient: text) else {
                        throw .invalidParameter("layerQueries", "layer \(id): queryOption must be none, useFilter or all")
                    }
                    query.queryOption = option
                case "usegeometry":
                    query.useGeometry = try lenientBool(member, "layer \(id): useGeometry")
                case "includerelated":
                    query.includeRelated = try lenientBool(member, "layer \(id): includeRelated")
                case "where":
                    switch member {
                    case .null: break
                    case .string(let text): query.whereClause = text.trimmingWhitespace().isEmpty ? nil : text
                    default: throw .invalidParameter("layerQueries", "layer \(id): where must be a string")
                    }
                default:
                    // Unknown members (e.g. `fields`, `outFields` sent by some tools) are ignored.
                    continue
                }
            }
            result[id] = query
        }
        return result
    }

    static func parseReplicaOptions(_ value: JSONValue) throws(ArcGISError) -> RegisterExistingData? {
        guard let object = value.objectValue else { throw .invalidParameter("replicaOptions", "expected a JSON object") }
        if object.isEmpty { return nil }
        var register = RegisterExistingData()
        var asksToRegister = false
        for (name, member) in object {
            switch name.lowercased() {
            case "registerexistingdata":
                asksToRegister = try lenientBool(member, "registerExistingData", parameter: "replicaOptions")
            case "refreplicaid":
                guard let text = member.stringValue, let id = GlobalID.normalize(text) else {
                    throw .invalidParameter("replicaOptions", "refReplicaId must be a replica id (a GUID)")
                }
                register.referenceReplicaId = id
                asksToRegister = true
            case "replicaservergen":
                guard let gen = member.int64Value, gen >= 0 else {
                    throw .invalidParameter("replicaOptions", "replicaServerGen must be a non-negative integer")
                }
                register.replicaServerGen = gen
            case "layerservergens":
                register.layerServerGens = try parseLayerServerGens(member, parameter: "replicaOptions")
            default:
                throw .invalidParameter("replicaOptions", "unknown member '\(name)'")
            }
        }
        guard asksToRegister else {
            throw .invalidParameter("replicaOptions", "only {\"registerExistingData\": true, …} is supported")
        }
        return register
    }

    /// `[{"id":0,"serverGen":5}, …]` (the shape replicas answer with) or `{"0": 5}`.
    public static func parseLayerServerGens(_ value: JSONValue, parameter: String) throws(ArcGISError) -> [Int: Int64] {
        var gens: [Int: Int64] = [:]
        switch value {
        case .array(let entries):
            for entry in entries {
                guard let id = entry.objectValue?.value(forCaseInsensitiveKey: "id")?.int64Value,
                    let gen = entry.objectValue?.value(forCaseInsensitiveKey: "serverGen")?.int64Value, gen >= 0
                else { throw .invalidParameter(parameter, "layerServerGens entries are {\"id\": layer, \"serverGen\": generation}") }
                gens[Int(id)] = gen
            }
        case .object(let object):
            for (key, member) in object {
                guard let id = Int(key), let gen = member.int64Value, gen >= 0 else {
                    throw .invalidParameter(parameter, "layerServerGens maps layer ids to generations")
                }
                gens[id] = gen
            }
        default:
            throw .invalidParameter(parameter, "layerServerGens must be an array")
        }
        return gens
    }

    static func lenientBool(_ value: JSONValue, _ what: String, parameter: String = "layerQueries") throws(ArcGISError) -> Bool {
        switch value {
        case .bool(let b): return b
        case .int(let i) where i == 0 || i == 1: return i == 1
        case .string(let s):
            switch s.lowercased() {
            case "true", "1": return true
            case "false", "0": return false
            default: break
            }
        default: break
        }
        throw .invalidParameter(parameter, "\(what) must be true or false")
    }
}
