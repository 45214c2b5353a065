/// A value bound to a statement parameter: text (PostgreSQL parses it as the parameter's
/// type), bytes (sent in binary: `bytea`, EWKB geometry) or NULL.
public enum PostgresValue: Sendable, Equatable {
    case null
    case text(String)
    case binary([UInt8])
}

/// What can be bound as a parameter.
public protocol PostgresEncodable: Sendable {
    var postgresValue: PostgresValue { get }
}

extension String: PostgresEncodable { public var postgresValue: PostgresValue { .text(self) } }
extension Substring: PostgresEncodable { public var postgresValue: PostgresValue { .text(String(self)) } }
extension Int: PostgresEncodable { public var postgresValue: PostgresValue { .text(String(self)) } }
extension Int64: PostgresEncodable { public var postgresValue: PostgresValue { .text(String(self)) } }
extension Int32: PostgresEncodable { public var postgresValue: PostgresValue { .text(String(self)) } }
extension Bool: PostgresEncodable { public var postgresValue: PostgresValue { .text(self ? "t" : "f") } }
extension Array: PostgresEncodable where Element == UInt8 { public var postgresValue: PostgresValue { .binary(self) } }
extension PostgresValue: PostgresEncodable { public var postgresValue: PostgresValue { self } }

extension Double: PostgresEncodable {
    /// The shortest text that reads back as the same double (Swift's description), with
    /// PostgreSQL's spellings of the non-finite values.
    public var postgresValue: PostgresValue {
        if isNaN { return .text("NaN") }
        if isInfinite { return .text(self < 0 ? "-Infinity" : "Infinity") }
        return .text(description)
    }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresValue: PostgresValue { self?.postgresValue ?? .null }
}

/// A `bigint[]` parameter (`= ANY($n)`).
public struct PostgresInt64Array: PostgresEncodable {
    public var values: [Int64]
    public init(_ values: [Int64]) { self.values = values }
    public var postgresValue: PostgresValue { .text("{" + values.map(String.init).joined(separator: ",") + "}") }
}

/// A `text[]` parameter, each element quoted and escaped as an array literal wants.
public struct PostgresTextArray: PostgresEncodable {
    public var values: [String]
    public init(_ values: [String]) { self.values = values }
    public var postgresValue: PostgresValue {
        let quoted = values.map { value in
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return .text("{" + quoted.joined(separator: ",") + "}")
    }
}

/// A statement and its parameters. Interpolated values become `$n` parameters, never SQL
/// text; identifiers the backend chose (a layer's table) go through `identifier:`, quoted.
public struct PostgresQuery: Sendable, ExpressibleByStringInterpolation {
    public var sql: String
    public var binds: [PostgresValue]

    /// SQL written by the backend with its own `$n` placeholders.
    public init(unsafeSQL sql: String, binds: [PostgresValue] = []) {
        self.sql = sql
        self.binds = binds
    }

    public init(stringLiteral value: String) { self.init(unsafeSQL: value) }

    /// SQL written with `?` placeholders (the where compiler's, shared with SQLite), numbered
    /// `$1…` here. A `?` inside a quoted identifier or string constant is left as it is.
    public init(questionMarks sql: String, binds: [PostgresValue]) {
        var numbered = ""
        numbered.reserveCapacity(sql.utf8.count + binds.count * 2)
        var quote: Character?
        var count = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "?" {
                count += 1
                numbered += "$\(count)"
                continue
            }
            numbered.append(character)
        }
        self.init(unsafeSQL: numbered, binds: binds)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// `"name"` with inner quotes doubled.
    public static func quoted(identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var binds: [PostgresValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            binds.append(value.postgresValue)
            sql += "$\(binds.count)"
        }

        /// A value or NULL (spelled out so an optional is bound, not described).
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(value.postgresValue)
            sql += "$\(binds.count)"
        }

        public mutating func appendInterpolation(identifier: String) { sql += PostgresQuery.quoted(identifier: identifier) }

        /// SQL the backend wrote itself (a constant expression), never a user's text.
        public mutating func appendInterpolation(unescaped fragment: String) { sql += fragment }
    }
}
