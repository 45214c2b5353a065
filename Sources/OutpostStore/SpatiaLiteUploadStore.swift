import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// The `uploads` resource in the embedded database and the data folder (`UploadStore`).
public struct SpatiaLiteUploadStore: UploadStore, StoreRepository {
    public let database: StoreDatabase

    private func uploadDirectory(_ itemID: String) -> String { (database.uploadsDirectory as NSString).appendingPathComponent(itemID) }
    /// The committed bytes of an item.
    public func uploadDataPath(_ itemID: String) -> String { (uploadDirectory(itemID) as NSString).appendingPathComponent("data") }

    private func newItemID() -> String {
        "i" + GlobalID.make().dropFirst().dropLast().lowercased()
    }

    /// Stores a whole file as a committed item (`uploads/upload`).
    public func createUpload(service: String, name: String, description: String, sourcePath: String, size: Int) throws -> UploadItem {
        _ = try self.service(named: service)
        let item = UploadItem(
            itemID: newItemID(), itemName: SpatiaLiteEdits.sanitizedAttachmentName(name), description: description,
            date: clock.milliseconds(), committed: true, size: Int64(size))
        try FileManager.default.createDirectory(atPath: uploadDirectory(item.itemID), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: sourcePath, toPath: uploadDataPath(item.itemID))
        try insert(item, service: service)
        return item
    }

    /// Starts a multi-part item (`uploads/register`).
    public func registerUpload(service: String, name: String, description: String) throws -> UploadItem {
        _ = try self.service(named: service)
        let item = UploadItem(
            itemID: newItemID(), itemName: SpatiaLiteEdits.sanitizedAttachmentName(name), description: description,
            date: clock.milliseconds(), committed: false, size: 0)
        try FileManager.default.createDirectory(
            atPath: (uploadDirectory(item.itemID) as NSString).appendingPathComponent("parts"),
            withIntermediateDirectories: true)
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
        else {
            throw ArcGISError(kind: .notFound, message: "Upload item not found.", details: ["No upload item '\(itemID)'."])
        }
        return item
    }

    /// Adds one part of a registered item (`uploads/<id>/uploadPart`); a part sent again replaces the earlier one.
    public func addUploadPart(service: String, itemID: String, partId: Int, sourcePath: String) throws -> UploadItem {
        let item = try upload(service: service, itemID: itemID)
        guard !item.committed else { throw ArcGISError.invalidParameter("partId", "item \(itemID) is already committed") }
        guard partId >= 1 && partId <= 10_000 else { throw ArcGISError.invalidParameter("partId", "must be 1 to 10000") }
        let target = (uploadDirectory(itemID) as NSString).appendingPathComponent("parts/\(partId)")
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.moveItem(atPath: sourcePath, toPath: target)
        return item
    }

    public func uploadParts(service: String, itemID: String) throws -> [String] {
        _ = try upload(service: service, itemID: itemID)
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: (uploadDirectory(itemID) as NSString).appendingPathComponent("parts"))) ?? []
        return names.compactMap(Int.init).sorted().map(String.init)
    }

    /// Joins the parts (in the given order, or numeric order) into the item's data.
    public func commitUpload(service: String, itemID: String, parts: [String]?) throws -> UploadItem {
        var item = try upload(service: service, itemID: itemID)
        guard !item.committed else { return item }
        let order = try parts ?? uploadParts(service: service, itemID: itemID)
        guard !order.isEmpty else { throw ArcGISError.invalidParameter("parts", "the item has no parts") }
        let data = uploadDataPath(itemID)
        _ = FileManager.default.createFile(atPath: data, contents: nil)
        guard let output = FileHandle(forWritingAtPath: data) else { throw ArcGISError.internalError("cannot write the upload") }
        var size: Int64 = 0
        defer { try? output.close() }
        for part in order {
            guard let number = Int(part) else { throw ArcGISError.invalidParameter("parts", "'\(part)' is not a part id") }
            let path = (uploadDirectory(itemID) as NSString).appendingPathComponent("parts/\(number)")
            guard let input = FileHandle(forReadingAtPath: path) else {
                throw ArcGISError.invalidParameter("parts", "part \(number) was not uploaded")
            }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
                size += Int64(chunk.count)
            }
            try input.close()
        }
        try? FileManager.default.removeItem(atPath: (uploadDirectory(itemID) as NSString).appendingPathComponent("parts"))
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
        try? FileManager.default.removeItem(atPath: uploadDirectory(itemID))
    }

    /// A private copy of a committed item's bytes, for an attachment to take over.
    public func copyOfUpload(service: String, itemID: String) throws -> (path: String, size: Int, name: String) {
        let item = try upload(service: service, itemID: itemID)
        guard item.committed else { throw ArcGISError.invalidParameter("uploadId", "item \(itemID) is not committed") }
        try FileManager.default.createDirectory(atPath: database.temporaryDirectory, withIntermediateDirectories: true)
        let copy = (database.temporaryDirectory as NSString).appendingPathComponent("upload-copy-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: uploadDataPath(itemID), toPath: copy)
        return (copy, Int(item.size), item.itemName)
    }
}
