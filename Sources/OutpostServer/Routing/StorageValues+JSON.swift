import OutpostStorage
import OutpostWire

/// The wire form of the values storage hands out (storage itself writes no wire format).
extension AttachmentInfo {
    public var json: JSONValue {
        [
            "id": .int(id), "globalId": .string(globalId), "name": .string(name), "contentType": .string(contentType),
            "size": .int(size), "keywords": .string(keywords),
        ]
    }
}

extension DataVersion {
    /// The `versionInfo` of ArcGIS's version management.
    public var json: JSONValue {
        [
            "versionName": .string(name), "versionGuid": guid.map { .string($0) } ?? .null,
            "parentVersionName": parent.map { .string($0) } ?? .null, "replicaID": replicaId.map { .string($0) } ?? .null,
            "access": .string(access), "description": .string(description), "creationDate": .int(creationDate),
            "baseGeneration": .int(baseGeneration),
        ]
    }
}

extension SyncConflict {
    public var json: JSONValue {
        [
            "conflictId": .int(id), "layerId": .int(Int64(layerId)), "globalId": .string(globalId),
            "objectId": objectId.map { .int($0) } ?? .null, "uploadOperation": .string(uploadOperation),
            "overwrittenChange": .string(overwrittenChange), "overwrittenGeneration": .int(overwrittenGeneration),
            "overwrittenBy": overwrittenBy.map { .string($0) } ?? .null, "feature": feature ?? .null,
            "generation": .int(generation), "recordedAt": .int(recordedAt), "fields": fields ?? .null,
        ]
    }
}

extension UploadItem {
    public var json: JSONValue {
        [
            "itemID": .string(itemID), "itemName": .string(itemName), "description": .string(description),
            "date": .int(date), "committed": .bool(committed),
        ]
    }
}

extension PortalFolder {
    /// A folder as the portal lists it.
    var json: JSONValue { ["username": .string(owner), "id": .string(id), "title": .string(title), "created": .int(created)] }
}
