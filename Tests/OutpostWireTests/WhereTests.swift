import Testing

@testable import OutpostWire

@Suite struct WhereParserTests {
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
