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
