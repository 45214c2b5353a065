/// Who may see a portal item besides its owner and the administrators.
public enum ItemAccess: String, Sendable, Equatable, CaseIterable {
    /// Its owner and the administrators.
    case `private`
    /// Every signed-in user of the portal.
    case org
    /// Everyone, anonymous requests included.
    case `public`

    /// The access `share` sets from its `everyone` and `org` flags (`everyone` wins).
    public static func shared(everyone: Bool, org: Bool) -> ItemAccess {
        everyone ? .public : org ? .org : .private
    }
}

/// A portal item (`content/items/<id>`): what it is, who owns it, who sees it. Its data
/// (web map JSON, a package file) and resources are kept apart.
public struct PortalItem: Sendable, Equatable {
    /// 32 lowercase hexadecimal digits.
    public var id: String
    public var owner: String
    /// The owner's folder id, or nil at the owner's root.
    public var ownerFolder: String?
    public var title: String
    public var type: String
    public var typeKeywords: [String]
    public var tags: [String]
    public var snippet: String
    public var itemDescription: String
    /// The service an item stands for (`Feature Service`, `Map Service`, …), or nil.
    public var url: String?
    public var access: ItemAccess
    /// Epoch milliseconds.
    public var created: Int64
    public var modified: Int64
    /// The item's free-form `properties` object (map areas keep their state here).
    public var properties: JSONValue
    /// `[[xmin, ymin], [xmax, ymax]]` in WGS 84, or empty.
    public var extent: [[Double]]
    public var spatialReference: String
    /// The data file's name, for items whose data is a file.
    public var name: String?
    /// Bytes of the data.
    public var size: Int64
    /// The thumbnail's path below `info/` (`thumbnail/<file>`), or nil.
    public var thumbnail: String?

    public init(
        id: String, owner: String, title: String, type: String, access: ItemAccess = .private, created: Int64,
        ownerFolder: String? = nil, typeKeywords: [String] = [], tags: [String] = [], snippet: String = "", description: String = "",
        url: String? = nil, properties: JSONValue = .null, extent: [[Double]] = [], spatialReference: String = "", name: String? = nil,
        size: Int64 = 0, thumbnail: String? = nil
    ) {
        self.id = id
        self.owner = owner
        self.ownerFolder = ownerFolder
        self.title = title
        self.type = type
        self.typeKeywords = typeKeywords
        self.tags = tags
        self.snippet = snippet
        self.itemDescription = description
        self.url = url
        self.access = access
        self.created = created
        self.modified = created
        self.properties = properties
        self.extent = extent
        self.spatialReference = spatialReference
        self.name = name
        self.size = size
        self.thumbnail = thumbnail
    }

    /// The item's JSON as `content/items/<id>` answers it.
    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "owner": .string(owner), "created": .int(created), "modified": .int(modified),
            "guid": .null, "name": name.map(JSONValue.string) ?? .null, "title": .string(title), "type": .string(type),
            "typeKeywords": .array(typeKeywords.map(JSONValue.string)), "description": .string(itemDescription),
            "tags": .array(tags.map(JSONValue.string)), "snippet": .string(snippet), "thumbnail": thumbnail.map(JSONValue.string) ?? .null,
            "extent": .array(extent.map { .array($0.map(JSONValue.double)) }), "spatialReference": .string(spatialReference),
            "accessInformation": .null, "licenseInfo": .null, "culture": "en-us", "properties": properties,
            "url": url.map(JSONValue.string) ?? .null, "access": .string(access.rawValue), "size": .int(size),
        ]
        object["ownerFolder"] = ownerFolder.map(JSONValue.string) ?? .null
        object["numViews"] = 0
        return .object(object)
    }

    /// Parses an item's JSON (what `json` writes, or a real portal's answer).
    public init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let owner = json["owner"]?.stringValue, let type = json["type"]?.stringValue else { return nil }
        self.init(
            id: id, owner: owner, title: json["title"]?.stringValue ?? "", type: type,
            access: json["access"]?.stringValue.flatMap(ItemAccess.init(rawValue:)) ?? .private, created: json["created"]?.int64Value ?? 0,
            ownerFolder: json["ownerFolder"]?.stringValue, typeKeywords: json["typeKeywords"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            tags: json["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [], snippet: json["snippet"]?.stringValue ?? "",
            description: json["description"]?.stringValue ?? "", url: json["url"]?.stringValue, properties: json["properties"] ?? .null,
            extent: json["extent"]?.arrayValue?.compactMap { $0.arrayValue?.compactMap(\.doubleValue) } ?? [],
            spatialReference: json["spatialReference"]?.stringValue ?? "", name: json["name"]?.stringValue,
            size: json["size"]?.int64Value ?? 0, thumbnail: json["thumbnail"]?.stringValue)
        modified = json["modified"]?.int64Value ?? created
    }
}
