import Foundation
import OutpostWire

/// An attachment's metadata.
public struct AttachmentInfo: Sendable, Equatable {
    public var id: Int64
    public var globalId: String
    public var name: String
    public var contentType: String
    public var size: Int64
    public var keywords: String

    public init(id: Int64, globalId: String, name: String, contentType: String, size: Int64, keywords: String) {
        self.id = id
        self.globalId = globalId
        self.name = name
        self.contentType = contentType
        self.size = size
        self.keywords = keywords
    }
}

/// A feature's attachments.
public struct AttachmentGroup: Sendable, Equatable {
    public var parentObjectId: Int64
    public var parentGlobalId: String
    public var attachments: [AttachmentInfo]

    public init(parentObjectId: Int64, parentGlobalId: String, attachments: [AttachmentInfo]) {
        self.parentObjectId = parentObjectId
        self.parentGlobalId = parentGlobalId
        self.attachments = attachments
    }
}

/// The bytes and description of an attachment to add or replace. `sourcePath` is a file
/// the store takes over (it is moved into the data folder, not copied).
public struct AttachmentInput: Sendable {
    public var name: String
    public var contentType: String
    public var keywords: String
    public var sourcePath: String
    public var size: Int
    public var globalId: String?

    public init(name: String, contentType: String, keywords: String = "", sourcePath: String, size: Int, globalId: String? = nil) {
        self.name = name
        self.contentType = contentType
        self.keywords = keywords
        self.sourcePath = sourcePath
        self.size = size
        self.globalId = globalId
    }
}

/// Where an attachment's bytes are.
public enum AttachmentContent: Sendable, Equatable {
    case bytes([UInt8])
    case file(String)

    /// The bytes, read now from the file when there is one.
    public func data() throws -> Data {
        switch self {
        case .file(let path): try Data(contentsOf: URL(fileURLWithPath: path))
        case .bytes(let bytes): Data(bytes)
        }
    }
}

/// Attachment names are file names: no path separators, no control characters, no leading
/// dots (a name is never used as a path, but it is echoed in downloads).
public enum AttachmentName {
    public static func sanitized(_ name: String) -> String {
        var cleaned = String(
            name.unicodeScalars.filter { !$0.properties.isNoncharacterCodePoint && $0.value >= 0x20 && $0 != "/" && $0 != "\\" && $0 != "\"" }.map(
                Character.init))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmingWhitespace()
        if cleaned.count > 255 { cleaned = String(cleaned.suffix(255)) }
        return cleaned.isEmpty ? "attachment" : cleaned
    }
}
