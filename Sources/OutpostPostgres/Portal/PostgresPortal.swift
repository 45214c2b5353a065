import Foundation
import OutpostStorage
import OutpostSync
import OutpostWire

/// The portal on PostgreSQL (`PortalStore`): items, relationships, resources and folders in
/// tables, their files in the data folder's `items/` (`ItemFolder`), as on SpatiaLite. Files
/// are put in place before the row that names them commits, and removed after the row that
/// named them is gone: a crash leaves an unnamed file (swept), never a row without its file.
public struct PostgresPortal: PortalStore {
    let pool: PostgresPool
    let files: ItemFolder
    let clock: any WallClock

    static let columns =
        "id, owner, folder, title, type, type_keywords, tags, snippet, description, url, access, created, modified, properties, extent, spatial_reference, name, size, thumbnail"

    public func addItem(_ item: PortalItem, data: ItemData?) throws {
        guard PortalNames.isValidId(item.id) else { throw PortalFailure.invalid("'\(item.id)' is not an item id.") }
        guard try self.item(id: item.id) == nil else { throw PortalFailure.invalid("Item \(item.id) exists already.") }
        let stored = try files.store(data, item: item.id)
        do {
            try pool.query(
                """
                INSERT INTO outpost_items(\(unescaped: Self.columns), data_text, data_file)
                VALUES (\(item.id), \(item.owner), \(item.ownerFolder), \(item.title), \(item.type), \(item.storedTypeKeywords),
                    \(item.storedTags), \(item.snippet), \(item.itemDescription), \(item.url), \(item.access.rawValue), \(item.created),
                    \(item.modified), \(item.properties.jsonText), \(item.storedExtent), \(item.spatialReference), \(item.name),
                    \(item.size), \(item.thumbnail), \(stored.text), \(stored.file))
                """)
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw PortalFailure.invalid("Item \(item.id) exists already.")
        }
    }

    public func item(id: String) throws -> PortalItem? {
        try pool.query("SELECT \(unescaped: Self.columns) FROM outpost_items WHERE id = \(id)").first.map(Self.item)
    }

    public func items() throws -> [PortalItem] {
        try pool.query("SELECT \(unescaped: Self.columns) FROM outpost_items ORDER BY created, id COLLATE \"C\"").rows.map(Self.item)
    }

    public func updateItem(_ item: PortalItem, data: ItemData?) throws {
        let stored = try data.map { try files.store($0, item: item.id) }
        let updated = try pool.query(
            """
            UPDATE outpost_items SET owner = \(item.owner), folder = \(item.ownerFolder), title = \(item.title), type = \(item.type),
                type_keywords = \(item.storedTypeKeywords), tags = \(item.storedTags), snippet = \(item.snippet),
                description = \(item.itemDescription), url = \(item.url), access = \(item.access.rawValue), created = \(item.created),
                modified = \(item.modified), properties = \(item.properties.jsonText), extent = \(item.storedExtent),
                spatial_reference = \(item.spatialReference), name = \(item.name), size = \(item.size), thumbnail = \(item.thumbnail),
                data_text = CASE WHEN \(stored != nil) THEN \(stored?.text) ELSE data_text END,
                data_file = CASE WHEN \(stored != nil) THEN \(stored?.file) ELSE data_file END
            WHERE id = \(item.id)
            """)
        guard updated.affectedRows == 1 else { throw PortalFailure.itemNotFound(item.id) }
    }

    public func deleteItem(id: String) throws {
        try pool.transaction { connection in
            guard try connection.query("DELETE FROM outpost_items WHERE id = \(id)").affectedRows == 1 else { throw PortalFailure.itemNotFound(id) }
            try connection.query("DELETE FROM outpost_item_relationships WHERE origin = \(id) OR destination = \(id)")
            try connection.query("DELETE FROM outpost_item_resources WHERE item = \(id)")
        }
        try? FileManager.default.removeItem(atPath: files.folder(of: id))
    }

    public func data(of id: String) throws -> ItemData? {
        guard let row = try pool.query("SELECT data_text, data_file FROM outpost_items WHERE id = \(id)").first else {
            throw PortalFailure.itemNotFound(id)
        }
        return files.data(text: row.string(0), file: row.string(1), item: id)
    }

    public func addRelationship(_ relationship: ItemRelationship) throws {
        try pool.query(
            """
            INSERT INTO outpost_item_relationships(origin, destination, type, created)
            VALUES (\(relationship.origin), \(relationship.destination), \(relationship.type), \(clock.milliseconds()))
            ON CONFLICT DO NOTHING
            """)
    }

    public func deleteRelationship(_ relationship: ItemRelationship) throws {
        try pool.query(
            """
            DELETE FROM outpost_item_relationships
            WHERE origin = \(relationship.origin) AND destination = \(relationship.destination) AND type = \(relationship.type)
            """)
    }

