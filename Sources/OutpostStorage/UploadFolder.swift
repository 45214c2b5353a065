import Foundation
import OutpostWire

/// The bytes of `uploads` items in a local folder, whichever database keeps their rows:
/// `<folder>/<item>/data` once committed, `<folder>/<item>/parts/<n>` before. Every file
/// arrives by a rename from the request spool (the same file system), never by a copy.
public struct UploadFolder: Sendable {
    public let directory: String
    /// Where private copies for attachments are made (the data folder's `tmp/`).
    public let temporaryDirectory: String

    public init(directory: String, temporaryDirectory: String) {
        self.directory = directory
        self.temporaryDirectory = temporaryDirectory
    }

    /// A fresh item id: `i` + 36 hex digits and dashes (`isValidUploadID`).
    public static func newItemID() -> String { "i" + GlobalID.make().dropFirst().dropLast().lowercased() }

    /// An item's name as stored: a file name, as attachment names are.
    public static func itemName(_ name: String) -> String { AttachmentName.sanitized(name) }

    func itemDirectory(_ itemID: String) -> String { (directory as NSString).appendingPathComponent(itemID) }
    func partsDirectory(_ itemID: String) -> String { (itemDirectory(itemID) as NSString).appendingPathComponent("parts") }

    /// The committed bytes of an item.
    public func dataPath(_ itemID: String) -> String { (itemDirectory(itemID) as NSString).appendingPathComponent("data") }

    /// Moves a whole spooled file in as an item's data.
    public func adopt(_ sourcePath: String, as itemID: String) throws {
        try FileManager.default.createDirectory(atPath: itemDirectory(itemID), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: sourcePath, toPath: dataPath(itemID))
    }

    public func prepareParts(of itemID: String) throws {
        try FileManager.default.createDirectory(atPath: partsDirectory(itemID), withIntermediateDirectories: true)
    }

    /// Moves a spooled part in; a part sent again replaces the earlier one.
    public func adoptPart(_ sourcePath: String, number: Int, of itemID: String) throws {
        let target = (partsDirectory(itemID) as NSString).appendingPathComponent("\(number)")
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.moveItem(atPath: sourcePath, toPath: target)
    }

    /// The part numbers received, in numeric order.
    public func partNumbers(of itemID: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: partsDirectory(itemID))) ?? []).compactMap(Int.init).sorted().map(String.init)
    }

    /// Joins the parts in the given order into the item's data, removes them, and returns the size.
    public func join(_ order: [String], of itemID: String) throws -> Int64 {
        let data = dataPath(itemID)
        _ = FileManager.default.createFile(atPath: data, contents: nil)
        guard let output = FileHandle(forWritingAtPath: data) else { throw ArcGISError.internalError("cannot write the upload") }
        var size: Int64 = 0
        defer { try? output.close() }
        for part in order {
            guard let number = Int(part) else { throw ArcGISError.invalidParameter("parts", "'\(part)' is not a part id") }
            guard let input = FileHandle(forReadingAtPath: (partsDirectory(itemID) as NSString).appendingPathComponent("\(number)")) else {
                throw ArcGISError.invalidParameter("parts", "part \(number) was not uploaded")
            }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                try output.write(contentsOf: chunk)
                size += Int64(chunk.count)
            }
            try input.close()
        }
        try? FileManager.default.removeItem(atPath: partsDirectory(itemID))
        return size
    }

    public func remove(_ itemID: String) { try? FileManager.default.removeItem(atPath: itemDirectory(itemID)) }

    /// A private copy of a committed item's bytes, for an attachment to take over.
    public func copy(of itemID: String) throws -> String {
        try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
        let copy = (temporaryDirectory as NSString).appendingPathComponent("upload-copy-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: dataPath(itemID), toPath: copy)
        return copy
    }
}

/// The checks of `uploads` requests every backend makes alike, before any row or file.
extension UploadItem {
    public func checkPart(_ partId: Int) throws {
        guard !committed else { throw ArcGISError.invalidParameter("partId", "item \(itemID) is already committed") }
        guard partId >= 1 && partId <= 10_000 else { throw ArcGISError.invalidParameter("partId", "must be 1 to 10000") }
    }

    public static func notFound(_ itemID: String) -> ArcGISError {
        ArcGISError(kind: .notFound, message: "Upload item not found.", details: ["No upload item '\(itemID)'."])
    }
}

/// An `UploadStore` whose bytes are in an `UploadFolder`: the database keeps the rows
/// (`upload(service:itemID:)`, `recordCommitted`, `forgetUpload`), the folder the rest.
public protocol FolderUploadStore: UploadStore {
    var folder: UploadFolder { get }
    /// Marks a registered item committed with its joined size.
    func recordCommitted(_ itemID: String, size: Int64) throws
    func forgetUpload(_ itemID: String) throws
}

extension FolderUploadStore {
    public func uploadDataPath(_ itemID: String) -> String { folder.dataPath(itemID) }

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
        try recordCommitted(itemID, size: size)
        item.committed = true
        item.size = size
        return item
    }

    public func deleteUpload(service: String, itemID: String) throws {
        _ = try upload(service: service, itemID: itemID)
        try forgetUpload(itemID)
        folder.remove(itemID)
    }

    /// A private copy of a committed item's bytes, for an attachment to take over.
    public func copyOfUpload(service: String, itemID: String) throws -> (path: String, size: Int, name: String) {
        let item = try upload(service: service, itemID: itemID)
        guard item.committed else { throw ArcGISError.invalidParameter("uploadId", "item \(itemID) is not committed") }
        return (try folder.copy(of: itemID), Int(item.size), item.itemName)
    }
}
