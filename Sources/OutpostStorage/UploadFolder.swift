import Foundation
import OutpostWire

/// The bytes of `uploads` items in the blob store, whichever database keeps their rows:
/// `uploads/<item>/data` once committed, `uploads/<item>/parts/<n>` before. In a data folder
/// every file arrives by a rename from the request spool (the same file system), never by a
/// copy; an object store receives it once.
public struct UploadFolder: Sendable {
    public let blobs: BlobFiles
    /// Where parts are joined and private copies for attachments made (the data folder's `tmp/`).
    public let temporaryDirectory: String

    public init(blobs: BlobFiles, temporaryDirectory: String) {
        self.blobs = blobs
        self.temporaryDirectory = temporaryDirectory
    }

    /// A fresh item id: `i` + 36 hex digits and dashes (`isValidUploadID`).
    public static func newItemID() -> String { "i" + GlobalID.make().dropFirst().dropLast().lowercased() }

    /// An item's name as stored: a file name, as attachment names are.
    public static func itemName(_ name: String) -> String { AttachmentName.sanitized(name) }

    static func dataKey(_ itemID: String) -> String { "uploads/\(itemID)/data" }
    static func partsPrefix(_ itemID: String) -> String { "uploads/\(itemID)/parts/" }

    /// A file with the committed bytes of an item.
    public func dataFile(_ itemID: String) throws -> String { try blobs.file(Self.dataKey(itemID)) }

    /// Moves a whole spooled file in as an item's data.
    public func adopt(_ sourcePath: String, as itemID: String) throws {
        try blobs.store.put(Self.dataKey(itemID), from: sourcePath, ifAbsent: false)
    }

    /// Moves a spooled part in; a part sent again replaces the earlier one.
    public func adoptPart(_ sourcePath: String, number: Int, of itemID: String) throws {
        try blobs.store.put(Self.partsPrefix(itemID) + "\(number)", from: sourcePath, ifAbsent: false)
    }

    /// The part numbers received, in numeric order.
    public func partNumbers(of itemID: String) throws -> [String] {
        let prefix = Self.partsPrefix(itemID)
        return try blobs.store.list(prefix: prefix).compactMap { Int($0.key.dropFirst(prefix.count)) }.sorted().map(String.init)
    }

    /// Joins the parts in the given order into the item's data, removes them, and returns the size.
    public func join(_ order: [String], of itemID: String) throws -> Int64 {
        try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
        let joined = (temporaryDirectory as NSString).appendingPathComponent("upload-join-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: joined) }
        _ = FileManager.default.createFile(atPath: joined, contents: nil)
        guard let output = FileHandle(forWritingAtPath: joined) else { throw ArcGISError.internalError("cannot write the upload") }
        var size: Int64 = 0
        var partKeys: [String] = []
        do {
            defer { try? output.close() }
            for part in order {
                guard let number = Int(part) else { throw StorageRefusal.notAPartId(part) }
                let key = Self.partsPrefix(itemID) + "\(number)"
                let file: String
                do { file = try blobs.file(key) } catch BlobStoreError.notFound {
                    throw StorageRefusal.partNotUploaded(number)
                }
                partKeys.append(key)
                guard let input = FileHandle(forReadingAtPath: file) else { throw ArcGISError.internalError("cannot read part \(number)") }
                defer { try? input.close() }
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try output.write(contentsOf: chunk)
                    size += Int64(chunk.count)
                }
            }
        }
        try blobs.store.put(Self.dataKey(itemID), from: joined, ifAbsent: false)
        for key in try blobs.store.list(prefix: Self.partsPrefix(itemID)).map(\.key) {
            try? blobs.delete(key)
        }
        return size
    }

    /// Removes an item's data and parts.
    public func remove(_ itemID: String) {
        for key in (try? blobs.store.list(prefix: "uploads/\(itemID)/").map(\.key)) ?? [] {
            try? blobs.delete(key)
        }
        // A folder's empty item directories go too.
        if let folder = try? blobs.store.localPath("uploads/\(itemID)") { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// A private copy of a committed item's bytes, for an attachment to take over.
    public func copy(of itemID: String) throws -> String {
        try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
        let copy = (temporaryDirectory as NSString).appendingPathComponent("upload-copy-\(UUID().uuidString)")
        try blobs.copy(Self.dataKey(itemID), to: copy)
        return copy
    }
}

/// The checks of `uploads` requests every backend makes alike, before any row or file.
extension UploadItem {
    public func checkPart(_ partId: Int) throws {
        guard !committed else { throw StorageRefusal.alreadyCommitted(item: itemID) }
        guard partId >= 1 && partId <= 10_000 else { throw StorageRefusal.partIdOutOfRange(partId) }
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
    public func uploadDataFile(_ itemID: String) throws -> String { try folder.dataFile(itemID) }

    /// Adds one part of a registered item (`uploads/<id>/uploadPart`).
    public func addUploadPart(service: String, itemID: String, partId: Int, sourcePath: String) throws -> UploadItem {
        let item = try upload(service: service, itemID: itemID)
        try item.checkPart(partId)
        try folder.adoptPart(sourcePath, number: partId, of: itemID)
        return item
    }

    public func uploadParts(service: String, itemID: String) throws -> [String] {
        _ = try upload(service: service, itemID: itemID)
        return try folder.partNumbers(of: itemID)
    }

    /// Joins the parts (in the given order, or numeric order) into the item's data.
    public func commitUpload(service: String, itemID: String, parts: [String]?) throws -> UploadItem {
        var item = try upload(service: service, itemID: itemID)
        guard !item.committed else { return item }
        let order = try parts ?? folder.partNumbers(of: itemID)
        guard !order.isEmpty else { throw StorageRefusal.noParts }
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
        guard item.committed else { throw StorageRefusal.notCommitted(item: itemID) }
        return (try folder.copy(of: itemID), Int(item.size), item.itemName)
    }
}
