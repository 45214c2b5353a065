import OutpostWhereSQL
import OutpostWire
import Testing

/// The where compiler's PostgreSQL dialect (docs/postgres.md, "Queries"): one parse, each
/// backend's spelling of the same meaning, values still bound.
@Suite struct WhereDialectTests {
    static func columns(_ name: String) -> WhereColumn? {
        switch name.lowercased() {
        case "name": WhereColumn(sql: "t.\"name\"", type: .string)
        case "planted": WhereColumn(sql: "t.\"planted\"", type: .date)
        case "height": WhereColumn(sql: "t.\"height\"", type: .double)
        default: nil
        }
    }

    @Test(arguments: [
        ("name LIKE 'b%'", "(t.\"name\" LIKE ?)", "(t.\"name\" ILIKE ?)"),
        ("name NOT LIKE 'b%'", "(t.\"name\" NOT LIKE ?)", "(t.\"name\" NOT ILIKE ?)"),
        (
            "EXTRACT(YEAR FROM planted) = 2015", "(CAST(strftime('%Y', (t.\"planted\") / 1000, 'unixepoch') AS INTEGER) = 2015)",
            "(CAST(floor(EXTRACT(YEAR FROM to_timestamp((t.\"planted\") / 1000.0) AT TIME ZONE 'UTC')) AS bigint) = 2015)"
        ),
        (
            "ROUND(height, 1) > 2", "(round(t.\"height\", 1) > 2)",
            "(CAST(round(CAST(t.\"height\" AS numeric), CAST(1 AS integer)) AS double precision) > 2)"
        ),
        ("POSITION('a' IN name) > 0", "(instr(t.\"name\", ?) > 0)", "(strpos(t.\"name\", ?) > 0)"),
        ("CAST(height AS REAL) > 1", "(CAST(t.\"height\" AS REAL) > 1)", "(CAST(t.\"height\" AS double precision) > 1)"),
        ("UPPER(name) = 'X'", "(upper(t.\"name\") = ?)", "(upper(t.\"name\") = ?)"),
    ])
    func eachBackendGetsItsSpelling(where text: String, sqlite: String, postgres: String) throws {
        let lite = try WhereCompiler.compile(where: text, columns: Self.columns, dialect: .sqlite)
        let pg = try WhereCompiler.compile(where: text, columns: Self.columns, dialect: .postgres)
        #expect(lite.sql == sqlite)
        #expect(pg.sql == postgres)
        #expect(lite.arguments == pg.arguments, "the same values bound")
    }

    @Test func havingUsesEachBackendsSampleStatistics() throws {
        let lite = try WhereCompiler.compile(having: "STDDEV(height) > 1 AND VAR(height) < 9", columns: Self.columns, dialect: .sqlite)
        let pg = try WhereCompiler.compile(having: "STDDEV(height) > 1 AND VAR(height) < 9", columns: Self.columns, dialect: .postgres)
        #expect(lite.sql == "((outpost_stddev(t.\"height\") > 1) AND (outpost_var(t.\"height\") < 9))")
        #expect(pg.sql == "((stddev_samp(t.\"height\") > 1) AND (var_samp(t.\"height\") < 9))")
    }
}
