/// Parses an ArcGIS `where` clause into a `WhereExpression`.
///
/// Grammar (lowest precedence first): OR, AND, NOT, comparison / LIKE / IN / BETWEEN / IS
/// NULL, `||`, `+ -`, `* / %`, unary minus, primary. Anything outside it is an error with
/// the offending position, never a best guess.
public struct WhereParser {
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var message: String
        public var position: Int
        public var description: String { "\(message) (at character \(position + 1))" }
    }

    public static let maximumLength = 65_536
    public static let maximumDepth = 128
    public static let maximumListLength = 50_000

    public static func parse(_ text: String) throws(Error) -> WhereExpression {
        guard text.utf8.count <= maximumLength else {
            throw Error(message: "where clause longer than \(maximumLength) bytes", position: 0)
        }
        var parser = WhereParser(tokens: try WhereLexer.tokenize(text))
        let expression = try parser.parseOr()
        guard case .end = parser.current.kind else {
            throw Error(message: "unexpected \(parser.current.kind.display)", position: parser.current.position)
        }
        return expression
    }

    private var tokens: [WhereToken]
    private var index = 0
    private var depth = 0

    private init(tokens: [WhereToken]) { self.tokens = tokens }

    private var current: WhereToken { tokens[index] }
    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func error(_ message: String) -> Error { Error(message: message, position: current.position) }

    private mutating func isKeyword(_ word: String) -> Bool {
        if case .word(let w) = current.kind, w.uppercased() == word { return true }
        return false
    }

    private mutating func acceptKeyword(_ word: String) -> Bool {
        if isKeyword(word) {
            advance()
            return true
        }
        return false
    }

    private mutating func expectKeyword(_ word: String) throws(Error) {
        guard acceptKeyword(word) else { throw error("expected \(word), found \(current.kind.display)") }
    }

    private mutating func acceptSymbol(_ symbol: String) -> Bool {
        if case .symbol(let s) = current.kind, s == symbol {
            advance()
            return true
        }
        return false
    }

    private mutating func expectSymbol(_ symbol: String) throws(Error) {
        guard acceptSymbol(symbol) else { throw error("expected '\(symbol)', found \(current.kind.display)") }
    }

    private mutating func nest() throws(Error) {
        depth += 1
        if depth > Self.maximumDepth { throw error("where clause nested too deeply") }
    }

    mutating func parseOr() throws(Error) -> WhereExpression {
        try nest()
        defer { depth -= 1 }
        var left = try parseAnd()
        while acceptKeyword("OR") { left = .binary(.or, left, try parseAnd()) }
        return left
    }

    private mutating func parseAnd() throws(Error) -> WhereExpression {
        var left = try parseNot()
        while acceptKeyword("AND") { left = .binary(.and, left, try parseNot()) }
        return left
    }

    private mutating func parseNot() throws(Error) -> WhereExpression {
        if acceptKeyword("NOT") {
            try nest()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePredicate()
    }

    private mutating func parsePredicate() throws(Error) -> WhereExpression {
        let left = try parseConcat()
        if case .symbol(let s) = current.kind, let op = Self.comparison(s) {
            advance()
            return .binary(op, left, try parseConcat())
        }
        let negated = acceptKeyword("NOT")
        if acceptKeyword("LIKE") {
            let pattern = try parseConcat()
            var escape: WhereExpression?
            if acceptKeyword("ESCAPE") {
                let position = current.position
                let operand = try parseConcat()
                if let problem = WhereExpression.escapeProblem(operand) { throw Error(message: problem, position: position) }
                escape = operand
            }
            return .like(left, pattern: pattern, escape: escape, negated: negated)
        }
        if acceptKeyword("IN") {
            try expectSymbol("(")
            var items: [WhereExpression] = []
            repeat {
                items.append(try parseConcat())
                if items.count > Self.maximumListLength { throw error("IN list longer than \(Self.maximumListLength)") }
            } while acceptSymbol(",")
            try expectSymbol(")")
            return .inList(left, items, negated: negated)
        }
        if acceptKeyword("BETWEEN") {
            let low = try parseConcat()
            try expectKeyword("AND")
            let high = try parseConcat()
            return .between(left, low, high, negated: negated)
        }
        if negated { throw error("expected LIKE, IN or BETWEEN after NOT") }
        if acceptKeyword("IS") {
            let isNot = acceptKeyword("NOT")
            try expectKeyword("NULL")
            return .isNull(left, negated: isNot)
        }
        return left
    }

    private static func comparison(_ symbol: String) -> WhereExpression.BinaryOperator? {
        switch symbol {
        case "=": .equal
        case "<>", "!=": .notEqual
        case "<": .less
        case "<=": .lessOrEqual
        case ">": .greater
        case ">=": .greaterOrEqual
        default: nil
        }
    }

    private mutating func parseConcat() throws(Error) -> WhereExpression {
        var left = try parseAdditive()
        while acceptSymbol("||") { left = .binary(.concatenate, left, try parseAdditive()) }
        return left
    }

    private mutating func parseAdditive() throws(Error) -> WhereExpression {
        var left = try parseMultiplicative()
        while true {
            if acceptSymbol("+") {
                left = .binary(.add, left, try parseMultiplicative())
            } else if acceptSymbol("-") {
                left = .binary(.subtract, left, try parseMultiplicative())
            } else {
                return left
            }
        }
    }

    private mutating func parseMultiplicative() throws(Error) -> WhereExpression {
        var left = try parseUnary()
        while true {
            if acceptSymbol("*") {
                left = .binary(.multiply, left, try parseUnary())
            } else if acceptSymbol("/") {
                left = .binary(.divide, left, try parseUnary())
            } else if acceptSymbol("%") {
                left = .binary(.modulo, left, try parseUnary())
            } else {
                return left
            }
        }
    }

    private mutating func parseUnary() throws(Error) -> WhereExpression {
        if acceptSymbol("-") {
            try nest()
            defer { depth -= 1 }
            let operand = try parseUnary()
            switch operand {
            case .literal(.integer(let i)): return .literal(.integer(-i))
            case .literal(.real(let d)): return .literal(.real(-d))
            default: return .negate(operand)
            }
        }
        if acceptSymbol("+") { return try parseUnary() }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(Error) -> WhereExpression {
        let token = current
        switch token.kind {
        case .integer(let value):
            advance()
            return .literal(.integer(value))
        case .real(let value):
            advance()
            return .literal(.real(value))
        case .string(let value):
            advance()
            return .literal(.string(value))
        case .quotedIdentifier(let name):
            advance()
            return .column(name)
        case .symbol("("):
            advance()
            let inner = try parseOr()
            try expectSymbol(")")
            return inner
        case .word(let word):
            let upper = word.uppercased()
            switch upper {
            case "NULL":
                advance()
                return .literal(.null)
            case "TRUE":
                advance()
                return .literal(.boolean(true))
            case "FALSE":
                advance()
                return .literal(.boolean(false))
            case "DATE", "TIMESTAMP":
                advance()
                guard case .string(let text) = current.kind else {
                    throw error("expected a quoted date after \(upper)")
                }
                guard let millis = WhereDate.parse(text) else { throw error("invalid \(upper) literal '\(text)'") }
                advance()
                return .literal(.date(millis))
            case "CURRENT_DATE", "CURRENT_TIMESTAMP":
                advance()
                return .function(upper, [])
            case "CAST":
                advance()
                try expectSymbol("(")
                let value = try parseOr()
                try expectKeyword("AS")
                guard case .word(let typeName) = current.kind else { throw error("expected a type name") }
                advance()
                // Ignore a length such as VARCHAR(20).
                if acceptSymbol("(") {
                    while !acceptSymbol(")") {
                        if case .end = current.kind { throw error("unterminated type length") }
                        advance()
                    }
                }
                try expectSymbol(")")
                guard let castType = Self.castType(typeName) else { throw error("unsupported CAST type '\(typeName)'") }
                return .cast(value, castType)
            case "EXTRACT":
                advance()
                try expectSymbol("(")
                guard case .word(let partName) = current.kind,
                    let part = WhereExpression.DatePart(rawValue: partName.uppercased())
                else { throw error("expected YEAR, MONTH, DAY, HOUR, MINUTE or SECOND") }
                advance()
                try expectKeyword("FROM")
                let value = try parseOr()
                try expectSymbol(")")
                return .extract(part, value)
            case "SUBSTRING":
                advance()
                try expectSymbol("(")
                let value = try parseOr()
                var arguments = [value]
                if acceptKeyword("FROM") {
                    arguments.append(try parseOr())
                    if acceptKeyword("FOR") { arguments.append(try parseOr()) }
                } else {
                    while acceptSymbol(",") { arguments.append(try parseOr()) }
                }
                try expectSymbol(")")
                return .function("SUBSTRING", arguments)
            case "POSITION":
                advance()
                try expectSymbol("(")
                let needle = try parseConcat()
                try expectKeyword("IN")
                let haystack = try parseConcat()
                try expectSymbol(")")
                return .function("POSITION", [needle, haystack])
            default:
                if Self.reservedWords.contains(upper) { throw error("unexpected \(upper)") }
                advance()
                if acceptSymbol("(") {
                    var arguments: [WhereExpression] = []
                    if !acceptSymbol(")") {
                        repeat { arguments.append(try parseOr()) } while acceptSymbol(",")
                        try expectSymbol(")")
                    }
                    return .function(upper, arguments)
                }
                return .column(word)
            }
        case .end:
            throw error("unexpected end of where clause")
        case .symbol(let s):
            throw error("unexpected '\(s)'")
        }
    }

    private static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "LIKE", "ESCAPE", "BETWEEN", "IS", "AS", "FROM", "FOR", "SELECT", "WHERE",
    ]

    private static func castType(_ name: String) -> WhereExpression.CastType? {
        switch name.uppercased() {
        case "INT", "INTEGER", "SMALLINT", "BIGINT": .integer
        case "REAL", "FLOAT", "DOUBLE", "NUMERIC", "DECIMAL": .real
        case "CHAR", "VARCHAR", "TEXT", "STRING", "NVARCHAR": .text
        default: nil
        }
    }
}

/// Date literals: `YYYY-MM-DD`, optionally followed by ` HH:MM[:SS[.fff]]` (UTC).
public enum WhereDate {
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespace()
        let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "T" }).map(String.init)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let dateParts = parts[0].split(separator: "-").map { Int($0) }
        // Years 1 to 9999, as SQL dates go: a huge year overflowed the milliseconds (FuzzWhere).
        guard dateParts.count == 3, let year = dateParts[0], let month = dateParts[1], let day = dateParts[2],
            (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = 0.0
        if parts.count == 2 {
            var timeText = parts[1]
            if timeText.hasSuffix("Z") { timeText.removeLast() }
            let timeParts = timeText.split(separator: ":").map(String.init)
            guard (2...3).contains(timeParts.count), let hour = Int(timeParts[0]), let minute = Int(timeParts[1]),
                (0...23).contains(hour), (0...59).contains(minute)
            else { return nil }
            let second = timeParts.count == 3 ? Double(timeParts[2]) : 0
            guard let second, second >= 0, second < 61 else { return nil }
            seconds = Double(hour * 3600 + minute * 60) + second
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86_400_000 + Int64((seconds * 1000).rounded())
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
