import Foundation
import GRDB
import OutpostStorage
import OutpostWire

/// The portal's items over the shared database; data and resource files under
/// `items/<id>/` in the data folder, written under a temporary name and renamed.
public struct SpatiaLitePortal: PortalStore, StoreRepository {
    public let database: StoreDatabase

    var itemsDirectory: String { (directory as NSString).appendingPathComponent("items") }
    var files: ItemFolder { ItemFolder(directory: itemsDirectory) }

    public func addItem(_ item: PortalItem, data: ItemData?) throws {
        guard PortalNames.isValidId(item.id) else { throw PortalFailure.invalid("'\(item.id)' is not an item id.") }
        let stored = try files.store(data, item: item.id)
        try pool.write { db in
            guard try !Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM outpost_items WHERE id = ?)", arguments: [item.id])! else {
                throw PortalFailure.invalid("Item \(item.id) exists already.")
            }
            try db.execute(
                sql: """
                    INSERT INTO outpost_items(id, owner, folder, title, type, type_keywords, tags, snippet, description, url, access,
                        created, modified, properties, extent, spatial_reference, name, size, thumbnail, data_text, data_file)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: Self.arguments(item) + [stored.text, stored.file])
        }
    }

    public func item(id: String) throws -> PortalItem? {
        try pool.read { db in try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM outpost_items WHERE id = ?", arguments: [id]).map(Self.item) }
    }

    public func items() throws -> [PortalItem] {
        try pool.read { db in try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM outpost_items ORDER BY created, id").map(Self.item) }
    }

    public func updateItem(_ item: PortalItem, data: ItemData?) throws {
        let stored = try data.map { try files.store($0, item: item.id) }
        try pool.write { db in
            try db.execute(
                sql: """
                    UPDATE outpost_items SET owner = ?, folder = ?, title = ?, type = ?, type_keywords = ?, tags = ?, snippet = ?,
                        description = ?, url = ?, access = ?, created = ?, modified = ?, properties = ?, extent = ?, spatial_reference = ?,
                        name = ?, size = ?, thumbnail = ? WHERE id = ?
                    """, arguments: Self.description(item) + [item.id])
            guard db.changesCount == 1 else { throw PortalFailure.itemNotFound(item.id) }
            if let stored {
                try db.execute(
                    sql: "UPDATE outpost_items SET data_text = ?, data_file = ? WHERE id = ?", arguments: [stored.text, stored.file, item.id])
            }
        }
    }

    public func deleteItem(id: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_items WHERE id = ?", arguments: [id])
            guard db.changesCount == 1 else { throw PortalFailure.itemNotFound(id) }
            try db.execute(sql: "DELETE FROM outpost_item_relationships WHERE origin = ? OR destination = ?", arguments: [id, id])
            try db.execute(sql: "DELETE FROM outpost_item_resources WHERE item = ?", arguments: [id])
        }
        // Files go after the commit: a crash between leaves files no row names, never a row without its file.
        try? FileManager.default.removeItem(atPath: files.folder(of: id))
    }

    public func data(of id: String) throws -> ItemData? {
        try pool.read { db -> ItemData? in
            guard let row = try Row.fetchOne(db, sql: "SELECT data_text, data_file FROM outpost_items WHERE id = ?", arguments: [id]) else {
                throw PortalFailure.itemNotFound(id)
            }
            return files.data(text: row["data_text"], file: row["data_file"], item: id)
        }
    }

    public func addRelationship(_ relationship: ItemRelationship) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO outpost_item_relationships(origin, destination, type, created) VALUES (?, ?, ?, ?)",
                arguments: [relationship.origin, relationship.destination, relationship.type, clock.milliseconds()])
        }
    }

    public func deleteRelationship(_ relationship: ItemRelationship) throws {
        try pool.write { db in
            try db.execute(
                sql: "DELETE FROM outpost_item_relationships WHERE origin = ? AND destination = ? AND type = ?",
                arguments: [relationship.origin, relationship.destination, relationship.type])
        }
    }

    public func relationships(of id: String) throws -> [ItemRelationship] {
        try pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT origin, destination, type FROM outpost_item_relationships WHERE origin = ? OR destination = ? ORDER BY created",
                arguments: [id, id]
            ).map { ItemRelationship(origin: $0["origin"], destination: $0["destination"], type: $0["type"]) }
        }
    }

    public func addResource(item id: String, name: String, data: ItemResourceSource) throws -> ItemResource {
        guard PortalNames.isValidResourceName(name) else { throw PortalFailure.invalid("'\(name)' is not a valid resource name.") }
        guard try item(id: id) != nil else { throw PortalFailure.itemNotFound(id) }
        let path = files.resourcePath(id, name)
        let size = try files.place(data, at: path)
        let resource = ItemResource(name: name, size: size, created: clock.milliseconds(), path: path)
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO outpost_item_resources(item, name, size, created) VALUES (?, ?, ?, ?)",
                arguments: [id, name, size, resource.created])
        }
        return resource
    }

    public func removeResource(item id: String, name: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_item_resources WHERE item = ? AND name = ?", arguments: [id, name])
            guard db.changesCount == 1 else { throw PortalFailure.resourceNotFound(name) }
        }
        try? FileManager.default.removeItem(atPath: files.resourcePath(id, name))
    }

    public func resources(of id: String) throws -> [ItemResource] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT name, size, created FROM outpost_item_resources WHERE item = ? ORDER BY name", arguments: [id]).map {
                ItemResource(name: $0["name"], size: $0["size"], created: $0["created"], path: files.resourcePath(id, $0["name"]))
            }
        }
    }

    public func createFolder(owner: String, title: String) throws -> PortalFolder {
        let folder = PortalFolder(id: PortalNames.newId(), owner: owner, title: title, created: clock.milliseconds())
        try pool.write { db in
            let exists = try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM outpost_folders WHERE owner = ? AND title = ? COLLATE NOCASE)", arguments: [owner, title])!
            if exists { throw PortalFailure.folderExists(title) }
            try db.execute(
                sql: "INSERT INTO outpost_folders(id, owner, title, created) VALUES (?, ?, ?, ?)",
                arguments: [folder.id, owner, title, folder.created])
        }
        return folder
    }

    public func folders(owner: String) throws -> [PortalFolder] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outpost_folders WHERE owner = ? ORDER BY title", arguments: [owner]).map {
                PortalFolder(id: $0["id"], owner: $0["owner"], title: $0["title"], created: $0["created"])
            }
        }
    }

    // MARK: - Rows and files

    private static func arguments(_ item: PortalItem) -> StatementArguments { [item.id] + description(item) }

    /// Every column but the id and the data.
    private static func description(_ item: PortalItem) -> StatementArguments {
        [
            item.owner, item.ownerFolder, item.title, item.type, item.storedTypeKeywords, item.storedTags, item.snippet, item.itemDescription,
            item.url, item.access.rawValue, item.created, item.modified, item.properties.jsonText, item.storedExtent,
            item.spatialReference, item.name, item.size, item.thumbnail,
        ]
    }

    /// An item's description: never its data (`data_text` holds a web map's whole JSON, read
    /// only by `data(of:)`), so a search over every item holds none of their data.
    static let columns = """
        id, owner, folder, title, type, type_keywords, tags, snippet, description, url, access, created, modified, properties, extent,
        spatial_reference, name, size, thumbnail
        """

    private static func item(_ row: Row) -> PortalItem {
        func strings(_ column: String) -> [String] { PortalItem.storedStrings(row[column]) }
        var item = PortalItem(
            id: row["id"], owner: row["owner"], title: row["title"], type: row["type"],
            access: ItemAccess(rawValue: row["access"]) ?? .private, created: row["created"], ownerFolder: row["folder"],
            typeKeywords: strings("type_keywords"), tags: strings("tags"), snippet: row["snippet"], description: row["description"], url: row["url"],
            properties: (try? JSONParser.parse(row["properties"] as String)) ?? .null,
            extent: PortalItem.storedExtent(row["extent"]),
            spatialReference: row["spatial_reference"], name: row["name"], size: row["size"], thumbnail: row["thumbnail"])
        item.modified = row["modified"]
        return item
    }
}
