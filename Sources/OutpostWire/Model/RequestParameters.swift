/// The parameters of one REST request, from the query string and the form body.
///
/// ArcGIS clients spell names differently (`returnAttachmentsDatabyUrl`,
/// `returnAttachmentDatabyURL`, …) and send booleans as `true`, `True`, `1`: lookups ignore
/// case, and typed accessors are lenient where real clients are inconsistent and strict
/// where a wrong value would silently change the answer.
public struct RequestParameters: Sendable, Equatable {
    private var values: [String: String] = [:]

    public init() {}

    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { self[name] = value }
    }

    /// The raw value; later values of the same name win over earlier ones (body over query).
    public subscript(name: String) -> String? {
        get { values[name.lowercased()] }
        set { values[name.lowercased()] = newValue }
    }

    public var names: [String] { Array(values.keys).sorted() }

    /// Merges `other` over `self`.
    public mutating func merge(_ other: RequestParameters) {
        values.merge(other.values) { _, new in new }
    }

    /// The value, with surrounding white space removed; nil when absent or empty.
    public func string(_ name: String) -> String? {
        guard let raw = self[name] else { return nil }
        let trimmed = raw.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The first present of several spellings of one parameter.
    public func string(anyOf names: [String]) -> String? {
        for name in names { if let v = string(name) { return v } }
        return nil
    }

    public func bool(_ name: String, default defaultValue: Bool) throws(ArcGISError) -> Bool {
        try bool(anyOf: [name], default: defaultValue)
    }

    public func bool(anyOf names: [String], default defaultValue: Bool) throws(ArcGISError) -> Bool {
        for name in names {
            guard let raw = string(name) else { continue }
            switch raw.lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw .invalidParameter(name, "expected true or false, got '\(raw)'")
            }
        }
        return defaultValue
    }

    public func int(_ name: String) throws(ArcGISError) -> Int? {
        guard let raw = string(name) else { return nil }
        guard let value = Int(raw) else { throw .invalidParameter(name, "expected an integer, got '\(raw)'") }
        return value
    }

    public func double(_ name: String) throws(ArcGISError) -> Double? {
        guard let raw = string(name) else { return nil }
        guard let value = Double(raw) else { throw .invalidParameter(name, "expected a number, got '\(raw)'") }
        return value
    }

    /// A JSON value (lenient: single quotes accepted).
    public func json(_ name: String) throws(ArcGISError) -> JSONValue? {
        guard let raw = string(name) else { return nil }
        do {
            return try JSONParser.parse(raw)
        } catch {
            throw .invalidParameter(name, "not valid JSON (\(error.description))")
        }
    }

    /// A list of integers given as `1,2,3` or `[1,2,3]`.
    /// The most items a list parameter (`objectIds`, `deletes`, …) may hold.
    public static let maxListItems = 100_000

    public func intList(_ name: String) throws(ArcGISError) -> [Int64]? {
        guard var raw = string(name) else { return nil }
        if raw.hasPrefix("[") && raw.hasSuffix("]") { raw = String(raw.dropFirst().dropLast()) }
        var result: [Int64] = []
        for part in raw.split(separator: ",", omittingEmptySubsequences: true) {
            let text = String(part).trimmingWhitespace()
            if text.isEmpty { continue }
            guard let value = Int64(text) else { throw .invalidParameter(name, "'\(text)' is not an integer") }
            guard result.count < Self.maxListItems else { throw Self.tooManyItems(name) }
            result.append(value)
        }
        return result
    }

    public static func tooManyItems(_ name: String) -> ArcGISError {
        .invalidParameter(name, "more than \(maxListItems) items")
    }

    /// A list of names given as `a,b,c` (white space trimmed, empties dropped).
    public func nameList(_ name: String) -> [String]? {
        guard let raw = string(name) else { return nil }
        return raw.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}

extension String {
    /// The string without leading and trailing ASCII white space (Foundation-free).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        return String(scalars[start..<end])
    }
}

/// Parses `application/x-www-form-urlencoded` text (also a URL's query string).
public enum FormURLEncoding {
    public static func decode(_ text: String) -> [(String, String)] {
        decode(bytes: Array(text.utf8))
    }

    /// Works on bytes: splitting a megabyte-sized `String` by `Character` costs more than
    /// the rest of an applyEdits request.
    public static func decode(bytes: [UInt8]) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                var equals = start
                while equals < end && bytes[equals] != UInt8(ascii: "=") { equals += 1 }
                let name = percentDecode(bytes[start..<equals])
                let value = equals < end ? percentDecode(bytes[(equals + 1)..<end]) : ""
                pairs.append((name, value))
            }
            start = end + 1
        }
        return pairs
    }

    /// Percent-decodes and turns `+` into a space. Malformed escapes are kept verbatim.
    public static func percentDecode<S: StringProtocol>(_ text: S) -> String {
        percentDecode(Array(text.utf8)[...])
    }

    static func percentDecode(_ input: ArraySlice<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var i = input.startIndex
        while i < input.endIndex {
            let byte = input[i]
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
                i += 1
            } else if byte == UInt8(ascii: "%"), i + 2 < input.endIndex,
                let high = hexValue(input[i + 1]), let low = hexValue(input[i + 2])
            {
                bytes.append(high << 4 | low)
                i += 3
            } else {
                bytes.append(byte)
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
