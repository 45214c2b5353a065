import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// The `uploads` resource: rows in the embedded database, bytes in the data folder's
/// `uploads/` (`UploadFolder`).
public struct SpatiaLiteUploadStore: FolderUploadStore, StoreRepository {
    public let database: StoreDatabase

    public var folder: UploadFolder { UploadFolder(blobs: .folder(database.directory), temporaryDirectory: database.temporaryDirectory) }

    /// Stores a whole file as a committed item (`uploads/upload`).
    public func createUpload(service: String, name: String, description: String, sourcePath: String, size: Int, owner: String) throws -> UploadItem {
        _ = try self.service(named: service)
        let item = UploadItem(
            itemID: UploadFolder.newItemID(), itemName: UploadFolder.itemName(name), description: description,
            date: clock.milliseconds(), committed: true, size: Int64(size), owner: owner)
        try folder.adopt(sourcePath, as: item.itemID)
        try insert(item, service: service)
        return item
    }

    /// Starts a multi-part item (`uploads/register`).
    public func registerUpload(service: String, name: String, description: String, owner: String) throws -> UploadItem {
        _ = try self.service(named: service)
        let item = UploadItem(
            itemID: UploadFolder.newItemID(), itemName: UploadFolder.itemName(name), description: description,
            date: clock.milliseconds(), committed: false, size: 0, owner: owner)
        try insert(item, service: service)
        return item
    }

    private func insert(_ item: UploadItem, service: String) throws {
        try pool.write { db in
            try db.execute(
                sql:
                    "INSERT INTO outpost_uploads(item_id, service, item_name, description, created_at, committed, size, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [item.itemID, service, item.itemName, item.description, item.date, item.committed, item.size, item.owner])
        }
    }

    public func upload(service: String, itemID: String) throws -> UploadItem {
        guard isValidUploadID(itemID),
            let item = try pool.read({ db in
                try Row.fetchOne(db, sql: "SELECT * FROM outpost_uploads WHERE item_id = ? AND service = ?", arguments: [itemID, service]).map {
                    UploadItem(
                        itemID: $0["item_id"], itemName: $0["item_name"], description: $0["description"], date: $0["created_at"],
                        committed: $0["committed"], size: $0["size"], owner: $0["owner"])
                }
            })
        else { throw UploadItem.notFound(itemID) }
        return item
    }

    public func recordCommitted(_ itemID: String, size: Int64) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE outpost_uploads SET committed = 1, size = ? WHERE item_id = ?", arguments: [size, itemID])
        }
    }

    public func forgetUpload(_ itemID: String) throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM outpost_uploads WHERE item_id = ?", arguments: [itemID]) }
    }
}
