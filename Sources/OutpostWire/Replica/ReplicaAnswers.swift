/// The answers of the replica operations, both ways: the server encodes them (`json`), the
/// client parses them (`init(json:)`). One vocabulary, so a key misspelt on one side cannot
/// pass: `ReplicaAnswersTests` checks `parse(encode(x)) == x`.

/// The generations a replica answer hands out: one per replica, or one per layer.
public enum ReplicaGenerations: Sendable, Equatable {
    case perReplica(Int64)
    case perLayer([(layerId: Int, serverGen: Int64)])

    public static func == (a: ReplicaGenerations, b: ReplicaGenerations) -> Bool {
        switch (a, b) {
        case (.perReplica(let x), .perReplica(let y)): x == y
        case (.perLayer(let x), .perLayer(let y)): x.map(\.layerId) == y.map(\.layerId) && x.map(\.serverGen) == y.map(\.serverGen)
        default: false
        }
    }

    /// `replicaServerGen`, or `layerServerGens` (`serverSibGen` -1: Outpost keeps no sibling generations).
    public func write(into object: inout JSONObject) {
        switch self {
        case .perReplica(let generation):
            object["replicaServerGen"] = .int(generation)
        case .perLayer(let layers):
            object["layerServerGens"] = .array(layers.map { ["id": .int(Int64($0.layerId)), "serverGen": .int($0.serverGen), "serverSibGen": -1] })
        }
    }

    init?(json: JSONValue) {
        if let generation = json["replicaServerGen"]?.int64Value {
            self = .perReplica(generation)
        } else if let layers = json["layerServerGens"]?.arrayValue {
            self = .perLayer(
                layers.compactMap { item in
                    guard let id = item["id"]?.int64Value, let generation = item["serverGen"]?.int64Value else { return nil }
                    return (Int(id), generation)
                })
        } else {
            return nil
        }
    }
}

/// What an asynchronous `createReplica` or `synchronizeReplica` answers: where to poll.
public struct ReplicaJobSubmission: Sendable, Equatable {
    public var statusURL: String
    public var replicaId: String
    public var replicaName: String
    /// `createReplica` only.
    public var targetType: ReplicaTargetType?

    public init(statusURL: String, replicaId: String, replicaName: String, targetType: ReplicaTargetType? = nil) {
        self.statusURL = statusURL
        self.replicaId = replicaId
        self.replicaName = replicaName
        self.targetType = targetType
    }

    public var json: JSONValue {
        var object: JSONObject = ["statusUrl": .string(statusURL), "replicaID": .string(replicaId), "replicaName": .string(replicaName)]
        if let targetType { object["targetType"] = .string(targetType.rawValue) }
        return .object(object)
    }

    public init?(json: JSONValue) {
        guard let statusURL = json["statusUrl"]?.stringValue else { return nil }
        self.init(
            statusURL: statusURL, replicaId: json["replicaID"]?.stringValue ?? "", replicaName: json["replicaName"]?.stringValue ?? "",
            targetType: json["targetType"]?.stringValue.flatMap(ReplicaTargetType.init(rawValue:)))
    }
}

/// A replica answer delivered as a file (`transportType=esriTransportTypeUrl`, not async):
/// the replica, its generations, and the file's URL (none when a sync had nothing to return).
public struct ReplicaFileAnswer: Sendable, Equatable {
    public var responseType: ReplicaResponseType
    public var replicaName: String
    public var replicaId: String
    public var generations: ReplicaGenerations?
    public var url: String?

    public init(responseType: ReplicaResponseType, replicaName: String, replicaId: String, generations: ReplicaGenerations?, url: String?) {
        self.responseType = responseType
        self.replicaName = replicaName
        self.replicaId = replicaId
        self.generations = generations
        self.url = url
    }

    /// ArcGIS sends the URL as `URL` (createReplica) and `responseUrl` (synchronizeReplica):
    /// both, as clients read either.
    public var json: JSONValue {
        var object: JSONObject = [
            "transportType": .string(TransportType.url.rawValue), "responseType": .string(responseType.rawValue),
            "replicaName": .string(replicaName), "replicaID": .string(replicaId),
        ]
        generations?.write(into: &object)
        if let url {
            object["URL"] = .string(url)
            object["responseUrl"] = .string(url)
        }
        return .object(object)
    }

    public init?(json: JSONValue) {
        guard let id = json["replicaID"]?.stringValue else { return nil }
        self.init(
            responseType: json["responseType"]?.stringValue.flatMap(ReplicaResponseType.init(rawValue:)) ?? .data,
            replicaName: json["replicaName"]?.stringValue ?? "", replicaId: id, generations: ReplicaGenerations(json: json),
            url: (json["responseUrl"] ?? json["URL"])?.stringValue)
    }
}

