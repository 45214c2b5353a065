import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A scratch file of fixed-size records for an external sort: appended to, or written at
/// record offsets, and read back by range. It is unlinked as soon as it is open, so it
/// leaves nothing behind however the process ends.
final class ScratchFile<Record: BitwiseCopyable> {
    private let descriptor: Int32
    private var appending: [Record] = []
    /// Records appended (those still buffered included).
    private(set) var count = 0
    static var stride: Int { MemoryLayout<Record>.stride }

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent("scratch-\(UUID().uuidString)")
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw Self.failure("open \(path)") }
        unlink(path)
        appending.reserveCapacity(Self.appendBatch)
    }

    deinit { close(descriptor) }

    static var appendBatch: Int { max(1, (256 << 10) / stride) }

    func append(_ record: Record) throws {
        appending.append(record)
        count += 1
        if appending.count == Self.appendBatch { try flush() }
    }

    /// Writes the records still buffered by `append`.
    func flush() throws {
        guard !appending.isEmpty else { return }
        try write(appending, at: count - appending.count)
        appending.removeAll(keepingCapacity: true)
    }

    func write(_ records: [Record], at index: Int) throws {
        try records.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t((index * Self.stride) + done))
                guard written > 0 else { throw Self.failure("write") }
                done += written
            }
        }
    }

    func read(_ range: Range<Int>) throws -> [Record] {
        try [Record](unsafeUninitializedCapacity: range.count) { buffer, initialized in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            var done = 0
            while done < bytes.count {
                let read = pread(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t((range.lowerBound * Self.stride) + done))
                guard read > 0 else { throw Self.failure("read") }
                done += read
            }
            initialized = range.count
        }
    }

    /// Every record in order, `chunk` at a time.
    func scan(chunk: Int = 1 << 16, _ body: (Record) throws -> Void) throws {
        try flush()
        for start in Swift.stride(from: 0, to: count, by: chunk) {
            for record in try read(start..<min(start + chunk, count)) { try body(record) }
        }
    }

    private static func failure(_ what: String) -> Error {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "scratch file \(what): \(String(cString: strerror(errno)))"])
    }
}

/// Distributes records into the buckets of a scratch file whose bucket sizes are known:
/// each bucket's records land in its own range, in the order given, through a small buffer
/// per bucket.
struct ScratchScatter<Record: BitwiseCopyable> {
    let file: ScratchFile<Record>
    private var cursors: [Int]
    private var buffers: [[Record]]
    static var capacity: Int { max(1, (16 << 10) / MemoryLayout<Record>.stride) }

    /// `starts`: where each bucket's range begins.
    init(file: ScratchFile<Record>, starts: [Int]) {
        self.file = file
        cursors = starts
        buffers = Array(repeating: [], count: starts.count)
    }

    mutating func add(_ record: Record, to bucket: Int) throws {
        buffers[bucket].append(record)
        if buffers[bucket].count == Self.capacity { try flush(bucket) }
    }

    mutating func flush() throws {
        for bucket in buffers.indices { try flush(bucket) }
    }

    private mutating func flush(_ bucket: Int) throws {
        guard !buffers[bucket].isEmpty else { return }
        try file.write(buffers[bucket], at: cursors[bucket])
        cursors[bucket] += buffers[bucket].count
        buffers[bucket].removeAll(keepingCapacity: true)
    }
}
