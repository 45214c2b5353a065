import OutpostWire

/// What an item holds besides its description: a text (web map JSON, a map area's
/// definition) or a file (a package).
public enum ItemData: Sendable, Equatable {
    case text(String)
    /// A file the backend keeps; `path` is where it can be read.
    case file(name: String, path: String)
}

/// A file kept beside an item (`content/items/<id>/resources`).
public struct ItemResource: Sendable, Equatable {
    /// Its name below the item, prefix included (`updates/d_12.gpkg`).
    public var name: String
    public var size: Int64
    public var created: Int64
    /// Where it can be read.
    public var path: String

    public init(name: String, size: Int64, created: Int64, path: String) {
        self.name = name
        self.size = size
        self.created = created
        self.path = path
    }
}

/// A typed link between two items (`Map2Area`, `Area2Package`, …).
public struct ItemRelationship: Sendable, Equatable, Hashable {
    public var origin: String
    public var destination: String
    public var type: String

    public init(origin: String, destination: String, type: String) {
        self.origin = origin
        self.destination = destination
        self.type = type
    }
}

/// A folder of a user's content.
public struct PortalFolder: Sendable, Equatable {
    public var id: String
    public var owner: String
    public var title: String
    public var created: Int64

    public init(id: String, owner: String, title: String, created: Int64) {
        self.id = id
        self.owner = owner
        self.title = title
        self.created = created
    }
}

/// Why a portal change was refused.
public enum PortalFailure: ArcGISErrorConvertible, Equatable {
    case itemNotFound(String)
    case folderNotFound(String)
    case folderExists(String)
    case resourceNotFound(String)
    case invalid(String)

    public var arcGISError: ArcGISError {
        switch self {
        case .itemNotFound(let id): ArcGISError(kind: .invalidParameter, message: "Item does not exist or is inaccessible.", details: ["Item \(id)."])
        case .folderNotFound(let id): ArcGISError(kind: .invalidParameter, message: "Folder not found.", details: ["Folder \(id)."])
        case .folderExists(let title):
            ArcGISError(kind: .conflict, message: "Unable to create folder.", details: ["Folder '\(title)' exists already."])
        case .resourceNotFound(let name): ArcGISError(kind: .notFound, message: "Resource does not exist or is inaccessible.", details: [name])
        case .invalid(let reason): ArcGISError(kind: .invalidParameter, message: "Unable to complete operation.", details: [reason])
        }
    }
}

/// The portal's items, their data, resources and relationships, and users' folders.
///
/// Contract: item ids are unique; deleting an item removes its data, resources and every
/// relationship it takes part in, in one step; a relationship is stored once however often
/// it is added; data and resource files are written completely or not at all (a file handed
/// in is moved, never half copied). Who may see or change an item is decided above storage.
public protocol PortalStore: Sendable {
    func addItem(_ item: PortalItem, data: ItemData?) throws
    func item(id: String) throws -> PortalItem?
    /// Every item (the caller filters by visibility and query).
    func items() throws -> [PortalItem]
    /// Replaces the item's description; replaces its data when `data` is given.
    func updateItem(_ item: PortalItem, data: ItemData?) throws
    func deleteItem(id: String) throws
    func data(of id: String) throws -> ItemData?

    func addRelationship(_ relationship: ItemRelationship) throws
    func deleteRelationship(_ relationship: ItemRelationship) throws
    func relationships(of id: String) throws -> [ItemRelationship]

    /// Adds or replaces a resource from a file (moved) or bytes.
    func addResource(item id: String, name: String, data: ItemResourceSource) throws -> ItemResource
    func removeResource(item id: String, name: String) throws
    func resources(of id: String) throws -> [ItemResource]

    /// Puts the item's thumbnail in place (replacing any before it) and records it in the
    /// item as `thumbnail/<name>`; returns the item so changed.
    func setThumbnail(item id: String, name: String, data: ItemResourceSource) throws -> PortalItem
    /// The file of the item's thumbnail, when it has one.
    func thumbnailPath(item id: String) throws -> String?

    func createFolder(owner: String, title: String) throws -> PortalFolder
    func folders(owner: String) throws -> [PortalFolder]
}

/// Where a new resource's bytes come from.
public enum ItemResourceSource: Sendable, Equatable {
    case bytes([UInt8])
    /// A file the store takes over (moves).
    case file(path: String)
}
