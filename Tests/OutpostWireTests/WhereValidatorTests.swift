import Testing

@testable import OutpostWire

/// A `where` checked against a layer's fields with no SQL made (`WhereValidator`): what every
/// backend's compiler and the replica planner refuse alike.
@Suite struct WhereValidatorTests {
    static let fields: [String: EsriFieldType] = ["objectid": .oid, "name": .string, "pop": .double, "planted": .date]

    static func check(_ text: String, having: Bool = false) throws(WhereClauseError) {
        let fields: WhereValidator.FieldTypes = { Self.fields[$0.lowercased()] }
        _ = try having ? WhereValidator.parse(having: text, fields: fields) : WhereValidator.parse(where: text, fields: fields)
    }

    static let refusals: [(String, WhereClauseError)] = [
        ("nope = 1", .unknownField("nope")),
        ("load_extension('x') = 1", .unsupportedFunction("LOAD_EXTENSION")),
        ("UPPER(name, name) = 'X'", .wrongArgumentCount(function: "UPPER", takes: 1...1)),
        ("SUM(pop) > 1", .unsupportedFunction("SUM")),
        ("name LIKE '" + String(repeating: "%a", count: 6_000) + "'", .likePatternTooLong(limit: 10_000)),
        ("NOT (" + String(repeating: "NOT (", count: 40) + "pop = 1" + String(repeating: ")", count: 41), .nestedTooDeeply),
    ]

    @Test(arguments: refusals)
    func refusesWhatNoBackendWouldRun(_ text: String, _ refusal: WhereClauseError) {
        #expect(throws: refusal) { try Self.check(text) }
    }

    @Test func aSyntaxErrorKeepsTheParsersPosition() {
        #expect(throws: WhereClauseError.syntax(WhereParser.Error(message: "';' is not allowed in a where clause", position: 3))) {
            try Self.check("1=1; DROP TABLE x")
        }
    }

    @Test func aHavingAggregatesOneFieldOnly() throws {
        try Self.check("SUM(pop) > 1 AND STDDEV(pop) < 2 AND COUNT(objectid) > 0", having: true)
        #expect(throws: WhereClauseError.aggregateOfNotAField("SUM")) { try Self.check("SUM(pop + 1) > 1", having: true) }
        #expect(throws: WhereClauseError.aggregateOfNotAField("MAX")) { try Self.check("MAX(MIN(pop)) > 1", having: true) }
    }

    /// A long chain is flat (its nesting does not grow with its length), a nested one is not.
    @Test func chainsOfOneOperatorAreFlat() throws {
        try Self.check((1...2_500).map { "objectid = \($0)" }.joined(separator: " OR "))
        #expect(throws: WhereClauseError.nestedTooDeeply) {
            try Self.check((1..<70).map { "objectid = \($0) OR (" }.joined() + "objectid = 0" + String(repeating: ")", count: 69))
        }
    }
}
