import OutpostWhereSQL
import OutpostWire
import Testing

/// The where compiler in SQLite's dialect: what a parsed clause becomes, and what it refuses.
@Suite struct WhereCompilerTests {
    let columns: [String: WhereColumn] = [
        "objectid": WhereColumn(sql: "t.\"OBJECTID\"", type: .oid),
        "name": WhereColumn(sql: "t.\"name\"", type: .string),
        "pop": WhereColumn(sql: "t.\"pop\"", type: .double),
        "planted": WhereColumn(sql: "t.\"planted\"", type: .date),
        "globalid": WhereColumn(sql: "t.\"GlobalID\"", type: .globalID),
    ]

    func compile(_ text: String) throws -> SQLFragment {
        let columns = self.columns
        return try WhereCompiler.compile(where: text, columns: { columns[$0.lowercased()] }, dialect: .sqlite)
    }

    /// FuzzWhere's first finding: a date of a huge year overflowed its milliseconds and took the
    /// process down, as a `DATE` literal and as a string compared with a date field.
    @Test(arguments: ["planted >= DATE '99999999999-01-01'", "planted = DATE '9223372036854775807-01-01'"])
    func datesOfHugeYearsAreRefusedNotOverflowed(_ text: String) {
        #expect(throws: WhereClauseError.self) { try compile(text) }
    }

    /// A string compared with a date field is read as a date when it is one, else bound as text.
    @Test func aStringOfAHugeYearComparedWithADateIsBoundAsText() throws {
        #expect(try compile("planted > '99999999999-01-01'").arguments.count == 1)
    }

    @Test func compilesComparisonsWithBoundStrings() throws {
        let fragment = try compile("name = 'O''Brien' AND pop >= 1.5e3")
        #expect(fragment.sql == "((t.\"name\" = ?) AND (t.\"pop\" >= 1500.0))")
        #expect(fragment.arguments == [.text("O'Brien")])
    }

    @Test func compilesEveryPredicateForm() throws {
        let fragment = try compile(
            "objectid IN (1, 2, 3) AND name LIKE 'B%' AND pop BETWEEN 1 AND 10 AND name IS NOT NULL AND NOT objectid NOT IN (4)")
        #expect(fragment.sql.contains("t.\"OBJECTID\" IN (1,2,3)"))
        #expect(fragment.sql.contains("LIKE ?"))
        #expect(fragment.sql.contains("BETWEEN 1 AND 10"))
        #expect(fragment.sql.contains("IS NOT NULL"))
        #expect(fragment.sql.contains("(NOT (t.\"OBJECTID\" NOT IN (4)))"))
    }

    @Test func columnNamesAreCaseInsensitiveAndQuotedIdentifiersWork() throws {
        #expect(try compile("OBJECTID > 0 AND \"Name\" = 'x'").sql == "((t.\"OBJECTID\" > 0) AND (t.\"name\" = ?))")
    }

    @Test func dateLiteralsBecomeEpochMilliseconds() throws {
        #expect(try compile("planted >= DATE '2020-01-02'").sql == "(t.\"planted\" >= 1577923200000)")
        #expect(try compile("planted < TIMESTAMP '1970-01-01 00:00:01'").sql == "(t.\"planted\" < 1000)")
        // A plain string compared with a date field is read as a date.
        #expect(try compile("planted > '2020-01-02'").sql == "(t.\"planted\" > 1577923200000)")
    }

    @Test func globalIDLiteralsAreNormalized() throws {
        let fragment = try compile("GlobalID = '8a7f2c1e-0b3d-4e5f-9a6b-7c8d9e0f1a2b'")
        #expect(fragment.arguments == [.text("{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}")])
    }

