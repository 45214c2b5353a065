/// A feature as sent in `adds` / `updates`: attributes and an optional Esri JSON geometry.
public struct EditFeature: Sendable, Equatable {
    public var attributes: JSONObject
    public var geometry: JSONValue?

    public init(attributes: JSONObject, geometry: JSONValue? = nil) {
        self.attributes = attributes
        self.geometry = geometry
    }
}

/// How a delete names its feature.
public enum FeatureKey: Sendable, Equatable, Hashable {
    case objectId(Int64)
    case globalId(String)
}

/// The edits of one layer in one request.
public struct LayerEdits: Sendable, Equatable {
    public var layerId: Int
    public var adds: [EditFeature] = []
    public var updates: [EditFeature] = []
    public var deletes: [FeatureKey] = []
    /// `deleteFeatures` by `where` / geometry: the features it selects when the edit runs.
    public var deleteQuery: LayerQuery?
    /// Attachment edits (`useGlobalIds=true`), applied after the feature edits.
    public var attachments: AttachmentEdits?

    public init(
        layerId: Int, adds: [EditFeature] = [], updates: [EditFeature] = [], deletes: [FeatureKey] = [],
        attachments: AttachmentEdits? = nil
    ) {
        self.layerId = layerId
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
        self.attachments = attachments
    }

    public var count: Int { adds.count + updates.count + deletes.count }
}

/// Request-wide edit options.
public struct EditOptions: Sendable, Equatable {
    /// All or nothing (the ArcGIS default).
    public var rollbackOnFailure = true
    /// Updates and deletes name features by GlobalID instead of OBJECTID.
    public var useGlobalIds = false
    public var returnEditMoment = false

    public init(rollbackOnFailure: Bool = true, useGlobalIds: Bool = false, returnEditMoment: Bool = false) {
        self.rollbackOnFailure = rollbackOnFailure
        self.useGlobalIds = useGlobalIds
        self.returnEditMoment = returnEditMoment
    }

    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> EditOptions {
        EditOptions(
            rollbackOnFailure: try p.bool("rollbackOnFailure", default: true),
            useGlobalIds: try p.bool("useGlobalIds", default: false),
            returnEditMoment: try p.bool("returnEditMoment", default: false))
    }
}

/// A per-edit failure, as ArcGIS reports it inside edit results: `{"code","description"}`.
public struct EditError: Error, Sendable, Equatable {
    public var code: Int
    public var description: String

    public init(code: Int, description: String) {
        self.code = code
        self.description = description
    }

    /// A value that does not fit the layer's schema.
    public static func invalid(_ description: String) -> EditError { EditError(code: 1000, description: description) }
    /// The edit was valid but undone because another edit of the request failed.
    public static let rolledBack = EditError(code: 1003, description: "Operation rolled back.")
    /// An update or delete named a feature that does not exist.
    public static func missing(_ key: String) -> EditError { EditError(code: 1019, description: "Object is missing: \(key).") }
    public static func duplicateGlobalID(_ id: String) -> EditError {
        EditError(code: 1004, description: "A feature with GlobalID \(id) already exists.")
    }
}

/// The outcome of one add, update or delete.
public struct EditResult: Sendable, Equatable {
    public var objectId: Int64?
    public var globalId: String?
    public var error: EditError?

    public init(objectId: Int64?, globalId: String?, error: EditError? = nil) {
        self.objectId = objectId
        self.globalId = globalId
        self.error = error
    }

    public var success: Bool { error == nil }

    public var json: JSONValue {
        var object: JSONObject = [
            "objectId": objectId.map { .int($0) } ?? -1, "globalId": globalId.map { .string($0) } ?? .null,
            "success": .bool(success),
        ]
        if let error { object["error"] = ["code": .int(Int64(error.code)), "description": .string(error.description)] }
        return .object(object)
    }
}

