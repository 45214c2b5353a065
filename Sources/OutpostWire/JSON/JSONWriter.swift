/// Writes JSON text into a byte buffer, fast enough for 1,000-feature query pages.
///
/// Foundation's `JSONEncoder` spends most of a large query's time in reflection; this
/// writer appends bytes directly. With `pretty` it indents like ArcGIS's `f=pjson`.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    public let pretty: Bool
    private var depth = 0
    private var needsComma: [Bool] = [false]

    public init(pretty: Bool = false, reserve: Int = 1024) {
        self.pretty = pretty
        bytes.reserveCapacity(reserve)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Hands over the bytes written so far and continues with an empty buffer (the nesting
    /// state is kept), so a large document can be streamed out in pieces.
    public mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        bytes.removeAll(keepingCapacity: true)
        return taken
    }

    // MARK: Structure

    public mutating func beginObject() {
        prefixValue()
        bytes.append(UInt8(ascii: "{"))
        push()
    }
    public mutating func endObject() {
        pop()
        bytes.append(UInt8(ascii: "}"))
    }
    public mutating func beginArray() {
        prefixValue()
        bytes.append(UInt8(ascii: "["))
        push()
    }
    public mutating func endArray() {
        pop()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes a key; the next value written belongs to it.
    public mutating func key(_ key: String) {
        separator()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        pendingKey = true
    }

    private var pendingKey = false

    private mutating func push() {
        depth += 1
        needsComma.append(false)
    }
    private mutating func pop() {
        let hadMembers = needsComma.removeLast()
        depth -= 1
        if pretty && hadMembers { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        for _ in 0..<depth {
            bytes.append(0x20)
            bytes.append(0x20)
        }
    }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
        if pretty && depth > 0 { newline() }
    }

    private mutating func prefixValue() {
        if pendingKey {
            pendingKey = false
            return
        }
        if depth > 0 { separator() }
    }

    // MARK: Scalars

    public mutating func null() {
        prefixValue()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }
    public mutating func bool(_ value: Bool) {
        prefixValue()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }
    public mutating func int(_ value: Int64) {
        prefixValue()
        appendInteger(value)
    }
    public mutating func int(_ value: Int) { int(Int64(value)) }
    public mutating func double(_ value: Double) {
        prefixValue()
        appendDouble(value)
    }
    public mutating func string(_ value: String) {
        prefixValue()
        appendQuoted(value)
    }

    /// Appends already-serialized JSON as one value.
    public mutating func raw(_ json: [UInt8]) {
        prefixValue()
        bytes.append(contentsOf: json)
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object.members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    // Convenience: key + value.
    public mutating func member(_ name: String, _ value: JSONValue) {
        key(name)
        self.value(value)
    }
    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }
    public mutating func member(_ name: String, _ value: Int) {
        key(name)
        int(value)
    }
    public mutating func member(_ name: String, _ value: Int64) {
        key(name)
        int(value)
    }
    public mutating func member(_ name: String, _ value: Double) {
        key(name)
        double(value)
    }
    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    private mutating func appendInteger(_ value: Int64) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var v = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                count += 1
            }
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { buffer in
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    private mutating func appendDouble(_ value: Double) {
        guard value.isFinite else {
            // JSON has no NaN/Infinity; ArcGIS writes "NaN" for missing measures, we write null.
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            appendInteger(Int64(value))
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: their bytes go in at once.
        let plain = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x0A:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "n"))
            case 0x0D:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "r"))
            case 0x09:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// Compact JSON text.
    public var jsonText: String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.string
    }
}
