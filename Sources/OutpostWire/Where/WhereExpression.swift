/// The syntax tree of an ArcGIS `where` clause (the standardized SQL-92 subset).
///
/// A `where` is never pasted into SQL: it is parsed into this tree, every identifier is
/// resolved against the layer's fields, and `WhereCompiler` emits SQL with bound values.
public indirect enum WhereExpression: Sendable, Equatable {
    case column(String)
    case literal(WhereLiteral)
    case not(WhereExpression)
    case negate(WhereExpression)
    case binary(BinaryOperator, WhereExpression, WhereExpression)
    case like(WhereExpression, pattern: WhereExpression, escape: WhereExpression?, negated: Bool)
    case inList(WhereExpression, [WhereExpression], negated: Bool)
    case between(WhereExpression, WhereExpression, WhereExpression, negated: Bool)
    case isNull(WhereExpression, negated: Bool)
    case function(String, [WhereExpression])
    case cast(WhereExpression, CastType)
    case extract(DatePart, WhereExpression)

    public enum BinaryOperator: String, Sendable, Equatable {
        case and = "AND", or = "OR"
        case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case add = "+", subtract = "-", multiply = "*", divide = "/", modulo = "%", concatenate = "||"

        public var isComparison: Bool {
            switch self {
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: true
            default: false
            }
        }
    }

    public enum CastType: String, Sendable, Equatable {
        case integer = "INTEGER", real = "REAL", text = "TEXT"
    }

    public enum DatePart: String, Sendable, Equatable, CaseIterable {
        case year = "YEAR", month = "MONTH", day = "DAY", hour = "HOUR", minute = "MINUTE", second = "SECOND"
    }
}

extension WhereExpression {
    /// Why a LIKE's `ESCAPE` operand is refused, nil when it is taken: one character in quotes
    /// (SQL-92), or NULL (the LIKE is then unknown on both databases). SQLite and PostgreSQL
    /// refuse another length only while running, a 500, and PostgreSQL reads '' as "no
    /// escape" where SQLite fails; a column or an expression could be any length.
    public static func escapeProblem(_ escape: WhereExpression) -> String? {
        switch escape {
        case .literal(.null): nil
        // Code points, as both databases count characters ('é' composed is one, decomposed two).
        case .literal(.string(let text)) where text.unicodeScalars.count == 1: nil
        case .literal(.string(let text)):
            "ESCAPE takes one character, not \(text.unicodeScalars.count) ('\(text.prefix(20))')"
        default: "ESCAPE takes one character in quotes ('!')"
        }
    }
}

public enum WhereLiteral: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case string(String)
    /// A `DATE '…'` or `TIMESTAMP '…'` literal, as epoch milliseconds UTC.
    case date(Int64)
    case boolean(Bool)
}
