/// A value bound to a statement parameter.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// SQL text with `?` placeholders and the values to bind to them, in order.
public struct SQLFragment: Sendable, Equatable {
    public var sql: String
    public var arguments: [SQLValue]

    public init(sql: String, arguments: [SQLValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}

/// A layer column a `where` may name: its SQL spelling and its Esri type.
public struct WhereColumn: Sendable, Equatable {
    public var sql: String
    public var type: EsriFieldType

    public init(sql: String, type: EsriFieldType) {
        self.sql = sql
        self.type = type
    }
}

/// The SQL a backend speaks: where SQLite and PostgreSQL differ, the compiler emits each its
/// own spelling of the same meaning (docs/postgres.md, "Queries").
public enum WhereDialect: Sendable, Equatable {
    case sqlite
    case postgres
}

/// Turns a parsed `where` into SQL over a layer's columns, SQLite's by default.
///
/// Only resolved column identifiers and SQL produced here reach the statement: string
/// literals are bound, numbers are formatted by Swift, and functions come from a fixed list.
public struct WhereCompiler {
    public typealias Resolver = (String) -> WhereColumn?

    private let resolve: Resolver
    private let dialect: WhereDialect
    private var arguments: [SQLValue] = []
    /// `having` clauses may use aggregates of a column; `where` clauses may not.
    private var allowsAggregates = false
    /// Parser stack entries the expression being emitted sits under.
    private var parserCost = 0

    /// Aggregates a `having` may use, and the SQL function computing each (`stddev` and
    /// `var` are the store's sample statistics).
    public static let aggregates: [String: String] = [
        "COUNT": "count", "SUM": "sum", "MIN": "min", "MAX": "max", "AVG": "avg",
        "STDDEV": "outpost_stddev", "VAR": "outpost_var",
    ]

    /// How much of SQLite's parser stack (100 entries in the SQLite this runs on; it fails
    /// with "parser stack overflow") the emitted clause may take. Each construct nests its
    /// operands under a measured number of entries (`a OR (…)`: 3, `BETWEEN … AND (…)`: 5,
    /// `NOT (…)`: 2); the rest is left for the query, replica filter or `CASE WHEN` the clause
    /// is embedded in.
    public static let maximumParserCost = 60

    public static func compile(
        _ expression: WhereExpression, columns resolve: @escaping Resolver, dialect: WhereDialect = .sqlite
    ) throws(ArcGISError) -> SQLFragment {
        try compile(expression, columns: resolve, dialect: dialect, allowingAggregates: false)
    }

    /// Parses and compiles; parse errors become an ArcGIS invalid-query error.
    public static func compile(
        where text: String, columns resolve: @escaping Resolver, dialect: WhereDialect = .sqlite
    ) throws(ArcGISError) -> SQLFragment {
        try compile(try parse(text, parameter: "where"), columns: resolve, dialect: dialect, allowingAggregates: false)
    }

    /// Parses and compiles a `having` clause: a `where` that may also aggregate columns.
    public static func compile(
        having text: String, columns resolve: @escaping Resolver, dialect: WhereDialect = .sqlite
    ) throws(ArcGISError) -> SQLFragment {
        try compile(try parse(text, parameter: "having"), columns: resolve, dialect: dialect, allowingAggregates: true)
    }

    /// The aggregate functions of a dialect (`aggregates` is SQLite's).
    public static func aggregates(_ dialect: WhereDialect) -> [String: String] {
        switch dialect {
        case .sqlite: aggregates
        case .postgres: aggregates.merging(["STDDEV": "stddev_samp", "VAR": "var_samp"]) { $1 }
        }
    }

    private static func parse(_ text: String, parameter: String) throws(ArcGISError) -> WhereExpression {
        do {
            return try WhereParser.parse(text)
        } catch {
            throw .invalidQuery("'\(parameter)' parameter is invalid: \(error.description)")
        }
    }

    private static func compile(
        _ expression: WhereExpression, columns resolve: @escaping Resolver, dialect: WhereDialect, allowingAggregates: Bool
    )
        throws(ArcGISError) -> SQLFragment
    {
        var compiler = WhereCompiler(resolve: resolve, dialect: dialect)
        compiler.allowsAggregates = allowingAggregates
        let sql = try compiler.emit(expression)
        return SQLFragment(sql: sql, arguments: compiler.arguments)
    }

    private init(resolve: @escaping Resolver, dialect: WhereDialect) {
        self.resolve = resolve
        self.dialect = dialect
    }

    /// The Esri type an expression has when it is a bare column, for literal coercion.
    private func columnType(_ expression: WhereExpression) -> EsriFieldType? {
        if case .column(let name) = expression { return resolve(name)?.type }
        return nil
    }

    /// - Parameter cost: the parser stack entries this operand sits under inside its parent.
    private mutating func emit(_ expression: WhereExpression, hint: EsriFieldType? = nil, under cost: Int = 1) throws(ArcGISError) -> String {
        parserCost += cost
        defer { parserCost -= cost }
        if parserCost > Self.maximumParserCost {
            throw .invalidQuery("'where' parameter is invalid: nested too deeply for the database (simplify the clause)")
        }
        switch expression {
        case .column(let name):
            guard let column = resolve(name) else {
                throw .invalidQuery("'where' parameter is invalid: unknown field '\(name)'")
            }
            return column.sql
        case .literal(let literal):
            return try emitLiteral(literal, hint: hint)
        case .not(let inner):
            return "(NOT \(try emit(inner, under: 2)))"
        case .negate(let inner):
            return "(-\(try emit(inner, under: 2)))"
        case .binary(let op, let lhs, let rhs):
            return "(\(try emitChain(op, lhs, rhs)))"
        case .like(let value, let pattern, let escape, let negated):
            // SQLite's LIKE ignores ASCII case; PostgreSQL's ILIKE gives the same answers.
            let like = dialect == .postgres ? "ILIKE" : "LIKE"
            // SQLite refuses a pattern past 50,000 bytes (a 500, before this): a clear 400 first.
            if case .literal(.string(let text)) = pattern, text.utf8.count > Self.maximumLikePattern {
                throw .invalidQuery("'where' parameter is invalid: a LIKE pattern is longer than \(Self.maximumLikePattern) bytes")
            }
            var sql = "(\(try emit(value)) \(negated ? "NOT " : "")\(like) \(try emit(pattern, under: 3))"
            if let escape {
                // Trees not built by the parser are held to the same rule.
                if let problem = WhereExpression.escapeProblem(escape) { throw .invalidQuery("'where' parameter is invalid: \(problem)") }
                sql += " ESCAPE \(try emit(escape, under: 5))"
            }
            return sql + ")"
        case .inList(let value, let items, let negated):
            let hint = columnType(value)
            var parts: [String] = []
            parts.reserveCapacity(items.count)
            for item in items { parts.append(try emit(item, hint: hint, under: 4)) }
            return "(\(try emit(value)) \(negated ? "NOT IN" : "IN") (\(parts.joined(separator: ","))))"
        case .between(let value, let low, let high, let negated):
            let hint = columnType(value)
            return
                "(\(try emit(value)) \(negated ? "NOT BETWEEN" : "BETWEEN") \(try emit(low, hint: hint, under: 3)) AND \(try emit(high, hint: hint, under: 5)))"
        case .isNull(let value, let negated):
            return "(\(try emit(value)) \(negated ? "IS NOT NULL" : "IS NULL"))"
        case .cast(let value, let type):
            let name =
                dialect == .postgres && type == .real ? "double precision" : dialect == .postgres && type == .integer ? "bigint" : type.rawValue
            return "CAST(\(try emit(value, under: 2)) AS \(name))"
        case .extract(let part, let value):
            let format =
                switch part {
                case .year: "%Y"
                case .month: "%m"
                case .day: "%d"
                case .hour: "%H"
                case .minute: "%M"
                case .second: "%S"
                }
            if dialect == .postgres {
                return
                    "CAST(floor(EXTRACT(\(part.rawValue) FROM to_timestamp((\(try emit(value, under: 7))) / 1000.0) AT TIME ZONE 'UTC')) AS bigint)"
            }
            return "CAST(strftime('\(format)', (\(try emit(value, under: 7))) / 1000, 'unixepoch') AS INTEGER)"
        case .function(let name, let args):
            return try emitFunction(name, args)
        }
    }

    /// `lhs op rhs` without outer parentheses. A left operand with the same left-associative
    /// operator (`a OR b OR c` parses as `(a OR b) OR c`) is emitted as a flat chain: the
    /// same meaning, and SQLite's parser stack stays shallow however long the chain is. SQLite
    /// still builds a chain as a tree as deep as it is long (and refuses one deeper than its
    /// 1,000 levels, as PostgreSQL's stack does long before 64 KiB of `OR`s): a long chain goes
    /// in parenthesised runs of at most `chainRun` operands, one level of parentheses, its tree
    /// as deep as a run plus the number of runs.
    private mutating func emitChain(
        _ op: WhereExpression.BinaryOperator, _ lhs: WhereExpression, _ rhs: WhereExpression
    )
        throws(ArcGISError) -> String
    {
        if op.isComparison {
            return "\(try emit(lhs, hint: columnType(rhs))) \(op.rawValue) \(try emit(rhs, hint: columnType(lhs), under: 3))"
        }
        // The chain's operands, left to right, found down its left spine without recursion.
        var operands = [rhs]
        var left = lhs
        while case .binary(let inner, let innerLHS, let innerRHS) = left, inner == op {
            operands.append(innerRHS)
            left = innerLHS
        }
        operands.append(left)
        operands.reverse()
        // In runs, each operand also sits under its run's parenthesis.
        let inRuns = operands.count > Self.chainRun ? 2 : 0
        var emitted: [String] = []
        for (index, operand) in operands.enumerated() { emitted.append(try emit(operand, under: (index == 0 ? 1 : 3) + inRuns)) }
        let separator = " \(op.rawValue) "
        guard emitted.count > Self.chainRun else { return emitted.joined(separator: separator) }
        return stride(from: 0, to: emitted.count, by: Self.chainRun).map { start in
            "(" + emitted[start..<min(start + Self.chainRun, emitted.count)].joined(separator: separator) + ")"
        }.joined(separator: separator)
    }

    /// The longest `LIKE` pattern taken, in bytes (SQLite's own limit is 50,000).
    public static let maximumLikePattern = 10_000

    /// Operands of one `AND` or `OR` chain emitted flat before they go in parenthesised runs.
    static let chainRun = 256

    private mutating func emitLiteral(_ literal: WhereLiteral, hint: EsriFieldType?) throws(ArcGISError) -> String {
        switch literal {
        case .null: return "NULL"
        case .boolean(let b): return b ? "1" : "0"
        case .integer(let i): return String(i)
        case .real(let d):
            guard d.isFinite else { throw .invalidQuery("'where' parameter is invalid: number out of range") }
            return d.description
        case .date(let millis): return String(millis)
        case .string(let text):
            switch hint {
            case .date:
                // ArcGIS accepts `date_field > '2020-01-01'` on many back ends; read it as a date.
                if let millis = WhereDate.parse(text) { return String(millis) }
                arguments.append(.text(text))
            case .globalID, .guid:
                arguments.append(.text(GlobalID.normalize(text) ?? text))
            default:
                arguments.append(.text(text))
            }
            return "?"
        }
    }

    private static let functions: [String: (sql: String, arity: ClosedRange<Int>)] = [
        "UPPER": ("upper", 1...1), "LOWER": ("lower", 1...1), "TRIM": ("trim", 1...1),
        "LTRIM": ("ltrim", 1...1), "RTRIM": ("rtrim", 1...1),
        "CHAR_LENGTH": ("length", 1...1), "CHARACTER_LENGTH": ("length", 1...1), "LENGTH": ("length", 1...1),
        "LEN": ("length", 1...1),
        "ABS": ("abs", 1...1), "CEILING": ("ceil", 1...1), "CEIL": ("ceil", 1...1), "FLOOR": ("floor", 1...1),
        "ROUND": ("round", 1...2), "POWER": ("pow", 2...2), "SQRT": ("sqrt", 1...1),
        "COALESCE": ("coalesce", 2...16), "NULLIF": ("nullif", 2...2),
        "LOG": ("ln", 1...1), "LOG10": ("log10", 1...1), "EXP": ("exp", 1...1),
        "SIN": ("sin", 1...1), "COS": ("cos", 1...1), "TAN": ("tan", 1...1),
    ]

    private mutating func emitFunction(_ name: String, _ args: [WhereExpression]) throws(ArcGISError) -> String {
        func arity(_ range: ClosedRange<Int>) throws(ArcGISError) {
            guard range.contains(args.count) else {
                throw .invalidQuery(
                    "'where' parameter is invalid: \(name) takes \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)") argument(s)"
                )
            }
        }
        var emitted: [String] = []
        for arg in args { emitted.append(try emit(arg, under: 4)) }
        switch name {
        case "CURRENT_DATE":
            try arity(0...0)
            if dialect == .postgres { return "(CAST(extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC')) AS bigint) * 1000)" }
            return "(CAST(strftime('%s', 'now', 'start of day') AS INTEGER) * 1000)"
        case "CURRENT_TIMESTAMP", "NOW":
            try arity(0...0)
            if dialect == .postgres { return "CAST(floor(extract(epoch FROM now()) * 1000) AS bigint)" }
            return "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        case "ROUND" where dialect == .postgres:
            // PostgreSQL rounds to places only numerics; the answer is read back as a number.
            try arity(1...2)
            return "CAST(round(CAST(\(emitted[0]) AS numeric)\(emitted.count == 2 ? ", CAST(\(emitted[1]) AS integer)" : "")) AS double precision)"
        case "SUBSTRING", "SUBSTR":
            try arity(2...3)
            return "substr(\(emitted.joined(separator: ", ")))"
        case "CONCAT":
            try arity(2...16)
            return "(" + emitted.map { "coalesce(\($0), '')" }.joined(separator: " || ") + ")"
        case "POSITION":
            try arity(2...2)
            return dialect == .postgres ? "strpos(\(emitted[1]), \(emitted[0]))" : "instr(\(emitted[1]), \(emitted[0]))"
        case "MOD":
            try arity(2...2)
            return "(\(emitted[0]) % \(emitted[1]))"
        default:
            if allowsAggregates, let aggregate = Self.aggregates(dialect)[name] {
                // An aggregate of one column: nesting aggregates or aggregating expressions is refused.
                guard args.count == 1, case .column = args[0] else {
                    throw .invalidQuery("'having' parameter is invalid: \(name) takes one field")
                }
                return "\(aggregate)(\(emitted[0]))"
            }
            guard let function = Self.functions[name] else {
                throw .invalidQuery("'where' parameter is invalid: unsupported function \(name)")
            }
            try arity(function.arity)
            return "\(function.sql)(\(emitted.joined(separator: ", ")))"
        }
    }
}
