import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// The `uploads` resource: rows in the embedded database, bytes in the data folder's
/// `uploads/` (`UploadFolder`).
public struct SpatiaLiteUploadStore: UploadStore, StoreRepository {
    public let database: StoreDatabase

    var folder: UploadFolder { UploadFolder(directory: database.uploadsDirectory, temporaryDirectory: database.temporaryDirectory) }

    public func uploadDataPath(_ itemID: String) -> String { folder.dataPath(itemID) }

    /// Stores a whole file as a committed item (`uploads/upload`).
    public func createUpload(service: String, name: String, description: String, sourcePath: String, size: Int) throws -> UploadItem {
        _ = try self.service(named: service)
        let item = UploadItem(
            itemID: UploadFolder.newItemID(), itemName: UploadFolder.itemName(name), description: description,
            date: clock.milliseconds(), committed: true, size: Int64(size))
        try folder.adopt(sourcePath, as: item.itemID)
        try insert(item, service: service)
        return item
    }

    /// Starts a multi-part item (`uploads/register`).
    public func registerUpload(service: String, name: String, description: String) throws -> UploadItem {
        _ = try self.service(named: service)
        let item = UploadItem(
            itemID: UploadFolder.newItemID(), itemName: UploadFolder.itemName(name), description: description,
            date: clock.milliseconds(), committed: false, size: 0)
        try folder.prepareParts(of: item.itemID)
        try insert(item, service: service)
        return item
    }

    private func insert(_ item: UploadItem, service: String) throws {
        try pool.write { db in
            try db.execute(
                sql:
                    "INSERT INTO outpost_uploads(item_id, service, item_name, description, created_at, committed, size) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [item.itemID, service, item.itemName, item.description, item.date, item.committed, item.size])
        }
    }

    public func upload(service: String, itemID: String) throws -> UploadItem {
        guard isValidUploadID(itemID),
            let item = try pool.read({ db in
                try Row.fetchOne(db, sql: "SELECT * FROM outpost_uploads WHERE item_id = ? AND service = ?", arguments: [itemID, service]).map {
                    UploadItem(
                        itemID: $0["item_id"], itemName: $0["item_name"], description: $0["description"], date: $0["created_at"],
                        committed: $0["committed"], size: $0["size"])
                }
            })
        else { throw UploadItem.notFound(itemID) }
        return item
    }

    /// Adds one part of a registered item (`uploads/<id>/uploadPart`).
    public func addUploadPart(service: String, itemID: String, partId: Int, sourcePath: String) throws -> UploadItem {
        let item = try upload(service: service, itemID: itemID)
        try item.checkPart(partId)
        try folder.adoptPart(sourcePath, number: partId, of: itemID)
        return item
    }

    public func uploadParts(service: String, itemID: String) throws -> [String] {
        _ = try upload(service: service, itemID: itemID)
        return folder.partNumbers(of: itemID)
    }

    /// Joins the parts (in the given order, or numeric order) into the item's data.
    public func commitUpload(service: String, itemID: String, parts: [String]?) throws -> UploadItem {
        var item = try upload(service: service, itemID: itemID)
        guard !item.committed else { return item }
        let order = parts ?? folder.partNumbers(of: itemID)
        guard !order.isEmpty else { throw ArcGISError.invalidParameter("parts", "the item has no parts") }
        let size = try folder.join(order, of: itemID)
        try pool.write { db in
            try db.execute(sql: "UPDATE outpost_uploads SET committed = 1, size = ? WHERE item_id = ?", arguments: [size, itemID])
        }
        item.committed = true
        item.size = size
        return item
    }

    public func deleteUpload(service: String, itemID: String) throws {
        _ = try upload(service: service, itemID: itemID)
        try pool.write { db in try db.execute(sql: "DELETE FROM outpost_uploads WHERE item_id = ?", arguments: [itemID]) }
        folder.remove(itemID)
    }

    /// A private copy of a committed item's bytes, for an attachment to take over.
    public func copyOfUpload(service: String, itemID: String) throws -> (path: String, size: Int, name: String) {
        let item = try upload(service: service, itemID: itemID)
        guard item.committed else { throw ArcGISError.invalidParameter("uploadId", "item \(itemID) is not committed") }
        return (try folder.copy(of: itemID), Int(item.size), item.itemName)
    }
}
