import Foundation
import OutpostWire

/// A field's value, typed by the field: what `Feature` holds instead of the wire's JSON
/// (dates are `Date`s, not epoch milliseconds; GUIDs and GlobalIDs are their braced text).
public enum AttributeValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByNilLiteral
{
    case null
    case string(String)
    case integer(Int64)
    case double(Double)
    case date(Date)
    case guid(String)
    case blob(Data)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }

    public var isNull: Bool { self == .null }
    /// Text, GUID and GlobalID values.
    public var stringValue: String? {
        switch self {
        case .string(let text), .guid(let text): text
        default: nil
        }
    }
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// Doubles, and integers widened.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    public var dateValue: Date? { if case .date(let value) = self { value } else { nil } }

    /// The value of a field of this type, from its JSON (dates from epoch milliseconds).
    init(json: JSONValue, type: EsriFieldType?) {
        switch (json, type) {
        case (.null, _): self = .null
        case (.int(let milliseconds), .date): self = .date(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        case (.double(let milliseconds), .date): self = .date(Date(timeIntervalSince1970: milliseconds / 1000))
        case (.string(let text), .guid), (.string(let text), .globalID): self = .guid(text)
        case (.string(let text), .blob): self = Data(base64Encoded: text).map(AttributeValue.blob) ?? .string(text)
        case (.string(let text), _): self = .string(text)
        case (.int(let value), .double), (.int(let value), .single): self = .double(Double(value))
        case (.int(let value), _): self = .integer(value)
        case (.double(let value), .oid), (.double(let value), .integer), (.double(let value), .smallInteger):
            self = value.rounded() == value ? .integer(Int64(value)) : .double(value)
        case (.double(let value), _): self = .double(value)
        case (.bool(let flag), _): self = .integer(flag ? 1 : 0)
        default: self = .string(json.jsonText)
        }
    }

    /// The wire's JSON (dates as epoch milliseconds, blobs as base64).
    var json: JSONValue {
        switch self {
        case .null: .null
        case .string(let text), .guid(let text): .string(text)
        case .integer(let value): .int(value)
        case .double(let value): .double(value)
        case .date(let date): .int(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .blob(let data): .string(data.base64EncodedString())
        }
    }
}