    public func relationships(of id: String) throws -> [ItemRelationship] {
        try pool.query(
            "SELECT origin, destination, type FROM outpost_item_relationships WHERE origin = \(id) OR destination = \(id) ORDER BY created"
        ).rows.map {
            ItemRelationship(origin: try $0.required(0, $0.string), destination: try $0.required(1, $0.string), type: try $0.required(2, $0.string))
        }
    }

    public func addResource(item id: String, name: String, data: ItemResourceSource) throws -> ItemResource {
        guard PortalNames.isValidResourceName(name) else { throw PortalFailure.invalid("'\(name)' is not a valid resource name.") }
        guard try item(id: id) != nil else { throw PortalFailure.itemNotFound(id) }
        let path = files.resourcePath(id, name)
        let size = try files.place(data, at: path)
        let resource = ItemResource(name: name, size: size, created: clock.milliseconds(), path: path)
        try pool.query(
            """
            INSERT INTO outpost_item_resources(item, name, size, created) VALUES (\(id), \(name), \(size), \(resource.created))
            ON CONFLICT (item, name) DO UPDATE SET size = excluded.size, created = excluded.created
            """)
        return resource
    }

    public func removeResource(item id: String, name: String) throws {
        guard try pool.query("DELETE FROM outpost_item_resources WHERE item = \(id) AND name = \(name)").affectedRows == 1 else {
            throw PortalFailure.resourceNotFound(name)
        }
        try? FileManager.default.removeItem(atPath: files.resourcePath(id, name))
    }

    public func resources(of id: String) throws -> [ItemResource] {
        try pool.query("SELECT name, size, created FROM outpost_item_resources WHERE item = \(id) ORDER BY name COLLATE \"C\"").rows.map {
            let name = try $0.required(0, $0.string)
            return ItemResource(
                name: name, size: try $0.required(1, $0.int64), created: try $0.required(2, $0.int64), path: files.resourcePath(id, name))
        }
    }

    public func setThumbnail(item id: String, name: String, data: ItemResourceSource) throws -> PortalItem {
        let (thumbnail, path) = try files.thumbnailTarget(item: id, name: name)
        guard var item = try item(id: id) else { throw PortalFailure.itemNotFound(id) }
        let previous = files.existingThumbnail(item.thumbnail, item: id)
        _ = try files.place(data, at: path)
        item.thumbnail = thumbnail
        guard try pool.query("UPDATE outpost_items SET thumbnail = \(thumbnail) WHERE id = \(id)").affectedRows == 1 else {
            throw PortalFailure.itemNotFound(id)
        }
        if let previous, previous != path { try? FileManager.default.removeItem(atPath: previous) }
        return item
    }

    public func thumbnailPath(item id: String) throws -> String? { files.existingThumbnail(try item(id: id)?.thumbnail, item: id) }

    public func createFolder(owner: String, title: String) throws -> PortalFolder {
        let folder = PortalFolder(id: PortalNames.newId(), owner: owner, title: title, created: clock.milliseconds())
        do {
            try pool.query(
                "INSERT INTO outpost_folders(id, owner, title, created) VALUES (\(folder.id), \(owner), \(title), \(folder.created))")
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw PortalFailure.folderExists(title)
        }
        return folder
    }

    public func folders(owner: String) throws -> [PortalFolder] {
        try pool.query("SELECT id, owner, title, created FROM outpost_folders WHERE lower(owner) = lower(\(owner)) ORDER BY title COLLATE \"C\"").rows
            .map {
                PortalFolder(
                    id: try $0.required(0, $0.string), owner: try $0.required(1, $0.string), title: try $0.required(2, $0.string),
                    created: try $0.required(3, $0.int64))
            }
    }

    private static func item(_ row: PostgresRow) throws -> PortalItem {
        var item = PortalItem(
            id: try row.required(0, row.string), owner: try row.required(1, row.string), title: try row.required(3, row.string),
            type: try row.required(4, row.string), access: row.string(10).flatMap(ItemAccess.init(rawValue:)) ?? .private,
            created: try row.required(11, row.int64), ownerFolder: row.string(2), typeKeywords: PortalItem.storedStrings(row.string(5)),
            tags: PortalItem.storedStrings(row.string(6)), snippet: row.string(7) ?? "", description: row.string(8) ?? "", url: row.string(9),
            properties: row.string(13).flatMap { try? JSONParser.parse($0) } ?? .null, extent: PortalItem.storedExtent(row.string(14)),
            spatialReference: row.string(15) ?? "", name: row.string(16), size: try row.int64(17) ?? 0, thumbnail: row.string(18))
        item.modified = try row.required(12, row.int64)
        return item
    }
}
