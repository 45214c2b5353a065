/// One entry of `syncLayers` (§5.2): a layer to sync, the generation its data is at, and
/// the direction of this sync for it.
public struct SyncLayerRequest: Sendable, Equatable {
    public var layerId: Int
    public var serverGen: Int64?
    public var syncDirection: SyncDirection?

    public init(layerId: Int, serverGen: Int64? = nil, syncDirection: SyncDirection? = nil) {
        self.layerId = layerId
        self.serverGen = serverGen
        self.syncDirection = syncDirection
    }
}

/// `syncLayers` as sent. The ArcGIS API for Python sends the plain string `perReplica`
/// (§5.8); whether that is acceptable depends on the replica's model, which the planner knows.
public enum SyncLayersParameter: Sendable, Equatable {
    case absent
    case layers([SyncLayerRequest])
    /// Text that is not a JSON array (e.g. `perReplica`): ignored for per-replica replicas.
    case notALayerList(String)
}

/// Where the client's edits come from.
public enum SyncUploadSource: Sendable, Equatable {
    /// The `edits` parameter, parsed, and its text (the retry fingerprint).
    case inline([LayerEdits], text: String)
    /// A committed item of the `uploads` resource holding a delta (`editsUploadID`).
    case uploadedFile(itemID: String, format: ReplicaDataFormat)
}

/// A `synchronizeReplica` request as sent (§5.2), checked for syntax only. What it means for
/// a replica is decided by `SyncPlanner`.
public struct SynchronizeReplicaRequest: Sendable, Equatable {
    public var replicaId: String
    public var replicaServerGen: Int64?
    public var syncLayers: SyncLayersParameter = .absent
    /// nil: `bidirectional` (the REST default).
    public var syncDirection: SyncDirection?
    public var upload: SyncUploadSource?
    public var dataFormat: ReplicaDataFormat = .json
    public var transportType: TransportType = .url
    public var isAsync = false
    public var returnIdsForAdds = false
    /// Outpost's default is `false`, the REST default (`docs/decisions.md`).
    public var rollbackOnFailure = false
    public var closeReplica = false
    public var returnAttachmentsDataByUrl = true

    public init(replicaId: String) {
        self.replicaId = replicaId
    }

    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> SynchronizeReplicaRequest {
        guard let rawId = p.string("replicaID") else { throw .missingParameter("replicaID") }
        guard let replicaId = GlobalID.normalize(rawId) else {
            throw .invalidParameter("replicaID", "'\(rawId)' is not a replica id (a GUID)")
        }
        var request = SynchronizeReplicaRequest(replicaId: replicaId)
        if let text = p.string("replicaServerGen") {
            guard let gen = Int64(text), gen >= 0 else { throw .invalidParameter("replicaServerGen", "expected a non-negative integer") }
            request.replicaServerGen = gen
        }
        if let text = p.string("syncLayers") {
            request.syncLayers = try parseSyncLayers(text)
        }
        if let text = p.string("syncDirection") {
            guard let direction = SyncDirection(lenient: text) else {
                throw .invalidParameter("syncDirection", "expected bidirectional, upload, download or snapshot")
            }
            request.syncDirection = direction
        }
        let editsText = p.string("edits")
        let uploadID = p.string("editsUploadID")
        switch (editsText, uploadID) {
        case (let text?, nil):
            guard let json = try? JSONParser.parse(text) else { throw .invalidParameter("edits", "not valid JSON") }
            request.upload = .inline(try parseEdits(json, parameter: "edits"), text: text)
        case (nil, let id?):
            guard let formatText = p.string("editsUploadFormat") else { throw .missingParameter("editsUploadFormat") }
            request.upload = .uploadedFile(itemID: id, format: try ReplicaDataFormat.parse(formatText, parameter: "editsUploadFormat"))
        case (_?, _?):
            throw .invalidParameter("edits", "send edits or editsUploadID, not both")
        case (nil, nil):
            break
        }
        if let text = p.string("dataFormat") {
            request.dataFormat = try ReplicaDataFormat.parse(text, parameter: "dataFormat")
        }
        if let text = p.string("transportType") {
            guard let type = TransportType(lenient: text) else {
                throw .invalidParameter("transportType", "expected esriTransportTypeUrl or esriTransportTypeEmbedded")
            }
            request.transportType = type
        }
        request.isAsync = try p.bool("async", default: false)
        request.returnIdsForAdds = try p.bool("returnIdsForAdds", default: false)
        request.rollbackOnFailure = try p.bool("rollbackOnFailure", default: false)
        request.closeReplica = try p.bool("closeReplica", default: false)
        request.returnAttachmentsDataByUrl = try p.bool(anyOf: CreateReplicaRequest.dataByUrlSpellings, default: true)
        return request
    }

