import Testing

@testable import OutpostWire

/// A LIKE's `ESCAPE` (issue 44): one character in quotes or NULL; anything else is a 400 when
/// the clause is compiled, on both dialects, never a database error while it runs.
@Suite struct WhereEscapeTests {
    static let columns: [String: WhereColumn] = [
        "name": WhereColumn(sql: "t.\"name\"", type: .string), "code": WhereColumn(sql: "t.\"code\"", type: .string),
    ]

    static func compile(_ text: String, _ dialect: WhereDialect) throws(ArcGISError) -> SQLFragment {
        try WhereCompiler.compile(where: text, columns: { columns[$0.lowercased()] }, dialect: dialect)
    }

    @Test(arguments: [
        ("name LIKE 'a%' ESCAPE 'xy'", "not 2"), ("name LIKE 'a%' ESCAPE ''", "not 0"), ("name NOT LIKE 'a%' ESCAPE '!!!'", "not 3"),
        ("name LIKE 'a%' ESCAPE code", "in quotes"), ("name LIKE 'a%' ESCAPE '!' || ''", "in quotes"), ("name LIKE 'a%' ESCAPE 1", "in quotes"),
        ("name LIKE 'a%' ESCAPE UPPER('!')", "in quotes"), ("name LIKE 'a%' ESCAPE 'e\u{301}'", "not 2"),
    ])
    func anEscapeOfAnotherLengthOrNotALiteralIsA400(clause: String, reason: String) {
        for dialect in [WhereDialect.sqlite, .postgres] {
            do {
                _ = try Self.compile(clause, dialect)
                Issue.record("\(clause) compiled on \(dialect)")
            } catch {
                #expect(error.code == 400 && error.details.first?.contains("ESCAPE takes one character") == true, "\(error)")
                #expect(error.details.first?.contains(reason) == true, "\(error)")
            }
        }
    }

    @Test func theParserNamesTheEscapesPosition() {
        #expect(throws: WhereParser.Error(message: "ESCAPE takes one character, not 2 ('xy')", position: 22)) {
            try WhereParser.parse("name LIKE 'a%' ESCAPE 'xy'")
        }
    }

    @Test func oneCharacterOrNullIsTakenAndBound() throws {
        for dialect in [WhereDialect.sqlite, .postgres] {
            let like = dialect == .postgres ? "ILIKE" : "LIKE"
            let bang = try Self.compile("name LIKE '100!%' ESCAPE '!'", dialect)
            #expect(bang.sql == "(t.\"name\" \(like) ? ESCAPE ?)" && bang.arguments == [.text("100!%"), .text("!")], "\(bang)")
            // One code point beyond ASCII; NULL makes the LIKE unknown on both databases.
            #expect(try Self.compile("name LIKE 'aé%' ESCAPE 'é'", dialect).arguments == [.text("aé%"), .text("é")])
            #expect(try Self.compile("name NOT LIKE 'a%' ESCAPE NULL", dialect).sql == "(t.\"name\" NOT \(like) ? ESCAPE NULL)")
        }
    }

    @Test func aTreeBuiltByHandIsHeldToTheSameRule() {
        let tree = WhereExpression.like(.column("name"), pattern: .literal(.string("a%")), escape: .column("code"), negated: false)
        #expect(throws: ArcGISError.self) { try WhereCompiler.compile(tree, columns: { Self.columns[$0] }) }
    }
}
