import OutpostStorage
import OutpostSync
import OutpostWire

/// The `uploads` resource on PostgreSQL: rows in `outpost_uploads`, bytes in the process's
/// data folder (`UploadFolder`), as on SpatiaLite.
public struct PostgresUploadStore: FolderUploadStore {
    let pool: PostgresPool
    let held: PostgresCatalog
    public let folder: UploadFolder
    let clock: any WallClock

    /// The service's name as the catalog spells it, or the catalog's not-found error.
    private func serviceName(_ service: String) throws -> String { try held.load().existingService(named: service).definition.name }

    public func createUpload(service: String, name: String, description: String, sourcePath: String, size: Int, owner: String) throws -> UploadItem {
        let item = UploadItem(
            itemID: UploadFolder.newItemID(), itemName: UploadFolder.itemName(name), description: description,
            date: clock.milliseconds(), committed: true, size: Int64(size), owner: owner)
        let service = try serviceName(service)
        try folder.adopt(sourcePath, as: item.itemID)
        try insert(item, service: service)
        return item
    }

    public func registerUpload(service: String, name: String, description: String, owner: String) throws -> UploadItem {
        let item = UploadItem(
            itemID: UploadFolder.newItemID(), itemName: UploadFolder.itemName(name), description: description,
            date: clock.milliseconds(), committed: false, size: 0, owner: owner)
        let service = try serviceName(service)
        try insert(item, service: service)
        return item
    }

    private func insert(_ item: UploadItem, service: String) throws {
        try pool.query(
            """
            INSERT INTO outpost_uploads(item_id, service, item_name, description, created_at, committed, size, owner)
            VALUES (\(item.itemID), \(service), \(item.itemName), \(item.description), \(item.date), \(item.committed), \(item.size), \(item.owner))
            """)
    }

    public func upload(service: String, itemID: String) throws -> UploadItem {
        guard isValidUploadID(itemID),
            let row = try pool.query(
                """
                SELECT item_id, item_name, description, created_at, committed, size, owner FROM outpost_uploads
                WHERE item_id = \(itemID) AND lower(service) = lower(\(service))
                """
            ).first
        else { throw UploadItem.notFound(itemID) }
        return UploadItem(
            itemID: try row.required(0, row.string), itemName: try row.required(1, row.string), description: try row.required(2, row.string),
            date: try row.required(3, row.int64), committed: try row.required(4, row.bool), size: try row.required(5, row.int64),
            owner: try row.required(6, row.string))
    }

    public func recordCommitted(_ itemID: String, size: Int64) throws {
        try pool.query("UPDATE outpost_uploads SET committed = true, size = \(size) WHERE item_id = \(itemID)")
    }

    public func forgetUpload(_ itemID: String) throws {
        try pool.query("DELETE FROM outpost_uploads WHERE item_id = \(itemID)")
    }
}