    /// `[{"id":0,"serverGen":5,"syncDirection":"download"}, …]`; other text is kept for the
    /// planner to ignore or reject.
    static func parseSyncLayers(_ text: String) throws(ArcGISError) -> SyncLayersParameter {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("[") else { return .notALayerList(trimmed) }
        guard case .array(let entries)? = try? JSONParser.parse(trimmed) else {
            throw .invalidParameter("syncLayers", "not a JSON array")
        }
        var layers: [SyncLayerRequest] = []
        for entry in entries {
            guard let object = entry.objectValue, let id = object.value(forCaseInsensitiveKey: "id")?.int64Value, id >= 0 else {
                throw .invalidParameter("syncLayers", "every entry needs a layer 'id'")
            }
            var layer = SyncLayerRequest(layerId: Int(id))
            if let gen = object.value(forCaseInsensitiveKey: "serverGen"), !gen.isNull {
                guard let value = gen.int64Value ?? gen.stringValue.flatMap({ Int64($0) }), value >= 0 else {
                    throw .invalidParameter("syncLayers", "layer \(id): serverGen must be a non-negative integer")
                }
                layer.serverGen = value
            }
            if let direction = object.value(forCaseInsensitiveKey: "syncDirection")?.stringValue {
                guard let parsed = SyncDirection(lenient: direction) else {
                    throw .invalidParameter("syncLayers", "layer \(id): syncDirection must be bidirectional, upload, download or snapshot")
                }
                layer.syncDirection = parsed
            }
            if layers.contains(where: { $0.layerId == layer.layerId }) {
                throw .invalidParameter("syncLayers", "layer \(id) is listed twice")
            }
            layers.append(layer)
        }
        return .layers(layers)
    }

    /// The sync `edits` array (§5.3): `[{"id":0,"features":{"adds":[…],"updates":[…],
    /// "deleteIds":[…]},"attachments":{…}}]`. Deletes name GlobalIDs. The applyEdits shape
    /// (`adds`/`updates`/`deletes` directly in the entry) is accepted too.
    public static func parseEdits(_ json: JSONValue, parameter: String) throws(ArcGISError) -> [LayerEdits] {
        guard case .array(let items) = json else { throw .invalidParameter(parameter, "expected a JSON array of layer edits") }
        var result: [LayerEdits] = []
        for item in items {
            guard case .object(let object) = item, let id = object.value(forCaseInsensitiveKey: "id")?.int64Value, id >= 0 else {
                throw .invalidParameter(parameter, "every entry needs a layer 'id'")
            }
            if result.contains(where: { $0.layerId == Int(id) }) {
                throw .invalidParameter(parameter, "layer \(id) appears twice")
            }
            let features = object.value(forCaseInsensitiveKey: "features")?.objectValue ?? object
            var edits = LayerEdits(layerId: Int(id))
            edits.adds = try LayerEdits.parseFeatures(features.value(forCaseInsensitiveKey: "adds"), parameter: parameter)
            edits.updates = try LayerEdits.parseFeatures(features.value(forCaseInsensitiveKey: "updates"), parameter: parameter)
            for key in ["deleteIds", "deletes"] {
                switch features.value(forCaseInsensitiveKey: key) {
                case nil, .null?: continue
                case .string(let s)?: edits.deletes += try LayerEdits.parseDeletes(s, useGlobalIds: true, parameter: parameter)
                case let value?: edits.deletes += try LayerEdits.parseDeletes(value.jsonText, useGlobalIds: true, parameter: parameter)
                }
            }
            if let attachments = object.value(forCaseInsensitiveKey: "attachments"), !attachments.isNull {
                let parsed = try AttachmentEdits.parse(attachments, useGlobalIds: true, parameter: parameter)
                if !parsed.isEmpty { edits.attachments = parsed }
            }
            result.append(edits)
        }
        return result
    }
}
