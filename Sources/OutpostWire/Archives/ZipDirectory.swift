import Foundation

/// The central directory of a ZIP archive someone handed in (a zipped Shapefile or File
/// Geodatabase to publish), read and checked before anything opens the archive: how many
/// entries, their names, methods and sizes as the archive declares them.
///
/// Only what GDAL's `/vsizip/` reads is accepted: one disk, no ZIP64, stored or deflated
/// entries, no encryption. Names are refused when they could mean a place outside the archive
/// (absolute, `..`, a backslash, a NUL), even though nothing is extracted: such an archive was
/// made to attack something. The declared sizes bound the work before it starts
/// (docs/portal.md, "Publishing").
public struct ZipDirectory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var method: UInt16
        public var compressedSize: UInt64
        public var uncompressedSize: UInt64

        public var isDirectory: Bool { name.hasSuffix("/") }
    }

    /// What an archive may hold.
    public struct Limits: Sendable, Equatable {
        public var maxEntries = 10_000
        public var maxNameBytes = 1024
        /// The sum of the entries' declared sizes.
        public var maxUncompressedBytes: UInt64 = 4 << 30
        /// Of one entry over 1 MiB: declared size over compressed size (a bomb's is ~1,000).
        public var maxRatio: UInt64 = 200

        public init() {}
    }

    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case notAZip
        case truncated
        case unsupported(String)
        case tooManyEntries(Int)
        case unsafeName(String)
        case tooLarge(UInt64)
        case suspiciousRatio(String)
        /// More than one end record, or one whose comment does not reach the end.
        case ambiguous

        public var description: String {
            switch self {
            case .notAZip: "The file is not a ZIP archive."
            case .truncated: "The ZIP archive is truncated or damaged."
            case .unsupported(let what): "The ZIP archive uses \(what), which is not supported."
            case .tooManyEntries(let count): "The ZIP archive has more than \(count) entries."
            case .unsafeName(let name): "The ZIP archive has an entry named '\(name)', which points outside the archive."
            case .tooLarge(let bytes): "The ZIP archive would unpack to more than \(bytes) bytes."
            case .suspiciousRatio(let name): "The ZIP entry '\(name)' is compressed beyond what real data allows."
            case .ambiguous: "The ZIP archive has more than one end record: readers would disagree on what it holds."
            }
        }
    }

    public let entries: [Entry]

    /// The end record's length without its comment, and the most bytes before the end it can start.
    static let endRecordLength = 22
    public static let tailLength = endRecordLength + 0xFFFF

    /// Reads the archive at `path`: its last bytes, then its central directory.
    public init(path: String, limits: Limits = Limits()) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Refusal.notAZip }
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        let tailStart = size > UInt64(Self.tailLength) ? size - UInt64(Self.tailLength) : 0
        try handle.seek(toOffset: tailStart)
        let tail = [UInt8](try handle.readToEnd() ?? Data())
        let end = try Self.endRecord(tail: tail, tailStart: tailStart, limits: limits)
        guard end.offset + UInt64(end.size) <= size else { throw Refusal.truncated }
        try handle.seek(toOffset: end.offset)
        let directory = [UInt8](try handle.read(upToCount: end.size) ?? Data())
        try self.init(centralDirectory: directory, count: end.count, limits: limits)
    }

    /// The archive whose bytes are `bytes`, all of them.
    public init(bytes: [UInt8], limits: Limits = Limits()) throws(Refusal) {
        let tailStart = max(0, bytes.count - Self.tailLength)
        let end = try Self.endRecord(tail: Array(bytes[tailStart...]), tailStart: UInt64(tailStart), limits: limits)
        guard end.offset + UInt64(end.size) <= UInt64(bytes.count) else { throw .truncated }
        let start = Int(end.offset)
        try self.init(centralDirectory: Array(bytes[start..<start + end.size]), count: end.count, limits: limits)
    }

    /// The end-of-central-directory record in `tail` (the archive's last bytes, from offset
    /// `tailStart`): the entries' count and the directory's size and offset.
    static func endRecord(tail: [UInt8], tailStart: UInt64, limits: Limits) throws(Refusal) -> (count: Int, size: Int, offset: UInt64) {
        guard tail.count >= endRecordLength else { throw .notAZip }
        // The last signature, as GDAL's minizip (and unzip, and Python) take it; its comment
        // must reach exactly to the end, and no other signature may be in the tail: otherwise
        // this reader and GDAL's could read two different directories, one checked and one used.
        let signatures = stride(from: tail.count - 4, through: 0, by: -1).filter { read32(tail, $0) == 0x0605_4b50 }
        guard let at = signatures.first else { throw .notAZip }
        guard signatures.count == 1, at <= tail.count - endRecordLength, at + endRecordLength + Int(read16(tail, at + 20)) == tail.count else {
            throw .ambiguous
        }
        let disk = read16(tail, at + 4)
        let directoryDisk = read16(tail, at + 6)
        let onDisk = Int(read16(tail, at + 8))
        let count = Int(read16(tail, at + 10))
        let size = read32(tail, at + 12)
        let offset = read32(tail, at + 16)
        guard disk == 0, directoryDisk == 0, onDisk == count else { throw .unsupported("several disks") }
        guard count != 0xFFFF, size != 0xFFFF_FFFF, offset != 0xFFFF_FFFF else { throw .unsupported("ZIP64") }
        guard count <= limits.maxEntries else { throw .tooManyEntries(limits.maxEntries) }
        // Each entry takes at least 46 bytes of the directory, which ends where the end record starts.
        guard Int(size) >= count * 46, UInt64(offset) + UInt64(size) <= tailStart + UInt64(at) else { throw .truncated }
        return (count, Int(size), UInt64(offset))
    }

    /// The `count` entries of `centralDirectory`, checked against `limits`.
    init(centralDirectory bytes: [UInt8], count: Int, limits: Limits) throws(Refusal) {
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var at = 0
        var total: UInt64 = 0
        for _ in 0..<count {
            guard at + 46 <= bytes.count, Self.read32(bytes, at) == 0x0201_4b50 else { throw .truncated }
            let flags = Self.read16(bytes, at + 8)
            let method = Self.read16(bytes, at + 10)
            let compressed = UInt64(Self.read32(bytes, at + 20))
            let uncompressed = UInt64(Self.read32(bytes, at + 24))
            let nameLength = Int(Self.read16(bytes, at + 28))
            let extraLength = Int(Self.read16(bytes, at + 30))
            let commentLength = Int(Self.read16(bytes, at + 32))
            let end = at + 46 + nameLength + extraLength + commentLength
            guard end <= bytes.count else { throw .truncated }
            guard nameLength <= limits.maxNameBytes else { throw .unsafeName("(a name of \(nameLength) bytes)") }
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            guard Self.isSafe(name) else { throw .unsafeName(String(name.prefix(200))) }
            guard flags & 0x41 == 0 else { throw .unsupported("encryption") }
            guard method == 0 || method == 8 else { throw .unsupported("compression method \(method)") }
            guard compressed != 0xFFFF_FFFF, uncompressed != 0xFFFF_FFFF else { throw .unsupported("ZIP64") }
            if uncompressed > 1 << 20, uncompressed / max(compressed, 1) > limits.maxRatio { throw .suspiciousRatio(String(name.prefix(200))) }
            total += uncompressed
            guard total <= limits.maxUncompressedBytes else { throw .tooLarge(limits.maxUncompressedBytes) }
            entries.append(Entry(name: name, method: method, compressedSize: compressed, uncompressedSize: uncompressed))
            at = end
        }
        self.entries = entries
    }

    /// A relative path of non-empty segments, none `.` or `..`, without backslash or NUL.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else { return false }
        var segments = name.split(separator: "/", omittingEmptySubsequences: false)
        if segments.last == "" { segments.removeLast() }
        return !segments.isEmpty && segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    static func read16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

    static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
