import Testing

@testable import OutpostWire

@Suite struct JSONParserTests {
    @Test func parsesStrictJSONKeepingOrderAndExactIntegers() throws {
        let value = try JSONParser.parse(#"{"b": 1, "a": [true, null, 2.5, "x\u00e9\n"], "big": 9007199254740993}"#)
        #expect(value.objectValue?.keys == ["b", "a", "big"])
        #expect(value["a"] == [true, nil, 2.5, "xé\n"])
        #expect(value["big"] == .int(9_007_199_254_740_993))
    }

    @Test func acceptsSingleQuotesAsEsriSamplesSend() throws {
        let value = try JSONParser.parse("{'xmin':-170,'spatialReference':{'wkid':4326}}")
        #expect(value["xmin"] == .int(-170))
        #expect(value["spatialReference"]?["wkid"] == .int(4326))
    }

    @Test(arguments: ["{", "[1,]", "{\"a\" 1}", "tru", "\"unterminated", "1 2", "{'a':01x}"])
    func rejectsMalformedInput(_ text: String) {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(text) }
    }

    @Test func refusesHostileNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(deep) }
    }

    @Test func streamsArrayElementsWithoutKeepingThem() throws {
        var seen: [JSONValue] = []
        let rest = try JSONParser.parseStreaming(
            bytes: Array(#"{"type":"FeatureCollection","features":[{"id":1},{"id":2}],"name":"n"}"#.utf8),
            arrayKey: "features"
        ) { seen.append($0) }
        #expect(seen == [["id": 1], ["id": 2]])
        #expect(rest["features"] == [])
        #expect(rest["name"] == "n")
    }

    @Test func writerRoundTripsAndEscapes() throws {
        let value: JSONValue = ["s": "quote\" back\\ ctl\u{01}", "n": [1, -2, 0.5, 1e300], "o": ["x": nil]]
        var writer = JSONWriter()
        writer.value(value)
        #expect(try JSONParser.parse(writer.string) == value)
        var pretty = JSONWriter(pretty: true)
        pretty.value(["a": [1]])
        #expect(pretty.string == "{\n  \"a\": [\n    1\n  ]\n}")
    }

    @Test func writerWritesIntegralDoublesWithoutFraction() {
        var writer = JSONWriter()
        writer.value([1.0, -180.0, 0.25, .double(.nan)])
        #expect(writer.string == "[1,-180,0.25,null]")
    }
}

@Suite struct RequestParametersTests {
    @Test func namesAreCaseInsensitiveAndBodyOverridesQuery() {
        var parameters = RequestParameters([("returnAttachmentsDatabyURL", "True"), ("F", "json")])
        parameters.merge(RequestParameters([("f", "pjson")]))
        #expect(parameters.string("returnAttachmentsDataByUrl") == "True")
        #expect(parameters.string("f") == "pjson")
    }

    @Test(arguments: [("true", true), ("True", true), ("1", true), ("false", false), ("FALSE", false), ("0", false)])
    func booleansAreLenient(_ raw: String, _ expected: Bool) throws {
        #expect(try RequestParameters([("b", raw)]).bool("b", default: !expected) == expected)
    }

    @Test func badBooleanIsAnInvalidParameter() {
        #expect(throws: ArcGISError.self) { try RequestParameters([("returnGeometry", "maybe")]).bool("returnGeometry", default: true) }
    }

    @Test func integerListsAcceptCommaAndJSONForms() throws {
        #expect(try RequestParameters([("ids", "1, 2,3")]).intList("ids") == [1, 2, 3])
        #expect(try RequestParameters([("ids", "[4,5]")]).intList("ids") == [4, 5])
        #expect(throws: ArcGISError.self) { try RequestParameters([("ids", "1,x")]).intList("ids") }
    }

    @Test func formDecodingHandlesPlusPercentAndUTF8() {
        let pairs = FormURLEncoding.decode("where=name+%3D+%27M%C3%BCnchen%27&f=json&empty=")
        #expect(pairs.map(\.0) == ["where", "f", "empty"])
        #expect(pairs[0].1 == "name = 'München'")
        #expect(FormURLEncoding.percentDecode("100%") == "100%")
        #expect(FormURLEncoding.percentDecode("a%2") == "a%2")
        #expect(FormURLEncoding.percentDecode("%41%zz") == "A%zz")
        #expect(FormURLEncoding.decode("&&a&=b&c=1=2").map { "\($0.0)|\($0.1)" } == ["a|", "|b", "c|1=2"])
    }
}

@Suite struct GlobalIDTests {
    @Test func normalizesAnySpelling() {
        #expect(GlobalID.normalize("8a7f2c1e-0b3d-4e5f-9a6b-7c8d9e0f1a2b") == "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}")
        #expect(GlobalID.normalize("{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}") == "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}")
        #expect(GlobalID.normalize("not-a-guid") == nil)
        #expect(GlobalID.normalize("{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2}") == nil)
        #expect(GlobalID.normalize("  {8a7f2c1e-0b3d-4e5f-9a6b-7c8d9e0f1a2b}\n") == "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}")
        #expect(GlobalID.normalize("{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B") == nil)
        #expect(GlobalID.normalize("8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2G") == nil)
        #expect(GlobalID.normalize("8A7F2C1E0-B3D-4E5F-9A6B-7C8D9E0F1A2B") == nil)
        #expect(GlobalID.normalize("") == nil)
    }

    @Test func makesVersion4IDs() {
        var generator = SystemRandomNumberGenerator()
        let id = GlobalID.make(using: &generator)
        #expect(GlobalID.normalize(id) == id)
        #expect(Array(id)[15] == "4")
    }
}
