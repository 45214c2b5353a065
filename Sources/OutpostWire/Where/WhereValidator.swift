/// Checks a parsed `where` or `having` against a layer's fields before any SQL is made: every
/// name a field, every function one the backends offer with a number of arguments it takes,
/// aggregates only in a `having` and only of one field, LIKE patterns and escapes the
/// databases take, finite numbers, and operands nested no deeper than the databases' parsers
/// take. What passes, each backend's compiler emits (`WhereCompiler` in `OutpostWhereSQL`);
/// what fails is refused alike on every backend and by the replica planner, which makes no SQL.
public struct WhereValidator {
    /// A field's type by the name a clause uses (any case), nil for no such field.
    public typealias FieldTypes = (String) -> EsriFieldType?

    /// How much of SQLite's parser stack (100 entries in the SQLite this runs on; it fails
    /// with "parser stack overflow") the compiled clause may take. Each construct nests its
    /// operands under a measured number of entries (`a OR (…)`: 3, `BETWEEN … AND (…)`: 5,
    /// `NOT (…)`: 2); the rest is left for the query, replica filter or `CASE WHEN` the clause
    /// is embedded in. PostgreSQL's parser takes far more.
    public static let maximumNestingCost = 60

    /// The longest `LIKE` pattern taken, in bytes (SQLite's own limit is 50,000).
    public static let maximumLikePattern = 10_000

    /// Operands of one `AND` or `OR` chain a compiler emits flat before it groups them in
    /// parenthesised runs (a chain's tree is as deep as it is long in SQLite, which refuses
    /// one deeper than 1,000 levels); a run's parenthesis counts in the nesting.
    public static let chainRun = 256

    /// The scalar functions a clause may call and how many arguments each takes.
    public static let functions: [String: ClosedRange<Int>] = [
        "UPPER": 1...1, "LOWER": 1...1, "TRIM": 1...1, "LTRIM": 1...1, "RTRIM": 1...1,
        "CHAR_LENGTH": 1...1, "CHARACTER_LENGTH": 1...1, "LENGTH": 1...1, "LEN": 1...1,
        "ABS": 1...1, "CEILING": 1...1, "CEIL": 1...1, "FLOOR": 1...1, "ROUND": 1...2, "POWER": 2...2, "SQRT": 1...1,
        "COALESCE": 2...16, "NULLIF": 2...2, "LOG": 1...1, "LOG10": 1...1, "EXP": 1...1, "SIN": 1...1, "COS": 1...1, "TAN": 1...1,
        "CURRENT_DATE": 0...0, "CURRENT_TIMESTAMP": 0...0, "NOW": 0...0, "SUBSTRING": 2...3, "SUBSTR": 2...3,
        "CONCAT": 2...16, "POSITION": 2...2, "MOD": 2...2,
    ]

    /// The aggregates a `having` may apply to one field: the statistics (`COUNT`, `SUM`, …).
    public static let aggregates = Set(OutStatistic.Kind.allCases.map { $0.rawValue.uppercased() })

    private let fieldType: FieldTypes
    private let allowsAggregates: Bool
    /// Parser stack entries the operand being checked sits under.
    private var nestingCost = 0

    private init(fieldType: @escaping FieldTypes, allowsAggregates: Bool) {
        self.fieldType = fieldType
        self.allowsAggregates = allowsAggregates
    }

    /// Checks a parsed clause; a `having` (`allowingAggregates`) may also aggregate fields.
    public static func validate(
        _ expression: WhereExpression, fields: @escaping FieldTypes, allowingAggregates: Bool = false
    )
        throws(WhereClauseError)
    {
        var validator = WhereValidator(fieldType: fields, allowsAggregates: allowingAggregates)
        try validator.check(expression)
    }

    /// Parses and checks a `where`.
    public static func parse(where text: String, fields: @escaping FieldTypes) throws(WhereClauseError) -> WhereExpression {
        let expression = try parse(text)
        try validate(expression, fields: fields)
        return expression
    }

