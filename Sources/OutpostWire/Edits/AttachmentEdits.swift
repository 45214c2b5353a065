/// Where an attachment edit's bytes come from.
public enum AttachmentSource: Sendable, Equatable {
    /// Inline base64 `data`.
    case data([UInt8])
    /// A committed item of the `uploads` resource.
    case uploadId(String)
}

/// One attachment add or update inside `applyEdits` (`useGlobalIds=true`).
public struct AttachmentEdit: Sendable, Equatable {
    public var globalId: String
    public var parentGlobalId: String?
    public var name: String?
    public var contentType: String?
    public var keywords: String?
    public var source: AttachmentSource?

    public init(
        globalId: String, parentGlobalId: String?, name: String?, contentType: String?, keywords: String? = nil,
        source: AttachmentSource?
    ) {
        self.globalId = globalId
        self.parentGlobalId = parentGlobalId
        self.name = name
        self.contentType = contentType
        self.keywords = keywords
        self.source = source
    }
}

/// The `attachments` part of an `applyEdits` request for one layer.
public struct AttachmentEdits: Sendable, Equatable {
    public var adds: [AttachmentEdit] = []
    public var updates: [AttachmentEdit] = []
    public var deletes: [String] = []

    public init(adds: [AttachmentEdit] = [], updates: [AttachmentEdit] = [], deletes: [String] = []) {
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
    }

    public var isEmpty: Bool { adds.isEmpty && updates.isEmpty && deletes.isEmpty }

    /// The `uploads` items the adds and updates take their bytes from.
    public var uploadIds: [String] {
        (adds + updates).compactMap { edit in
            if case .uploadId(let id) = edit.source { return id }
            return nil
        }
    }

    /// The upload item an attachment `url` refers to: the last path segment of
    /// `…/uploads/<itemID>` (query and trailing slash ignored), or the text itself.
    public static func uploadItemID(fromReference reference: String) -> String {
        var path = Substring(reference)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path.split(separator: "/").last ?? path)
    }

    /// Parses `{"adds":[…],"updates":[…],"deletes":[…]}`; attachments are named by GlobalID,
    /// so the request must say `useGlobalIds=true`.
    public static func parse(_ json: JSONValue, useGlobalIds: Bool, parameter: String = "attachments") throws(ArcGISError) -> AttachmentEdits {
        guard useGlobalIds else { throw .invalidParameter(parameter, "attachment edits need useGlobalIds=true") }
        guard case .object(let object) = json else { throw .invalidParameter(parameter, "expected a JSON object") }
        var edits = AttachmentEdits()
        func items(_ key: String) throws(ArcGISError) -> [JSONValue] {
            switch object.value(forCaseInsensitiveKey: key) {
            case nil, .null?: return []
            case .array(let values)?: return values
            default: throw .invalidParameter(parameter, "'\(key)' must be an array")
            }
        }
        func edit(_ value: JSONValue, index: Int, requireParent: Bool) throws(ArcGISError) -> AttachmentEdit {
            guard case .object(let item) = value else { throw .invalidParameter(parameter, "attachment \(index) is not an object") }
            guard let raw = item.value(forCaseInsensitiveKey: "globalId")?.stringValue, let globalId = GlobalID.normalize(raw) else {
                throw .invalidParameter(parameter, "attachment \(index) needs a valid globalId")
            }
            var parent: String?
            if let raw = item.value(forCaseInsensitiveKey: "parentGlobalId")?.stringValue {
                guard let normalized = GlobalID.normalize(raw) else { throw .invalidParameter(parameter, "attachment \(index): bad parentGlobalId") }
                parent = normalized
            } else if requireParent {
                throw .invalidParameter(parameter, "attachment \(index) needs a parentGlobalId")
            }
            var source: AttachmentSource?
            if let data = item.value(forCaseInsensitiveKey: "data")?.stringValue {
                guard let bytes = Base64.decode(data) else { throw .invalidParameter(parameter, "attachment \(index): 'data' is not base64") }
                source = .data(bytes)
            } else if let upload = item.value(forCaseInsensitiveKey: "uploadId")?.stringValue {
                source = .uploadId(upload)
            } else if let url = item.value(forCaseInsensitiveKey: "url")?.stringValue, !url.isEmpty {
                // Sync names uploaded bytes by reference (§5.3): an item id or `…/uploads/<itemID>`.
                source = .uploadId(Self.uploadItemID(fromReference: url))
            } else if requireParent {
                throw .invalidParameter(parameter, "attachment \(index) needs 'data' or 'uploadId'")
            }
            return AttachmentEdit(
                globalId: globalId, parentGlobalId: parent, name: item.value(forCaseInsensitiveKey: "name")?.stringValue,
                contentType: item.value(forCaseInsensitiveKey: "contentType")?.stringValue,
                keywords: item.value(forCaseInsensitiveKey: "keywords")?.stringValue, source: source)
        }
        for (index, value) in try items("adds").enumerated() { edits.adds.append(try edit(value, index: index, requireParent: true)) }
        for (index, value) in try items("updates").enumerated() { edits.updates.append(try edit(value, index: index, requireParent: false)) }
        // applyEdits says `deletes`; synchronizeReplica says `deleteIds` (§5.3).
        for value in try items("deletes") + items("deleteIds") {
            guard let raw = value.stringValue, let id = GlobalID.normalize(raw) else {
                throw .invalidParameter(parameter, "'deletes' must list attachment GlobalIDs")
            }
            edits.deletes.append(id)
        }
        return edits
    }
}
