import CLibFuzzer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One input libFuzzer hands a target, and the ways the targets read it.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes as text, invalid UTF-8 replaced (as the server decodes a request).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Exactly `count` fields split at `separator`: missing ones are empty, the last takes
    /// the rest (separators included).
    public func byteFields(_ count: Int, separator: UInt8 = UInt8(ascii: "\n")) -> [[UInt8]] {
        var fields: [[UInt8]] = []
        var rest = bytes[...]
        while fields.count < count - 1, let index = rest.firstIndex(of: separator) {
            fields.append(Array(rest[..<index]))
            rest = rest[(index + 1)...]
        }
        fields.append(Array(rest))
        while fields.count < count { fields.append([]) }
        return fields
    }

    /// `byteFields` as text.
    public func fields(_ count: Int, separator: UInt8 = UInt8(ascii: "\n")) -> [String] {
        byteFields(count, separator: separator).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first byte (a mode selector) and the rest.
    public var split: (first: UInt8, rest: [UInt8])? {
        guard let first = bytes.first else { return nil }
        return (first, Array(bytes.dropFirst()))
    }
}

/// Reads little-endian numbers off the front of some bytes; zeros once they run out.
public struct ByteStream {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(byte()) << (8 * UInt64(index)) }
        return Int64(bitPattern: value)
    }

    /// The bytes not read yet.
    public mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return offset < bytes.count ? Array(bytes[offset...]) : []
    }
}

/// A broken property: prints what broke and aborts, so libFuzzer keeps the input as a crash.
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    let report = Array("FUZZ PROPERTY BROKEN at \(file):\(line): \(message())\n".utf8)
    _ = report.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// A scratch file path private to this process, in memory when /dev/shm exists.
public func scratchPath(_ name: String) -> String {
    let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(folder)/outpost-fuzz-\(getpid())-\(name)"
}

/// Runs libFuzzer with this process's arguments over `callback` (a target's
/// `LLVMFuzzerTestOneInput`) and exits with its status.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}

/// Where an empty input points when libFuzzer passes none.
nonisolated(unsafe) public let emptyInput = UnsafeRawPointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))