    /// Parses and checks a `having`: a `where` that may also aggregate fields.
    public static func parse(having text: String, fields: @escaping FieldTypes) throws(WhereClauseError) -> WhereExpression {
        let expression = try parse(text)
        try validate(expression, fields: fields, allowingAggregates: true)
        return expression
    }

    private static func parse(_ text: String) throws(WhereClauseError) -> WhereExpression {
        do {
            return try WhereParser.parse(text)
        } catch {
            throw .syntax(error)
        }
    }

    /// Visits operands in the order, and under the nesting, in which a compiler emits them.
    /// - Parameter cost: the parser stack entries this operand sits under inside its parent.
    private mutating func check(_ expression: WhereExpression, under cost: Int = 1) throws(WhereClauseError) {
        nestingCost += cost
        defer { nestingCost -= cost }
        if nestingCost > Self.maximumNestingCost { throw .nestedTooDeeply }
        switch expression {
        case .column(let name):
            guard fieldType(name) != nil else { throw .unknownField(name) }
        case .literal(.real(let number)):
            guard number.isFinite else { throw .numberOutOfRange }
        case .literal:
            break
        case .not(let inner), .negate(let inner):
            try check(inner, under: 2)
        case .binary(let op, let lhs, let rhs):
            try checkChain(op, lhs, rhs)
        case .like(let value, let pattern, let escape, _):
            if case .literal(.string(let text)) = pattern, text.utf8.count > Self.maximumLikePattern {
                throw .likePatternTooLong(limit: Self.maximumLikePattern)
            }
            try check(value)
            try check(pattern, under: 3)
            if let escape {
                // Trees not built by the parser are held to the parser's rule.
                if let problem = WhereExpression.escapeProblem(escape) { throw .invalidEscape(problem) }
                try check(escape, under: 5)
            }
        case .inList(let value, let items, _):
            for item in items { try check(item, under: 4) }
            try check(value)
        case .between(let value, let low, let high, _):
            try check(value)
            try check(low, under: 3)
            try check(high, under: 5)
        case .isNull(let value, _):
            try check(value)
        case .cast(let value, _):
            try check(value, under: 2)
        case .extract(_, let value):
            try check(value, under: 7)
        case .function(let name, let arguments):
            try checkFunction(name, arguments)
        }
    }

    /// A comparison, or a chain of one operator flattened as a compiler emits it (in runs of
    /// `chainRun` operands when longer).
    private mutating func checkChain(
        _ op: WhereExpression.BinaryOperator, _ lhs: WhereExpression, _ rhs: WhereExpression
    )
        throws(WhereClauseError)
    {
        if op.isComparison {
            try check(lhs)
            try check(rhs, under: 3)
            return
        }
        let operands = WhereExpression.chain(op, lhs, rhs)
        // In runs, each operand also sits under its run's parenthesis.
        let inRuns = operands.count > Self.chainRun ? 2 : 0
        for (index, operand) in operands.enumerated() { try check(operand, under: (index == 0 ? 1 : 3) + inRuns) }
    }

    private mutating func checkFunction(_ name: String, _ arguments: [WhereExpression]) throws(WhereClauseError) {
        for argument in arguments { try check(argument, under: 4) }
        if allowsAggregates && Self.aggregates.contains(name) {
            // An aggregate of one column: nesting aggregates or aggregating expressions is refused.
            guard arguments.count == 1, case .column = arguments[0] else { throw .aggregateOfNotAField(name) }
            return
        }
        guard let arity = Self.functions[name] else { throw .unsupportedFunction(name) }
        guard arity.contains(arguments.count) else { throw .wrongArgumentCount(function: name, takes: arity) }
    }
}

extension WhereExpression {
    /// The operands of a chain of one left-associative operator (`a OR b OR c` parses as
    /// `(a OR b) OR c`), left to right, found down its left spine without recursion.
    public static func chain(_ op: BinaryOperator, _ lhs: WhereExpression, _ rhs: WhereExpression) -> [WhereExpression] {
        var operands = [rhs]
        var left = lhs
        while case .binary(let inner, let innerLHS, let innerRHS) = left, inner == op {
            operands.append(innerRHS)
            left = innerLHS
        }
        operands.append(left)
        operands.reverse()
        return operands
    }
}
