import OutpostWire

/// Turns a `where` (or a `having`) into SQL over a layer's columns, in a backend's dialect.
///
/// The clause is checked first (`WhereValidator`: its names, functions, nesting — the same
/// refusals on every backend), then emitted. Only resolved column identifiers and SQL produced
/// here or by the dialect reach the statement: string literals are bound, numbers are
/// formatted by Swift, and functions come from a fixed list.
public enum WhereCompiler {
    public typealias Resolver = (String) -> WhereColumn?

    /// Compiles a parsed `where`.
    public static func compile(
        _ expression: WhereExpression, columns resolve: @escaping Resolver, dialect: some WhereDialect
    )
        throws(WhereClauseError) -> SQLFragment
    {
        try WhereValidator.validate(expression, fields: { resolve($0)?.type })
        return try emit(expression, columns: resolve, dialect: dialect, allowingAggregates: false)
    }

    /// Parses and compiles a `where`.
    public static func compile(
        where text: String, columns resolve: @escaping Resolver, dialect: some WhereDialect
    )
        throws(WhereClauseError) -> SQLFragment
    {
        let expression = try WhereValidator.parse(where: text, fields: { resolve($0)?.type })
        return try emit(expression, columns: resolve, dialect: dialect, allowingAggregates: false)
    }

    /// Parses and compiles a `having`: a `where` that may also aggregate columns.
    public static func compile(
        having text: String, columns resolve: @escaping Resolver, dialect: some WhereDialect
    )
        throws(WhereClauseError) -> SQLFragment
    {
        let expression = try WhereValidator.parse(having: text, fields: { resolve($0)?.type })
        return try emit(expression, columns: resolve, dialect: dialect, allowingAggregates: true)
    }

    private static func emit(
        _ expression: WhereExpression, columns resolve: @escaping Resolver, dialect: some WhereDialect, allowingAggregates: Bool
    ) throws(WhereClauseError) -> SQLFragment {
        var emitter = WhereEmitter(resolve: resolve, dialect: dialect, allowsAggregates: allowingAggregates)
        let sql = try emitter.emit(expression)
        return SQLFragment(sql: sql, arguments: emitter.arguments)
    }

    /// The scalar functions every dialect spells alike, by their ArcGIS names.
    static let functions: [String: String] = [
        "UPPER": "upper", "LOWER": "lower", "TRIM": "trim", "LTRIM": "ltrim", "RTRIM": "rtrim",
        "CHAR_LENGTH": "length", "CHARACTER_LENGTH": "length", "LENGTH": "length", "LEN": "length",
        "ABS": "abs", "CEILING": "ceil", "CEIL": "ceil", "FLOOR": "floor", "POWER": "pow", "SQRT": "sqrt",
        "COALESCE": "coalesce", "NULLIF": "nullif", "LOG": "ln", "LOG10": "log10", "EXP": "exp",
        "SIN": "sin", "COS": "cos", "TAN": "tan",
    ]
}

/// One clause's emission, after `WhereValidator` took it: the SQL and the values it binds.
struct WhereEmitter<Dialect: WhereDialect> {
    let resolve: WhereCompiler.Resolver
    let dialect: Dialect
    /// `having` clauses may use aggregates of a column; `where` clauses may not.
    let allowsAggregates: Bool
    private(set) var arguments: [SQLValue] = []

    init(resolve: @escaping WhereCompiler.Resolver, dialect: Dialect, allowsAggregates: Bool) {
        self.resolve = resolve
        self.dialect = dialect
        self.allowsAggregates = allowsAggregates
    }

    /// The Esri type an expression has when it is a bare column, for literal coercion.
    private func columnType(_ expression: WhereExpression) -> EsriFieldType? {
        if case .column(let name) = expression { return resolve(name)?.type }
        return nil
    }

