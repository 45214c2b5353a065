/// A field's attribute domain, as ArcGIS describes it in a layer's field list: a coded-value
/// domain (a pick list) or a range domain. The JSON is kept as given (`FieldDefinition.domain`);
/// this is its meaning (`FieldDefinition.fieldDomain`), which edits are checked against
/// (`FieldValue.coerce`).
///
/// `{"type":"codedValue","name":"Material","codedValues":[{"name":"Aluminum","code":"AL"}]}`,
/// `{"type":"range","name":"Measured Length","range":[1,10000]}` (bounds inclusive).
public enum FieldDomain: Sendable, Equatable {
    case codedValue(name: String, codes: [CodedValue])
    case range(name: String, minimum: Double, maximum: Double)

    public struct CodedValue: Sendable, Equatable {
        public var name: String
        /// A string, or a number for numeric and date fields.
        public var code: JSONValue

        public init(name: String, code: JSONValue) {
            self.name = name
            self.code = code
        }
    }

    /// The domain `json` describes; nil for `null` or a shape that is not a domain.
    public init?(json: JSONValue) {
        guard case .object = json, let name = json["name"]?.stringValue else { return nil }
        switch json["type"]?.stringValue {
        case "codedValue":
            guard let items = json["codedValues"]?.arrayValue else { return nil }
            var codes: [CodedValue] = []
            for item in items {
                guard let code = item["code"] else { return nil }
                switch code {
                case .string, .int, .double: break
                default: return nil
                }
                codes.append(CodedValue(name: item["name"]?.stringValue ?? code.jsonText, code: code))
            }
            self = .codedValue(name: name, codes: codes)
        case "range":
            guard let bounds = json["range"]?.arrayValue, bounds.count == 2, let minimum = bounds[0].doubleValue,
                let maximum = bounds[1].doubleValue, minimum <= maximum
            else { return nil }
            self = .range(name: name, minimum: minimum, maximum: maximum)
        default:
            return nil
        }
    }

    public var name: String {
        switch self {
        case .codedValue(let name, _), .range(let name, _, _): name
        }
    }

    /// ArcGIS's JSON for the domain.
    public var json: JSONValue {
        switch self {
        case .codedValue(let name, let codes):
            .object([
                "type": "codedValue", "name": .string(name),
                "codedValues": .array(codes.map { .object(["name": .string($0.name), "code": $0.code]) }),
            ])
        case .range(let name, let minimum, let maximum):
            .object(["type": "range", "name": .string(name), "range": .array([Self.number(minimum), Self.number(maximum)])])
        }
    }

    /// Whether a stored value is in the domain. NULL always is: whether a field may be empty
    /// is its nullability, not its domain.
    public func admits(_ value: SQLValue) -> Bool {
        switch (self, value) {
        case (_, .null): true
        case (.codedValue(_, let codes), .integer(let integer)): codes.contains { $0.code.doubleValue == Double(integer) }
        case (.codedValue(_, let codes), .real(let real)): codes.contains { $0.code.doubleValue == real }
        case (.codedValue(_, let codes), .text(let text)): codes.contains { $0.code.stringValue == text }
        case (.codedValue, .blob): false
        case (.range(_, let minimum, let maximum), .integer(let integer)): (minimum...maximum).contains(Double(integer))
        case (.range(_, let minimum, let maximum), .real(let real)): (minimum...maximum).contains(real)
        case (.range, .text), (.range, .blob): false
        }
    }

    /// Why `value` is refused: ArcGIS's words for the edit result.
    public func refusal(field: String, value: SQLValue) -> String {
        switch self {
        case .codedValue(let name, _):
            "Field '\(field)': \(value.displayText) is not a code of the domain '\(name)'."
        case .range(let name, let minimum, let maximum):
            "Field '\(field)': \(value.displayText) is outside the range domain '\(name)' [\(Self.number(minimum).jsonText), \(Self.number(maximum).jsonText)]."
        }
    }

    static func number(_ value: Double) -> JSONValue {
        value == value.rounded() && abs(value) < 9e15 ? .int(Int64(value)) : .double(value)
    }
}

extension SQLValue {
    /// The value as an edit result quotes it.
    var displayText: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): Double(value).description
        case .text(let value): "'\(value)'"
        case .blob(let bytes): "a blob of \(bytes.count) bytes"
        }
    }
}