/// The results of one layer's edits.
public struct LayerEditResults: Sendable, Equatable {
    public var layerId: Int
    public var addResults: [EditResult] = []
    public var updateResults: [EditResult] = []
    public var deleteResults: [EditResult] = []
    /// Results of attachment edits; nil when the request had none.
    public var attachmentResults: (adds: [EditResult], updates: [EditResult], deletes: [EditResult])?

    public init(layerId: Int) { self.layerId = layerId }

    public var all: [EditResult] {
        addResults + updateResults + deleteResults
            + (attachmentResults.map { $0.adds + $0.updates + $0.deletes } ?? [])
    }

    public static func == (lhs: LayerEditResults, rhs: LayerEditResults) -> Bool {
        lhs.layerId == rhs.layerId && lhs.addResults == rhs.addResults && lhs.updateResults == rhs.updateResults
            && lhs.deleteResults == rhs.deleteResults && lhs.attachmentResults?.adds == rhs.attachmentResults?.adds
            && lhs.attachmentResults?.updates == rhs.attachmentResults?.updates
            && lhs.attachmentResults?.deletes == rhs.attachmentResults?.deletes
    }

    /// Every result failed: the failing edits keep their error, the others say they were rolled back.
    public mutating func markRolledBack() {
        func mark(_ results: inout [EditResult]) {
            for index in results.indices where results[index].error == nil { results[index].error = .rolledBack }
        }
        mark(&addResults)
        mark(&updateResults)
        mark(&deleteResults)
        if var attachments = attachmentResults {
            mark(&attachments.adds)
            mark(&attachments.updates)
            mark(&attachments.deletes)
            attachmentResults = attachments
        }
    }

    public func json(includeLayerId: Bool) -> JSONValue {
        var object: JSONObject = [:]
        if includeLayerId { object["id"] = .int(Int64(layerId)) }
        object["addResults"] = .array(addResults.map(\.json))
        object["updateResults"] = .array(updateResults.map(\.json))
        object["deleteResults"] = .array(deleteResults.map(\.json))
        if let attachments = attachmentResults {
            object["attachments"] = [
                "addResults": .array(attachments.adds.map(\.json)),
                "updateResults": .array(attachments.updates.map(\.json)),
                "deleteResults": .array(attachments.deletes.map(\.json)),
            ]
        }
        return .object(object)
    }
}