    @Test func functionsMapToSQLite() throws {
        #expect(try compile("UPPER(name) = 'X'").sql == "(upper(t.\"name\") = ?)")
        #expect(try compile("CHAR_LENGTH(name) > 3").sql == "(length(t.\"name\") > 3)")
        #expect(try compile("EXTRACT(YEAR FROM planted) = 2020").sql.contains("strftime('%Y'"))
        #expect(try compile("SUBSTRING(name FROM 1 FOR 2) = 'Be'").sql == "(substr(t.\"name\", 1, 2) = ?)")
        #expect(try compile("MOD(objectid, 2) = 0").sql == "((t.\"OBJECTID\" % 2) = 0)")
    }

    @Test(arguments: [
        "1=1; DROP TABLE x", "name = 'a' -- comment", "name = 'a' /* c */", "objectid = (SELECT 1)",
        "load_extension('x') = 1", "unknown_field = 1", "name =", "name = 'unterminated", "(objectid = 1",
        "objectid IN ()", "name LIKE", "NOT", "sqlite_version() = 1", "pop BETWEEN 1", "CAST(name AS BLOB) = 1",
    ])
    func rejectsAnythingOutsideTheGrammar(_ text: String) {
        #expect(throws: WhereClauseError.self) { try compile(text) }
    }

    /// Every function the validator takes, with each number of arguments it takes, has a
    /// spelling in every dialect: what passes the checks always compiles.
    @Test func everyFunctionTheValidatorTakesCompilesInEveryDialect() throws {
        let columns = self.columns
        let dialects: [any WhereDialect] = [SQLiteWhereDialect.sqlite, PostgresWhereDialect.postgres]
        var compiled = 0
        for (name, arity) in WhereValidator.functions {
            for count in arity {
                let call = WhereExpression.function(name, Array(repeating: .column("pop"), count: count))
                for dialect in dialects {
                    let fragment = try WhereCompiler.compile(
                        .binary(.equal, call, .literal(.integer(1))), columns: { columns[$0.lowercased()] }, dialect: dialect)
                    #expect(!fragment.sql.isEmpty && fragment.arguments.isEmpty, "\(name)/\(count)")
                    compiled += 1
                }
            }
            let tooMany = WhereExpression.function(name, Array(repeating: .column("pop"), count: arity.upperBound + 1))
            #expect(throws: WhereClauseError.wrongArgumentCount(function: name, takes: arity)) {
                try WhereCompiler.compile(.binary(.equal, tooMany, .literal(.integer(1))), columns: { columns[$0.lowercased()] }, dialect: .sqlite)
            }
        }
        #expect(compiled > 2 * WhereValidator.functions.count)
    }

    /// Quotes, comments and separators put anywhere in a clause never reach the SQL as text:
    /// what compiles binds its literals, in every dialect.
    @Test func hostileCharactersAnywhereNeverReachTheSQL() {
        let columns = self.columns
        let seeds = ["pop > 20 AND name LIKE 'Q%'", "objectid IN (1, 2, 3) OR NOT (name IS NULL)", "UPPER(name) = 'OAK' AND pop BETWEEN 1 AND 2"]
        let dialects: [any WhereDialect] = [SQLiteWhereDialect.sqlite, PostgresWhereDialect.postgres]
        var (compiled, refused) = (0, 0)
        for seed in seeds {
            for offset in 0...seed.count {
                for insert in ["'", "''", "\"", "--", "/*", ";", "\\'", "' OR '1'='1"] {
                    var text = seed
                    text.insert(contentsOf: insert, at: text.index(text.startIndex, offsetBy: offset))
                    for dialect in dialects {
                        if let fragment = try? WhereCompiler.compile(where: text, columns: { columns[$0.lowercased()] }, dialect: dialect) {
                            compiled += 1
                            #expect(
                                !fragment.sql.contains("'") && !fragment.sql.contains("--") && !fragment.sql.contains(";"),
                                "\(text) → \(fragment.sql)")
                        } else {
                            refused += 1
                        }
                    }
                }
            }
        }
        #expect(compiled > 0 && refused > 0)
    }
}
