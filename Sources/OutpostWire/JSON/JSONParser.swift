/// A lenient JSON parser for parameters sent by ArcGIS clients.
///
/// Besides strict JSON it accepts what real clients post: single-quoted strings
/// (Esri's own Runtime-style samples send `{'xmin':-170,...}`), `NaN`, and leading or
/// trailing white space. It is a recursive-descent parser over UTF-8 bytes with a depth
/// limit, so hostile input cannot exhaust the stack.
public struct JSONParser {
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var message: String
        public var offset: Int
        public var description: String { "\(message) at offset \(offset)" }
    }

    public static let maximumDepth = 256

    public static func parse(_ text: String) throws(Error) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    public static func parse(bytes: [UInt8]) throws(Error) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(Error) in
            var parser = JSONParser(bytes: buffer)
            return try parser.parseDocument()
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private mutating func parseDocument() throws(Error) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("Unexpected trailing characters") }
        return value
    }

    private func fail(_ message: String) -> Error { Error(message: message, offset: index) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(Error) -> JSONValue {
        guard index < bytes.count else { throw fail("Unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        case UInt8(ascii: "N"):
            try expectWord("NaN")
            return .double(.nan)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("Unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(Error) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("Invalid literal") }
        let start = word.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw fail("Invalid literal")
        }
        index += count
    }

    private mutating func enter() throws(Error) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("JSON nested too deeply") }
    }

    private mutating func parseObject() throws(Error) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw fail("Expected a quoted key")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("Expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("Unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(members))
            }
            throw fail("Expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(Error) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("Unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw fail("Expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(Error) -> String {
        let quote = bytes[index]
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count, bytes[index] != quote, bytes[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count else { throw fail("Unterminated string") }
        if bytes[index] == quote {
            let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            index += 1
            return s
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        // A surrogate pair.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { throw fail("Lone surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("Invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("Invalid unicode escape") }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw fail("Invalid escape")
                }
                continue
            }
            scalars.append(byte)
            index += 1
        }
        throw fail("Unterminated string")
    }

    private mutating func parseHex4() throws(Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("Invalid unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("Invalid unicode escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Error) -> JSONValue {
        let start = index
        var isInteger = true
        var negative = false
        var magnitude: UInt64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        while index < bytes.count {
            let b = bytes[index]
            if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                if isInteger {
                    let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times10.addingReportingOverflow(UInt64(b - UInt8(ascii: "0")))
                    magnitude = sum
                    overflow = overflow || o1 || o2
                }
                index += 1
            } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
                || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
            {
                isInteger = false
                index += 1
            } else {
                break
            }
        }
        let digits = index - start - (negative ? 1 : 0)
        guard digits > 0 else { throw Error(message: "Invalid number", offset: start) }
        // Integers are accumulated in place: no String per number (GeoJSON imports are mostly numbers).
        if isInteger && !overflow {
            if negative, magnitude <= UInt64(Int64.max) + 1 { return .int(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)) }
            if !negative, magnitude <= UInt64(Int64.max) { return .int(Int64(magnitude)) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw Error(message: "Invalid number '\(text)'", offset: start) }
        return .double(value)
    }
}

extension JSONParser {
    /// Parses a top-level object, handing each element of the array under `key` to
    /// `element` instead of keeping it: a million-feature GeoJSON file is read with one
    /// feature in memory at a time. The returned object has that array emptied.
    public static func parseStreaming(
        bytes: [UInt8], arrayKey key: String,
        element: (JSONValue) throws -> Void
    ) throws -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer in
            try parseStreaming(buffer: buffer, arrayKey: key) { value, _ in try element(value) }
        }
    }

    /// As `parseStreaming(bytes:…)` over bytes the caller holds (a mapped file); `element` is
    /// also told where the element ended, so the caller may let go of the bytes before it.
    public static func parseStreaming(
        buffer: UnsafeBufferPointer<UInt8>, arrayKey key: String,
        element: (_ value: JSONValue, _ end: Int) throws -> Void
    ) throws -> JSONValue {
        var parser = JSONParser(bytes: buffer)
        return try parser.parseStreamingObject(arrayKey: key, element: element)
    }

    private mutating func parseStreamingObject(arrayKey key: String, element: (JSONValue, Int) throws -> Void) throws -> JSONValue {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw fail("Expected a JSON object") }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("Expected a quoted key") }
            let name = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("Expected ':'") }
            index += 1
            skipWhitespace()
            if name == key, index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                } else {
                    while true {
                        skipWhitespace()
                        let value = try parseValue()
                        try element(value, index)
                        skipWhitespace()
                        guard index < bytes.count else { throw fail("Unterminated array") }
                        if bytes[index] == UInt8(ascii: ",") {
                            index += 1
                            continue
                        }
                        if bytes[index] == UInt8(ascii: "]") {
                            index += 1
                            break
                        }
                        throw fail("Expected ',' or ']'")
                    }
                }
                members.append((key: name, value: .array([])))
            } else {
                members.append((key: name, value: try parseValue()))
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("Unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            }
            throw fail("Expected ',' or '}'")
        }
        skipWhitespace()
        guard index == bytes.count else { throw fail("Unexpected trailing characters") }
        return .object(JSONObject(members))
    }
}
