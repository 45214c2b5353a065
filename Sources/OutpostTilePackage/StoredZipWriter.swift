import CZlib
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a package file could not be written.
public enum TilePackageWriteError: Error, Equatable, CustomStringConvertible {
    case io(String)
    /// An entry's bytes did not add up to the size announced for it.
    case sizeMismatch(entry: String, announced: UInt64, written: UInt64)
    /// The tiles handed for a block were not the ones measured for it.
    case tilesChanged(level: Int)

    public var description: String {
        switch self {
        case .io(let reason): "cannot write the package: \(reason)"
        case .sizeMismatch(let entry, let announced, let written): "\(entry): announced \(announced) bytes, wrote \(written)"
        case .tilesChanged(let level): "the tiles of level \(level) changed while they were exported"
        }
    }
}

/// A zip archive whose entries are stored, not compressed (tile packages must be: readers
/// seek into bundles inside the archive, §3.4), written front to back in one pass.
///
/// Each entry's size is announced before its bytes, so its local header is final but for the
/// CRC-32, which is patched in place once the bytes are written; no data descriptors. ZIP64
/// records are written only where a size or offset needs them.
public final class StoredZipWriter {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var offset: UInt64 = 0
    private var entries: [Entry] = []
    private var open: (entry: Entry, crc: UInt, written: UInt64)?
    private let bufferLimit = 1 << 20

    private struct Entry {
        var name: [UInt8]
        var size: UInt64
        var crc: UInt32 = 0
        var headerOffset: UInt64
    }

    /// Creates (or truncates) the file at `path`.
    public init(path: String) throws {
        descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TilePackageWriteError.io("\(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    /// Starts an entry of exactly `size` bytes, written next with `write`.
    public func beginEntry(_ name: String, size: UInt64) throws {
        precondition(open == nil, "an entry is already open")
        let entry = Entry(name: Array(name.utf8), size: size, headerOffset: offset)
        let zip64 = size >= 0xFFFF_FFFF
        var header = ByteWriter()
        header.u32(0x0403_4b50)
        header.u16(zip64 ? 45 : 20)
        header.u16(0x0800)  // UTF-8 names
        header.u16(0)  // stored
        header.u16(0)  // time: 00:00
        header.u16(0x21)  // date: 1980-01-01
        header.u32(0)  // CRC-32, patched when the entry ends
        header.u32(zip64 ? 0xFFFF_FFFF : UInt32(size))
        header.u32(zip64 ? 0xFFFF_FFFF : UInt32(size))
        header.u16(UInt16(entry.name.count))
        header.u16(zip64 ? 20 : 0)
        header.bytes(entry.name)
        if zip64 {
            header.u16(1)
            header.u16(16)
            header.u64(size)
            header.u64(size)
        }
        try append(header.data)
        open = (entry, crc32(0, nil, 0), 0)
    }

    /// Bytes of the open entry.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var current = open else { preconditionFailure("no entry is open") }
        if let base = bytes.baseAddress, bytes.count > 0 {
            current.crc = crc32(current.crc, base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count))
        }
        current.written += UInt64(bytes.count)
        open = current
        try append(bytes)
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Ends the open entry: its CRC-32 goes into its local header.
    public func endEntry() throws {
        guard let current = open else { preconditionFailure("no entry is open") }
        open = nil
        let name = String(decoding: current.entry.name, as: UTF8.self)
        guard current.written == current.entry.size else {
            throw TilePackageWriteError.sizeMismatch(entry: name, announced: current.entry.size, written: current.written)
        }
        var entry = current.entry
        entry.crc = UInt32(truncatingIfNeeded: current.crc)
        entries.append(entry)
        try flush()
        var crc = entry.crc.littleEndian
        let wrote = withUnsafeBytes(of: &crc) { pwrite(descriptor, $0.baseAddress, 4, off_t(entry.headerOffset + 14)) }
        guard wrote == 4 else { throw TilePackageWriteError.io(String(cString: strerror(errno))) }
    }

    /// A whole entry at once.
    public func addEntry(_ name: String, bytes: [UInt8]) throws {
        try beginEntry(name, size: UInt64(bytes.count))
        try write(bytes)
        try endEntry()
    }

    /// Writes the central directory and closes the archive.
    public func finish() throws {
        precondition(open == nil, "an entry is still open")
        let directoryStart = offset
        for entry in entries {
            let needsSize = entry.size >= 0xFFFF_FFFF
            let needsOffset = entry.headerOffset >= 0xFFFF_FFFF
            var extra = ByteWriter()
            if needsSize || needsOffset {
                extra.u16(1)
                extra.u16(UInt16((needsSize ? 16 : 0) + (needsOffset ? 8 : 0)))
                if needsSize {
                    extra.u64(entry.size)
                    extra.u64(entry.size)
                }
                if needsOffset { extra.u64(entry.headerOffset) }
            }
            var record = ByteWriter()
            record.u32(0x0201_4b50)
            record.u16(0x031E)  // made by: Unix, 3.0
            record.u16(needsSize || needsOffset ? 45 : 20)
            record.u16(0x0800)
            record.u16(0)
            record.u16(0)
            record.u16(0x21)
            record.u32(entry.crc)
            record.u32(needsSize ? 0xFFFF_FFFF : UInt32(entry.size))
            record.u32(needsSize ? 0xFFFF_FFFF : UInt32(entry.size))
            record.u16(UInt16(entry.name.count))
            record.u16(UInt16(extra.data.count))
            record.u16(0)  // comment
            record.u16(0)  // disk
            record.u16(0)  // internal attributes
            record.u32(0o100644 << 16)  // a regular file, rw-r--r--
            record.u32(needsOffset ? 0xFFFF_FFFF : UInt32(entry.headerOffset))
            record.bytes(entry.name)
            record.bytes(extra.data)
            try append(record.data)
        }
        let directorySize = offset - directoryStart
        var end = ByteWriter()
        let count = UInt64(entries.count)
        if count >= 0xFFFF || directoryStart >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF {
            let zip64End = offset
            end.u32(0x0606_4b50)
            end.u64(44)
            end.u16(45)
            end.u16(45)
            end.u32(0)
            end.u32(0)
            end.u64(count)
            end.u64(count)
            end.u64(directorySize)
            end.u64(directoryStart)
            end.u32(0x0706_4b50)
            end.u32(0)
            end.u64(zip64End)
            end.u32(1)
        }
        end.u32(0x0605_4b50)
        end.u16(0)
        end.u16(0)
        end.u16(UInt16(min(count, 0xFFFF)))
        end.u16(UInt16(min(count, 0xFFFF)))
        end.u32(UInt32(min(directorySize, 0xFFFF_FFFF)))
        end.u32(UInt32(min(directoryStart, 0xFFFF_FFFF)))
        end.u16(0)
        try append(end.data)
        try flush()
        guard fsync(descriptor) == 0 else { throw TilePackageWriteError.io(String(cString: strerror(errno))) }
    }

    private func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        offset += UInt64(bytes.count)
        if bytes.count >= bufferLimit {
            try flush()
            try writeAll(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= bufferLimit { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let wrote = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { throw TilePackageWriteError.io(String(cString: strerror(errno))) }
            done += wrote
        }
    }
}

/// Little-endian fields, appended.
struct ByteWriter {
    var data: [UInt8] = []

    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    mutating func bytes(_ value: [UInt8]) { data.append(contentsOf: value) }
}
