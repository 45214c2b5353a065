import Testing

@testable import OutpostWire

@Suite struct WhereParserTests {
    let columns: [String: WhereColumn] = [
        "objectid": WhereColumn(sql: "t.\"OBJECTID\"", type: .oid),
        "name": WhereColumn(sql: "t.\"name\"", type: .string),
        "pop": WhereColumn(sql: "t.\"pop\"", type: .double),
        "planted": WhereColumn(sql: "t.\"planted\"", type: .date),
        "globalid": WhereColumn(sql: "t.\"GlobalID\"", type: .globalID),
    ]

    func compile(_ text: String) throws -> SQLFragment {
        let columns = self.columns
        return try WhereCompiler.compile(where: text, columns: { columns[$0.lowercased()] })
    }

    /// FuzzWhere's first finding: a date of a huge year overflowed its milliseconds and took the
    /// process down, as a `DATE` literal and as a string compared with a date field.
    @Test(arguments: ["planted >= DATE '99999999999-01-01'", "planted = DATE '9223372036854775807-01-01'"])
    func datesOfHugeYearsAreRefusedNotOverflowed(_ text: String) {
        #expect(throws: ArcGISError.self) { try compile(text) }
    }

    /// A string compared with a date field is read as a date when it is one, else bound as text.
    @Test func aStringOfAHugeYearComparedWithADateIsBoundAsText() throws {
        #expect(try compile("planted > '99999999999-01-01'").arguments.count == 1)
    }

    @Test func datesCoverYearsOneTo9999() {
        #expect(WhereDate.parse("9999-12-31 23:59:59") == 253_402_300_799_000)
        #expect(WhereDate.parse("0001-01-01") == -62_135_596_800_000)
        #expect(WhereDate.parse("10000-01-01") == nil && WhereDate.parse("0000-01-01") == nil)
    }

    @Test func andBindsTighterThanOr() throws {
        let tree = try WhereParser.parse("a = 1 OR b = 2 AND c = 3")
        guard case .binary(.or, _, .binary(.and, _, _)) = tree else {
            Issue.record("unexpected tree \(tree)")
            return
        }
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
        #expect(throws: ArcGISError.self) { try compile(text) }
    }

    @Test func errorsNameThePosition() {
        do {
            _ = try WhereParser.parse("a = 1 AND AND b = 2")
            Issue.record("expected an error")
        } catch {
            #expect(error.position == 10)
        }
    }

    @Test func limitsLengthAndDepth() {
        #expect(throws: WhereParser.Error.self) {
            try WhereParser.parse(String(repeating: "(", count: 500) + "1" + String(repeating: ")", count: 500))
        }
        #expect(throws: WhereParser.Error.self) { try WhereParser.parse("a = '" + String(repeating: "x", count: 70_000) + "'") }
    }
}

@Suite struct LayerQueryTests {
    @Test func parsesTheParametersClientsSend() throws {
        let query = try LayerQuery.parse(
            RequestParameters([
                ("where", "1=1"), ("outFields", "name, pop"), ("returnGeometry", "False"), ("resultOffset", "10"),
                ("resultRecordCount", "5"), ("orderByFields", "pop DESC,name"), ("f", "pgeojson"),
                ("geometry", "  -100.000,    30.000,   -90.000,    40.000"), ("geometryType", "esriGeometryEnvelope"),
                ("inSR", "{\"wkid\":102100}"), ("spatialRel", "esriSpatialRelIntersects"), ("outSR", "3857"),
            ]))
        #expect(query.outFields == ["name", "pop"])
        #expect(!query.returnGeometry)
        #expect(query.resultOffset == 10 && query.resultRecordCount == 5)
        #expect(query.orderBy.map(\.field) == ["pop", "name"] && query.orderBy.map(\.ascending) == [false, true])
        #expect(query.format == .pgeojson)
        #expect(query.geometry?.inSR == .webMercator)
        #expect(query.outSR?.epsg == 3857)
    }

    @Test(arguments: [
        ("f", "xml"), ("resultOffset", "-1"), ("resultRecordCount", "ten"), ("spatialRel", "esriSpatialRelNear"),
        ("geometryType", "esriGeometryCircle"), ("orderByFields", "name SIDEWAYS"), ("outStatistics", "{}"),
    ])
    func rejectsBadValues(_ name: String, _ value: String) {
        var pairs = [(name, value)]
        if name == "geometryType" { pairs.append(("geometry", "1,2")) }
        #expect(throws: ArcGISError.self) { try LayerQuery.parse(RequestParameters(pairs)) }
    }
}