    mutating func emit(_ expression: WhereExpression, hint: EsriFieldType? = nil) throws(WhereClauseError) -> String {
        switch expression {
        case .column(let name):
            guard let column = resolve(name) else { throw .unknownField(name) }
            return column.sql
        case .literal(let literal):
            return emitLiteral(literal, hint: hint)
        case .not(let inner):
            return "(NOT \(try emit(inner)))"
        case .negate(let inner):
            // A space after the sign: a negative operand must not make `--`, which opens a comment.
            return "(- \(try emit(inner)))"
        case .binary(let op, let lhs, let rhs):
            return "(\(try emitChain(op, lhs, rhs)))"
        case .like(let value, let pattern, let escape, let negated):
            var sql = "(\(try emit(value)) \(negated ? "NOT " : "")\(dialect.caseInsensitiveLike) \(try emit(pattern))"
            if let escape { sql += " ESCAPE \(try emit(escape))" }
            return sql + ")"
        case .inList(let value, let items, let negated):
            let hint = columnType(value)
            var parts: [String] = []
            parts.reserveCapacity(items.count)
            for item in items { parts.append(try emit(item, hint: hint)) }
            return "(\(try emit(value)) \(negated ? "NOT IN" : "IN") (\(parts.joined(separator: ","))))"
        case .between(let value, let low, let high, let negated):
            let hint = columnType(value)
            return "(\(try emit(value)) \(negated ? "NOT BETWEEN" : "BETWEEN") \(try emit(low, hint: hint)) AND \(try emit(high, hint: hint)))"
        case .isNull(let value, let negated):
            return "(\(try emit(value)) \(negated ? "IS NOT NULL" : "IS NULL"))"
        case .cast(let value, let type):
            return "CAST(\(try emit(value)) AS \(dialect.castType(type)))"
        case .extract(let part, let value):
            return dialect.extract(part, fromMilliseconds: try emit(value))
        case .function(let name, let arguments):
            return try emitFunction(name, arguments)
        }
    }

    /// `lhs op rhs` without outer parentheses. A chain of one left-associative operator is
    /// emitted flat: the same meaning, and SQLite's parser stack stays shallow however long
    /// the chain is. SQLite still builds a chain as a tree as deep as it is long (and refuses
    /// one deeper than its 1,000 levels, as PostgreSQL's stack does long before 64 KiB of
    /// `OR`s): a long chain goes in parenthesised runs of at most `chainRun` operands, one level
    /// of parentheses, its tree as deep as a run plus the number of runs.
    private mutating func emitChain(
        _ op: WhereExpression.BinaryOperator, _ lhs: WhereExpression, _ rhs: WhereExpression
    )
        throws(WhereClauseError) -> String
    {
        if op.isComparison {
            return "\(try emit(lhs, hint: columnType(rhs))) \(op.rawValue) \(try emit(rhs, hint: columnType(lhs)))"
        }
        var emitted: [String] = []
        for operand in WhereExpression.chain(op, lhs, rhs) { emitted.append(try emit(operand)) }
        let separator = " \(op.rawValue) "
        let run = WhereValidator.chainRun
        guard emitted.count > run else { return emitted.joined(separator: separator) }
        return stride(from: 0, to: emitted.count, by: run).map { start in
            "(" + emitted[start..<min(start + run, emitted.count)].joined(separator: separator) + ")"
        }.joined(separator: separator)
    }

    private mutating func emitLiteral(_ literal: WhereLiteral, hint: EsriFieldType?) -> String {
        switch literal {
        case .null: return "NULL"
        case .boolean(let b): return b ? "1" : "0"
        case .integer(let i): return String(i)
        case .real(let d): return d.description
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

    /// Names and argument counts were checked (`WhereValidator.functions`, `.aggregates`).
    private mutating func emitFunction(_ name: String, _ arguments: [WhereExpression]) throws(WhereClauseError) -> String {
        var emitted: [String] = []
        for argument in arguments { emitted.append(try emit(argument)) }
        switch (name, emitted.count) {
        case ("CURRENT_DATE", 0): return dialect.currentDate
        case ("CURRENT_TIMESTAMP", 0), ("NOW", 0): return dialect.currentTimestamp
        case ("ROUND", 1...2): return dialect.round(emitted[0], places: emitted.count == 2 ? emitted[1] : nil)
        case ("SUBSTRING", 2...3), ("SUBSTR", 2...3): return "substr(\(emitted.joined(separator: ", ")))"
        case ("CONCAT", 2...16): return "(" + emitted.map { "coalesce(\($0), '')" }.joined(separator: " || ") + ")"
        case ("POSITION", 2): return dialect.position(of: emitted[0], in: emitted[1])
        case ("MOD", 2): return "(\(emitted[0]) % \(emitted[1]))"
        default:
            if allowsAggregates, WhereValidator.aggregates.contains(name), let statistic = OutStatistic.Kind(rawValue: name.lowercased()),
                emitted.count == 1, case .column = arguments[0]
            {
                return "\(dialect.aggregate(statistic))(\(emitted[0]))"
            }
            guard let function = WhereCompiler.functions[name], WhereValidator.functions[name]?.contains(emitted.count) == true else {
                throw .unsupportedFunction(name)
            }
            return "\(function)(\(emitted.joined(separator: ", ")))"
        }
    }
}
