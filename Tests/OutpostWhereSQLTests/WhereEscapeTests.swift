import OutpostWhereSQL
import Testing

@testable import OutpostWire

/// A LIKE's `ESCAPE` (issue 44): one character in quotes or NULL; anything else is a 400 when
/// the clause is compiled, on both dialects, never a database error while it runs.
@Suite struct WhereEscapeTests {
    static let columns: [String: WhereColumn] = [
        "name": WhereColumn(sql: "t.\"name\"", type: .string), "code": WhereColumn(sql: "t.\"code\"", type: .string),
    ]

    static let dialects: [any WhereDialect] = [SQLiteWhereDialect.sqlite, PostgresWhereDialect.postgres]

    static func compile(_ text: String, _ dialect: any WhereDialect) throws(WhereClauseError) -> SQLFragment {
        try WhereCompiler.compile(where: text, columns: { columns[$0.lowercased()] }, dialect: dialect)
    }

    @Test(arguments: [
        ("name LIKE 'a%' ESCAPE 'xy'", "not 2"), ("name LIKE 'a%' ESCAPE ''", "not 0"), ("name NOT LIKE 'a%' ESCAPE '!!!'", "not 3"),
        ("name LIKE 'a%' ESCAPE code", "in quotes"), ("name LIKE 'a%' ESCAPE '!' || ''", "in quotes"), ("name LIKE 'a%' ESCAPE 1", "in quotes"),
        ("name LIKE 'a%' ESCAPE UPPER('!')", "in quotes"), ("name LIKE 'a%' ESCAPE 'e\u{301}'", "not 2"),
    ])
    func anEscapeOfAnotherLengthOrNotALiteralIsA400(clause: String, reason: String) {
        for dialect in Self.dialects {
            do {
                _ = try Self.compile(clause, dialect)
                Issue.record("\(clause) compiled on \(dialect)")
            } catch {
                let answer = error.arcGISError
                #expect(answer.code == 400 && answer.details.first?.contains("ESCAPE takes one character") == true, "\(error)")
                #expect(answer.details.first?.contains(reason) == true, "\(error)")
            }
        }
    }

    @Test func theParserNamesTheEscapesPosition() {
        #expect(throws: WhereParser.Error(message: "ESCAPE takes one character, not 2 ('xy')", position: 22)) {
            try WhereParser.parse("name LIKE 'a%' ESCAPE 'xy'")
        }
    }

    @Test func oneCharacterOrNullIsTakenAndBound() throws {
        for dialect in Self.dialects {
            let like = dialect is PostgresWhereDialect ? "ILIKE" : "LIKE"
            let bang = try Self.compile("name LIKE '100!%' ESCAPE '!'", dialect)
            #expect(bang.sql == "(t.\"name\" \(like) ? ESCAPE ?)" && bang.arguments == [.text("100!%"), .text("!")], "\(bang)")
            // One code point beyond ASCII; NULL makes the LIKE unknown on both databases.
            #expect(try Self.compile("name LIKE 'aé%' ESCAPE 'é'", dialect).arguments == [.text("aé%"), .text("é")])
            #expect(try Self.compile("name NOT LIKE 'a%' ESCAPE NULL", dialect).sql == "(t.\"name\" NOT \(like) ? ESCAPE NULL)")
        }
    }

    @Test func aTreeBuiltByHandIsHeldToTheSameRule() {
        let tree = WhereExpression.like(.column("name"), pattern: .literal(.string("a%")), escape: .column("code"), negated: false)
        #expect(throws: WhereClauseError.invalidEscape("ESCAPE takes one character in quotes ('!')")) {
            try WhereCompiler.compile(tree, columns: { Self.columns[$0] }, dialect: .sqlite)
        }
    }
}

/// A negated negative operand (a date before 1970 is negative milliseconds) must not emit `--`,
/// which both databases read as a comment swallowing the rest of the clause (FuzzWhere,
/// `Corpus/FuzzWhere/regression-negated-negative-date`).
@Suite struct WhereNegationTests {
    static let columns: [String: WhereColumn] = [
        "planted": WhereColumn(sql: "t.\"planted\"", type: .date), "healthy": WhereColumn(sql: "t.\"healthy\"", type: .integer),
        "height": WhereColumn(sql: "t.\"height\"", type: .double),
    ]

    @Test(arguments: ["planted > -DATE '1010-01-01' AND healthy = 1", "height > -(-5) AND healthy = 1", "height = - -2 AND healthy = 1"])
    func aNegationNeverOpensAComment(_ clause: String) throws {
        for dialect in WhereEscapeTests.dialects {
            let fragment = try WhereCompiler.compile(where: clause, columns: { Self.columns[$0.lowercased()] }, dialect: dialect)
            #expect(!fragment.sql.contains("--") && fragment.sql.contains("\"healthy\""), "\(fragment.sql)")
        }
    }
}
