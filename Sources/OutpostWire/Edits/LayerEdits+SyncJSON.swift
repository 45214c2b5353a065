import Foundation

extension LayerEdits {
    /// The layer's entry of a sync's `edits` (§5.3): `{"id", "features": {"adds", "updates",
    /// "deleteIds"}, "attachments": {"adds", "updates", "deleteIds"}}`, attachment bytes as
    /// base64 `data` (or `uploadId`). `SynchronizeReplicaRequest.parseEdits` reads it back.
    public var syncJSON: JSONValue {
        // A sync names features by GlobalID only.
        let features: JSONObject = [
            "adds": .array(adds.map(\.json)),
            "updates": .array(updates.map(\.json)),
            "deleteIds": .array(
                deletes.compactMap { key in
                    if case .globalId(let id) = key { return .string(id) }
                    return nil
                }),
        ]
        var entry: JSONObject = ["id": .int(Int64(layerId)), "features": .object(features)]
        if let attachments, !attachments.isEmpty {
            entry["attachments"] = [
                "adds": .array(attachments.adds.map(\.json)),
                "updates": .array(attachments.updates.map(\.json)),
                "deleteIds": .array(attachments.deletes.map { .string($0) }),
            ]
        }
        return .object(entry)
    }
}

extension EditFeature {
    /// `{"attributes": {…}, "geometry": {…}}`.
    public var json: JSONValue {
        var object: JSONObject = ["attributes": .object(attributes)]
        if let geometry { object["geometry"] = geometry }
        return .object(object)
    }
}

extension AttachmentEdit {
    /// An attachment add or update as sync `edits` carry it.
    public var json: JSONValue {
        var object: JSONObject = ["globalId": .string(globalId)]
        if let parentGlobalId { object["parentGlobalId"] = .string(parentGlobalId) }
        if let name { object["name"] = .string(name) }
        if let contentType { object["contentType"] = .string(contentType) }
        if let keywords { object["keywords"] = .string(keywords) }
        switch source {
        case .data(let bytes)?: object["data"] = .string(Data(bytes).base64EncodedString())
        case .uploadId(let id)?: object["uploadId"] = .string(id)
        case nil: break
        }
        return .object(object)
    }
}