extension LayerEdits {
    /// Parses one `adds` / `updates` array (a JSON array of `{"attributes", "geometry"}`).
    public static func parseFeatures(_ json: JSONValue?, parameter: String) throws(ArcGISError) -> [EditFeature] {
        guard let json else { return [] }
        guard case .array(let items) = json else { throw .invalidParameter(parameter, "expected a JSON array of features") }
        var features: [EditFeature] = []
        features.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item else {
                throw .invalidParameter(parameter, "feature \(index) is not a JSON object")
            }
            let attributes = object.value(forCaseInsensitiveKey: "attributes")
            if let attributes, attributes.objectValue == nil, !attributes.isNull {
                throw .invalidParameter(parameter, "feature \(index): 'attributes' must be an object")
            }
            let geometry = object.value(forCaseInsensitiveKey: "geometry")
            features.append(EditFeature(attributes: attributes?.objectValue ?? [:], geometry: geometry?.isNull == true ? nil : geometry))
        }
        return features
    }

    /// Parses `deletes`: `1,2,3`, `[1,2]`, or GlobalIDs when `useGlobalIds`.
    public static func parseDeletes(_ raw: String?, useGlobalIds: Bool, parameter: String = "deletes") throws(ArcGISError) -> [FeatureKey] {
        guard var text = raw?.trimmingWhitespace(), !text.isEmpty else { return [] }
        if text.hasPrefix("[") {
            guard case .array(let items)? = try? JSONParser.parse(text) else { throw .invalidParameter(parameter, "not a JSON array") }
            text = items.map { item -> String in
                switch item {
                case .int(let i): String(i)
                case .string(let s): s
                default: "?"
                }
            }.joined(separator: ",")
        }
        var keys: [FeatureKey] = []
        for part in text.split(separator: ",") {
            let token = String(part).trimmingWhitespace().trimmingQuotes()
            if token.isEmpty { continue }
            guard keys.count < RequestParameters.maxListItems else { throw RequestParameters.tooManyItems(parameter) }
            if useGlobalIds {
                guard let id = GlobalID.normalize(token) else { throw .invalidParameter(parameter, "'\(token)' is not a GlobalID") }
                keys.append(.globalId(id))
            } else {
                guard let id = Int64(token) else { throw .invalidParameter(parameter, "'\(token)' is not an object id") }
                keys.append(.objectId(id))
            }
        }
        return keys
    }

    /// The service-level `edits` parameter: `[{"id":0,"adds":[…],"updates":[…],"deletes":[…]}]`.
    public static func parseServiceEdits(_ json: JSONValue, useGlobalIds: Bool) throws(ArcGISError) -> [LayerEdits] {
        guard case .array(let items) = json else { throw .invalidParameter("edits", "expected a JSON array of layer edits") }
        var result: [LayerEdits] = []
        for item in items {
            guard case .object(let object) = item, let id = object.value(forCaseInsensitiveKey: "id")?.int64Value else {
                throw .invalidParameter("edits", "every entry needs a layer 'id'")
            }
            var edits = LayerEdits(layerId: Int(id))
            edits.adds = try parseFeatures(object.value(forCaseInsensitiveKey: "adds"), parameter: "edits")
            edits.updates = try parseFeatures(object.value(forCaseInsensitiveKey: "updates"), parameter: "edits")
            if let attachments = object.value(forCaseInsensitiveKey: "attachments"), !attachments.isNull {
                edits.attachments = try AttachmentEdits.parse(attachments, useGlobalIds: useGlobalIds, parameter: "edits")
            }
            switch object.value(forCaseInsensitiveKey: "deletes") {
            case nil, .null?: break
            case .string(let s)?: edits.deletes = try parseDeletes(s, useGlobalIds: useGlobalIds, parameter: "edits")
            case let value?: edits.deletes = try parseDeletes(value.jsonText, useGlobalIds: useGlobalIds, parameter: "edits")
            }
            result.append(edits)
        }
        return result
    }
}

extension String {
    func trimmingQuotes() -> String {
        var s = self
        while let first = s.first, first == "\"" || first == "'" { s.removeFirst() }
        while let last = s.last, last == "\"" || last == "'" { s.removeLast() }
        return s
    }
}

extension EditResult {
    /// Reads back what `json` wrote (`objectId` -1 means none).
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let success = object["success"]?.boolValue else { return nil }
        let objectId = object["objectId"]?.int64Value
        self.init(objectId: objectId == -1 ? nil : objectId, globalId: object["globalId"]?.stringValue)
        if !success {
            let error = object["error"]?.objectValue
            self.error = EditError(
                code: Int(error?["code"]?.int64Value ?? 1000),
                description: error?["description"]?.stringValue ?? "Edit failed.")
        }
    }
}

extension LayerEditResults {
    /// Reads back what `json(includeLayerId: true)` wrote.
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let id = object["id"]?.int64Value else { return nil }
        func results(_ value: JSONValue?) -> [EditResult]? {
            guard let items = value?.arrayValue else { return nil }
            let parsed = items.compactMap(EditResult.init(json:))
            return parsed.count == items.count ? parsed : nil
        }
        self.init(layerId: Int(id))
        guard let adds = results(object["addResults"]), let updates = results(object["updateResults"]),
            let deletes = results(object["deleteResults"])
        else { return nil }
        addResults = adds
        updateResults = updates
        deleteResults = deletes
        if let attachments = object["attachments"]?.objectValue {
            guard let adds = results(attachments["addResults"]), let updates = results(attachments["updateResults"]),
                let deletes = results(attachments["deleteResults"])
            else { return nil }
            attachmentResults = (adds, updates, deletes)
        }
    }
}