/// A replica job's status (`jobs/<id>`): the replica, the job's times and status, the result
/// file's URL once completed, the error once failed.
public struct ReplicaJobStatus: Sendable, Equatable {
    public var replicaName: String
    public var replicaId: String
    public var transportType: TransportType
    public var responseType: ReplicaResponseType
    public var submissionTime: Int64
    public var lastUpdatedTime: Int64
    public var status: ServerJobStatus
    public var resultURL: String?
    public var error: ArcGISError?

    public init(
        replicaName: String, replicaId: String, transportType: TransportType, responseType: ReplicaResponseType, submissionTime: Int64,
        lastUpdatedTime: Int64, status: ServerJobStatus, resultURL: String? = nil, error: ArcGISError? = nil
    ) {
        self.replicaName = replicaName
        self.replicaId = replicaId
        self.transportType = transportType
        self.responseType = responseType
        self.submissionTime = submissionTime
        self.lastUpdatedTime = lastUpdatedTime
        self.status = status
        self.resultURL = resultURL
        self.error = error
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "replicaName": .string(replicaName), "replicaID": .string(replicaId), "transportType": .string(transportType.rawValue),
            "responseType": .string(responseType.rawValue), "submissionTime": .int(submissionTime), "lastUpdatedTime": .int(lastUpdatedTime),
            "status": .string(status.rawValue),
        ]
        if status == .completed, let resultURL { object["resultUrl"] = .string(resultURL) }
        if status == .failed, let error { object["error"] = error.json["error"] ?? .null }
        return .object(object)
    }

    /// Also reads the result URL as `responseUrl` or `URL`, as other servers send it.
    public init?(json: JSONValue) {
        guard let status = json["status"]?.stringValue.flatMap(ServerJobStatus.init(rawValue:)) else { return nil }
        var error: ArcGISError?
        if let envelope = json["error"], envelope != .null {
            error = ArcGISError(
                kind: .init(code: Int(envelope["code"]?.int64Value ?? 500)),
                message: envelope["message"]?.stringValue ?? "The job failed.",
                details: envelope["details"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        self.init(
            replicaName: json["replicaName"]?.stringValue ?? "", replicaId: json["replicaID"]?.stringValue ?? "",
            transportType: json["transportType"]?.stringValue.flatMap(TransportType.init(rawValue:)) ?? .url,
            responseType: json["responseType"]?.stringValue.flatMap(ReplicaResponseType.init(rawValue:)) ?? .data,
            submissionTime: json["submissionTime"]?.int64Value ?? 0, lastUpdatedTime: json["lastUpdatedTime"]?.int64Value ?? 0,
            status: status, resultURL: (json["resultUrl"] ?? json["responseUrl"] ?? json["URL"])?.stringValue, error: error)
    }
}

/// What `createReplica` answers when it registers existing data (`replicaOptions`): the new
/// replica's id and generations, no data.
public struct ReplicaRegistrationAnswer: Sendable, Equatable {
    public var replicaName: String
    public var replicaId: String
    public var generations: ReplicaGenerations?
    public var syncModel: SyncModel
    public var targetType: ReplicaTargetType

    public init(replicaName: String, replicaId: String, generations: ReplicaGenerations?, syncModel: SyncModel, targetType: ReplicaTargetType) {
        self.replicaName = replicaName
        self.replicaId = replicaId
        self.generations = generations
        self.syncModel = syncModel
        self.targetType = targetType
    }

    public var json: JSONValue {
        var object: JSONObject = ["replicaName": .string(replicaName), "replicaID": .string(replicaId)]
        generations?.write(into: &object)
        object["transportType"] = .string(TransportType.url.rawValue)
        object["responseType"] = .string(ReplicaResponseType.info.rawValue)
        object["syncModel"] = .string(syncModel.rawValue)
        object["targetType"] = .string(targetType.rawValue)
        return .object(object)
    }

    public init?(json: JSONValue) {
        guard let id = json["replicaID"]?.stringValue else { return nil }
        self.init(
            replicaName: json["replicaName"]?.stringValue ?? "", replicaId: id, generations: ReplicaGenerations(json: json),
            syncModel: json["syncModel"]?.stringValue.flatMap(SyncModel.init(rawValue:)) ?? .perReplica,
            targetType: json["targetType"]?.stringValue.flatMap(ReplicaTargetType.init(rawValue:)) ?? .client)
    }
}
