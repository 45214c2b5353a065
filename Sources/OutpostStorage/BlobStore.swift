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
/// Calls block, as every storage seam's do (SQLite, libpq): make them on the store's threads
/// (`StoreCall`, jobs' `blocking`), never on the cooperative pool's.
///
/// Contract (`BlobStoreContractTests`, run against every implementation): a put is atomic —
/// a reader sees the whole object or none — and replaces an existing object unless `ifAbsent`
/// (then `BlobStoreError.exists`, the object unchanged); `put(_:from:)` consumes the file (moved
/// or uploaded, then removed); `get` with a range returns exactly those bytes (the range
/// clipped to the object); reading a missing key is `notFound`; deleting one succeeds; `list`
/// gives the keys under a prefix in ascending order with their sizes; `touch` moves an
/// object's modification time on (an idle clock restarted) and leaves its bytes. Keys pass
/// `BlobKey.check`.
public protocol BlobStore: Sendable {
    @discardableResult func put(_ key: String, bytes: [UInt8], ifAbsent: Bool) throws -> BlobInfo
    @discardableResult func put(_ key: String, from file: String, ifAbsent: Bool) throws -> BlobInfo
    func get(_ key: String, range: ClosedRange<Int64>?) throws -> [UInt8]
    /// The object written to `path` (replaced whole).
    @discardableResult func download(_ key: String, to path: String) throws -> BlobInfo
    func info(_ key: String) throws -> BlobInfo?
    func delete(_ key: String) throws
    func list(prefix: String) throws -> [BlobInfo]
    /// Sets the object's modification time to `modified` (epoch ms) where the store lets its
    /// writer choose it (a folder); a remote store stamps its own clock's now.
    func touch(_ key: String, modified: Int64) throws
    /// Where the object's bytes are a file on this machine, to be read in place; nil for a
    /// store whose objects are elsewhere (read them with `download`).
    func localPath(_ key: String) throws -> String?
}
