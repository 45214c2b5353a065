import Foundation
import OutpostWire

/// The files of portal items in a local folder, whichever database keeps their rows:
/// `<items>/<id>/data/<name>`, `<id>/resources/<name>` and `<id>/info/thumbnail/<name>`,
/// each written under a temporary name and renamed, so a reader sees a whole file or none.
public struct ItemFolder: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func folder(of id: String) -> String { (directory as NSString).appendingPathComponent(id) }
    public func dataPath(_ id: String, _ name: String) -> String { folder(of: id) + "/data/" + name }
    public func resourcePath(_ id: String, _ name: String) -> String { folder(of: id) + "/resources/" + name }
    public func thumbnailPath(_ id: String, _ thumbnail: String) -> String { folder(of: id) + "/info/" + thumbnail }

    /// Puts an item's data in place: a text stays in the row, a file goes under the item's folder.
    /// Returns the columns to store (`data_text`, `data_file`).
    public func store(_ data: ItemData?, item id: String) throws -> (text: String?, file: String?) {
        switch data {
        case nil: return (nil, nil)
        case .text(let text): return (text, nil)
        case .file(let name, let path):
            guard PortalNames.isValidResourceName(name), !name.contains("/") else {
                throw PortalFailure.invalid("'\(name)' is not a valid file name.")
            }
            _ = try place(.file(path: path), at: dataPath(id, name))
            return (nil, name)
        }
    }

    /// The data a row's columns name.
    public func data(text: String?, file: String?, item id: String) -> ItemData? {
        if let text { return .text(text) }
        if let file { return .file(name: file, path: dataPath(id, file)) }
        return nil
    }

    /// Writes or moves bytes to `path` under a temporary name, flushed, then renames and flushes
    /// the folders on the way (`DurableFiles`); returns the size.
    public func place(_ source: ItemResourceSource, at path: String) throws -> Int64 {
        let manager = FileManager.default
        try manager.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let partial = path + ".partial"
        try? manager.removeItem(atPath: partial)
        switch source {
        case .bytes(let bytes): try Data(bytes).write(to: URL(fileURLWithPath: partial))
        case .file(let from):
            do { try manager.moveItem(atPath: from, toPath: partial) } catch { try manager.copyItem(atPath: from, toPath: partial) }
        }
        try DurableFiles.sync(partial)
        if rename(partial, path) != 0 { throw PortalFailure.invalid("Could not store \((path as NSString).lastPathComponent).") }
        try DurableFiles.syncFolders(of: path, upTo: directory)
        return (try manager.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
    }

    /// A thumbnail's checked name and where it goes.
    public func thumbnailTarget(item id: String, name: String) throws -> (thumbnail: String, path: String) {
        guard PortalNames.isValidResourceName(name), !name.contains("/") else {
            throw PortalFailure.invalid("'\(name)' is not a valid thumbnail name.")
        }
        return ("thumbnail/" + name, thumbnailPath(id, "thumbnail/" + name))
    }

    /// The file of an item's thumbnail field, when it is there.
    public func existingThumbnail(_ thumbnail: String?, item id: String) -> String? {
        guard let thumbnail, thumbnail.hasPrefix("thumbnail/") else { return nil }
        let path = thumbnailPath(id, thumbnail)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Removes the folders of items no row names (their deletion committed before the files went).
    public func removeFolders(notIn items: Set<String>) throws -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !items.contains(name) {
            try FileManager.default.removeItem(atPath: folder(of: name))
            removed += 1
        }
        return removed
    }
}

/// The item's description as stored in a row, every backend alike: lists and JSON as text.
extension PortalItem {
    public var storedTypeKeywords: String { JSONValue.array(typeKeywords.map(JSONValue.string)).jsonText }
    public var storedTags: String { JSONValue.array(tags.map(JSONValue.string)).jsonText }
    public var storedExtent: String { JSONValue.array(extent.map { .array($0.map(JSONValue.double)) }).jsonText }

    public static func storedStrings(_ text: String?) -> [String] {
        text.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    public static func storedExtent(_ text: String?) -> [[Double]] {
        text.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap { $0.arrayValue?.compactMap(\.doubleValue) } ?? []
    }
}
