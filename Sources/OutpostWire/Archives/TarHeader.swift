/// The 512-byte header of one file of a POSIX (ustar) tar archive, and the padding after its
/// bytes: what a backup's download is made of (docs/operations.md, "Backups from the server").
/// Pure; `tar`, Python's `tarfile` and GNU tar read what it writes.
public struct TarHeader: Sendable, Equatable {
    public enum Refusal: Error, Sendable, Equatable {
        /// ustar holds a name of at most 100 bytes, or 255 split at a `/`.
        case nameTooLong(String)
        /// ustar's size field holds at most 8 GiB − 1.
        case tooLarge(String)
    }

    public let bytes: [UInt8]

    /// A regular file named `path` (`/`-separated, relative) of `size` bytes, changed at
    /// `modified` (seconds since 1970).
    public init(path: String, size: Int64, modified: Int64) throws(Refusal) {
        let name = Array(path.utf8)
        var prefix: [UInt8] = []
        var rest = name
        if name.count > 100 {
            // The longest prefix up to a `/` that leaves at most 100 bytes of name.
            guard let cut = name.indices.last(where: { name[$0] == UInt8(ascii: "/") && $0 <= 155 && name.count - $0 - 1 <= 100 }), cut > 0
            else { throw .nameTooLong(path) }
            prefix = Array(name[..<cut])
            rest = Array(name[(cut + 1)...])
        }
        guard size >= 0, size < 0o77777777777 else { throw .tooLarge(path) }
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ field: [UInt8], at offset: Int) { for (i, byte) in field.enumerated() { header[offset + i] = byte } }
        func octal(_ value: Int64, width: Int) -> [UInt8] {
            let digits = String(value, radix: 8)
            return Array((String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits).utf8) + [0]
        }
        put(rest, at: 0)
        put(octal(0o644, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(max(0, modified), width: 12), at: 136)
        put(Array(repeating: UInt8(ascii: " "), count: 8), at: 148)
        header[156] = UInt8(ascii: "0")
        put(Array("ustar".utf8) + [0] + Array("00".utf8), at: 257)
        put(prefix, at: 345)
        let sum = header.reduce(0) { $0 + Int64($1) }
        put(octal(sum, width: 7) + [UInt8(ascii: " ")], at: 148)
        bytes = header
    }

    /// Zero bytes after a file of `size` bytes, up to the next 512.
    public static func padding(after size: Int64) -> [UInt8] {
        [UInt8](repeating: 0, count: Int((512 - size % 512) % 512))
    }

    /// What ends an archive: two zero blocks.
    public static let end = [UInt8](repeating: 0, count: 1024)

    /// The archive's length for files of `sizes`.
    public static func archiveLength(_ sizes: [Int64]) -> Int64 {
        sizes.reduce(Int64(end.count)) { $0 + 512 + $1 + Int64(padding(after: $1).count) }
    }
}
