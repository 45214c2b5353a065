/// Checks and converts an attribute value for a field: the one rule for edits and imports.
public enum FieldValue {
    /// How strict the conversion is. Edits are `.strict` (a string is not a number); imports
    /// are `.lenient` (numeric strings and booleans convert, nested JSON becomes text).
    public enum Mode: Sendable { case strict, lenient }

    /// Edits (`.strict`) are also checked against the field's domain (ArcGIS's code 1000, the
    /// domain named in the description); imports keep what the source holds.
    public static func coerce(_ value: JSONValue, for field: FieldDefinition, mode: Mode = .strict) throws(EditError) -> SQLValue {
        try coerce(value, for: field, domain: field.fieldDomain, mode: mode)
    }

    /// The same, checked against `domain` in place of the field's own (a subtype's).
    public static func coerce(
        _ value: JSONValue, for field: FieldDefinition, domain: FieldDomain?, mode: Mode = .strict
    ) throws(EditError) -> SQLValue {
        let converted = try convert(value, for: field, mode: mode)
        if mode == .strict, let domain, !domain.admits(converted) {
            throw EditError.invalid(domain.refusal(field: field.name, value: converted))
        }
        return converted
    }

    private static func convert(_ value: JSONValue, for field: FieldDefinition, mode: Mode) throws(EditError) -> SQLValue {
        if case .null = value {
            return .null
        }
        func mismatch() -> EditError {
            .invalid("Field '\(field.name)' expects \(field.type.shortName), got \(value.kindName).")
        }
        switch field.type {
        case .oid, .globalID:
            throw EditError.invalid("Field '\(field.name)' is maintained by the server.")
        case .integer, .smallInteger:
            var integer: Int64?
            switch value {
            case .int(let i): integer = i
            case .double(let d) where d == d.rounded() && abs(d) < 9e18: integer = Int64(d)
            case .bool(let b) where mode == .lenient: integer = b ? 1 : 0
            case .string(let s) where mode == .lenient: integer = Int64(s.trimmingWhitespace())
            default: integer = nil
            }
            guard let integer else { throw mismatch() }
            let range: ClosedRange<Int64> = field.type == .smallInteger ? -32768...32767 : Int64(Int32.min)...Int64(Int32.max)
            guard range.contains(integer) || mode == .lenient else {
                throw EditError.invalid("Field '\(field.name)' value \(integer) is out of range for \(field.type.shortName).")
            }
            return .integer(integer)
        case .double, .single:
            switch value {
            case .int(let i): return .real(Double(i))
            case .double(let d) where d.isFinite: return .real(d)
            case .string(let s) where mode == .lenient:
                guard let d = Double(s.trimmingWhitespace()), d.isFinite else { throw mismatch() }
                return .real(d)
            default: throw mismatch()
            }
        case .date:
            switch value {
            case .int(let i): return .integer(i)
            case .double(let d):
                // Infinite, NaN or beyond Int64 (`1e300`): not a date, and no trap converting it.
                guard let millis = Int64(exactly: d) else { throw mismatch() }
                return .integer(millis)
            case .string(let s):
                guard let millis = WhereDate.parse(s) else { throw mismatch() }
                return .integer(millis)
            default: throw mismatch()
            }
        case .string, .xml:
            let text: String
            switch value {
            case .string(let s): text = s
            case .int(let i) where mode == .lenient: text = String(i)
            case .double(let d) where mode == .lenient: text = d.description
            case .bool(let b) where mode == .lenient: text = b ? "true" : "false"
            case .array, .object: if mode == .lenient { text = value.jsonText } else { throw mismatch() }
            default: throw mismatch()
            }
            if let length = field.length, text.count > length {
                throw EditError.invalid("Field '\(field.name)' is longer than \(length) characters.")
            }
            return .text(text)
        case .guid:
            guard case .string(let s) = value, let normalized = GlobalID.normalize(s) else { throw mismatch() }
            return .text(normalized)
        case .blob:
            guard case .string(let s) = value, let bytes = Base64.decode(s) else { throw mismatch() }
            return .blob(bytes)
        }
    }
}

extension EsriFieldType {
    public var shortName: String {
        switch self {
        case .oid: "an object id"
        case .globalID: "a GlobalID"
        case .string: "a string"
        case .integer: "an integer"
        case .smallInteger: "a small integer"
        case .double, .single: "a number"
        case .date: "a date (epoch milliseconds)"
        case .guid: "a GUID"
        case .blob: "base64 data"
        case .xml: "XML text"
        }
    }
}

extension JSONValue {
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Base64 without Foundation (the wire module stays Foundation-free).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func decode(_ text: String) -> [UInt8]? {
        var lookup = [Int16](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { lookup[Int(c)] = Int16(i) }
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { break }
            if byte == 0x0A || byte == 0x0D || byte == 0x20 { continue }
            let value = lookup[Int(byte)]
            guard value >= 0 else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return output
    }
}
