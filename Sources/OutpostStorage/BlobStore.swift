/// An object kept outside the database: its key, size and last modification (epoch ms).
public struct BlobInfo: Sendable, Equatable {
    public var key: String
    public var size: Int64
    public var modified: Int64

    public init(key: String, size: Int64, modified: Int64) {
        self.key = key
        self.size = size
        self.modified = modified
    }
}

public enum BlobStoreError: Error, Equatable, CustomStringConvertible {
    case invalidKey(String)
    case notFound(String)
    /// A put with `ifAbsent` found the key taken.
    case exists(String)
    /// The storage refused or failed (an S3 error code and message, an I/O error).
    case failed(String)

    public var description: String {
        switch self {
        case .invalidKey(let key): "'\(key)' is not a valid object key"
        case .notFound(let key): "no object '\(key)'"
        case .exists(let key): "object '\(key)' exists already"
        case .failed(let reason): "object storage: \(reason)"
        }
    }
}

/// Object keys Outpost writes: `replicafiles/<name>`, `attachments/<id>.bin`,
/// `uploads/<item>/part-1`… — 1 to 512 characters of letters, digits, `.`, `_`, `-` and `/`,
/// no empty segment and none starting with `.` (a local store's staging files are named so).
/// Keys never come from a user's text unchecked.
public enum BlobKey {
    public static func check(_ key: String) throws {
        let allowed = key.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/")
        }
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...512).contains(key.utf8.count), allowed, segments.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else {
            throw BlobStoreError.invalidKey(key)
        }
    }
}

/// Bytes kept outside the database — result files, attachments, upload parts — in a local
/// folder (the embedded default) or an S3-compatible object store (several server processes).
///
/// Contract (`BlobStoreContractTests`, run against every implementation): a put is atomic —
/// a reader sees the whole object or none — and replaces an existing object unless `ifAbsent`
/// (then `BlobStoreError.exists`, the object unchanged); `put(_:from:)` consumes the file (moved
/// or uploaded, then removed); `get` with a range returns exactly those bytes (the range
/// clipped to the object); reading a missing key is `notFound`; deleting one succeeds; `list`
/// gives the keys under a prefix in ascending order with their sizes. Keys pass `BlobKey.check`.
public protocol BlobStore: Sendable {
    @discardableResult func put(_ key: String, bytes: [UInt8], ifAbsent: Bool) async throws -> BlobInfo
    @discardableResult func put(_ key: String, from file: String, ifAbsent: Bool) async throws -> BlobInfo
    func get(_ key: String, range: ClosedRange<Int64>?) async throws -> [UInt8]
    /// The object written to `path` (replaced whole).
    @discardableResult func download(_ key: String, to path: String) async throws -> BlobInfo
    func info(_ key: String) async throws -> BlobInfo?
    func delete(_ key: String) async throws
    func list(prefix: String) async throws -> [BlobInfo]
}
