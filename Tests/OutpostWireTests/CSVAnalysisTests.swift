import Testing

@testable import OutpostWire

/// What `content/features/analyze` says of a CSV file (docs/portal.md, "Publishing"), each
/// row a rule.
@Suite struct CSVAnalysisTests {
    /// (file, delimiter, columns as name:type, longitude, latitude, geometry column)
    static let files: [(String, Character, [String], String?, String?, String?)] = [
        ("name,longitude,latitude\nA,13.4,52.5\n", ",", ["name:String", "longitude:Double", "latitude:Double"], "longitude", "latitude", nil),
        ("Name;LON;LAT\r\nA;1;2\r\nB;3;4\r\n", ";", ["Name:String", "LON:Integer", "LAT:Integer"], "LON", "LAT", nil),
        ("id\tx\ty\tnote\n1\t5.5\t6\thello\n", "\t", ["id:Integer", "x:Double", "y:Integer", "note:String"], "x", "y", nil),
        ("a|b\n1|2\n", "|", ["a:Integer", "b:Integer"], nil, nil, nil),
        // x and longitude both there: the import's order of preference (x first).
        ("longitude,x,latitude,y\n1,2,3,4\n", ",", ["longitude:Integer", "x:Integer", "latitude:Integer", "y:Integer"], "x", "y", nil),
        ("name,WKT\nA,\"POINT (1 2)\"\n", ",", ["name:String", "WKT:String"], nil, nil, "WKT"),
        // Quotes: a delimiter and a doubled quote inside one; a line break inside one.
        ("\"a,b\",c\n\"say \"\"hi\"\"\",\"line\nbreak\"\n", ",", ["a,b:String", "c:String"], nil, nil, nil),
        // Empty and repeated names are named apart; an empty column is text.
        (",name,Name\n1,,x\n", ",", ["field_1:Integer", "name:String", "Name_3:String"], nil, nil, nil),
        // A number past 32 bits is a double; "NaN" and "inf" are text.
        ("big,odd\n3000000000,NaN\n", ",", ["big:Double", "odd:String"], nil, nil, nil),
        ("", ",", [], nil, nil, nil),
    ]

    @Test(arguments: 0..<files.count)
    func aFileIsAnalyzedAsPublishWillReadIt(_ index: Int) {
        let (text, delimiter, columns, longitude, latitude, geometry) = Self.files[index]
        let analysis = CSVAnalysis(text: text)
        #expect(analysis.delimiter == delimiter)
        #expect(analysis.columns.map { "\($0.name):\($0.type.rawValue.dropFirst("esriFieldType".count))" } == columns)
        #expect(analysis.longitudeColumn == longitude && analysis.latitudeColumn == latitude && analysis.geometryColumn == geometry)
    }

    @Test func theFirstFiveRecordsAreGivenAsText() {
        let rows = (1...8).map { "P\($0),\($0),\($0 * 2)" }.joined(separator: "\n")
        let analysis = CSVAnalysis(text: "name,lon,lat\n" + rows)
        #expect(analysis.records.count == 5)
        #expect(analysis.records[4] == ["name": "P5", "lon": "5", "lat": "10"])
    }

    /// Bounds: only the first 64 KiB and 100 rows are read, the cut last line left out; at most
    /// 500 columns; whatever the file.
    @Test func onlyTheFilesHeadIsRead() {
        let long = "n\n" + String(repeating: "1\n", count: 40_000) + "text\n"
        #expect(CSVAnalysis(text: long).columns == [.init(name: "n", type: .integer)], "the text past 100 rows is not read")
        // The third line is cut at 64 KiB: left out, so its text does not make the column text.
        let cut = "n\n1\nabc" + String(repeating: "9", count: 70_000) + "\n"
        #expect(CSVAnalysis(text: cut).columns.first?.type == .integer)
        #expect(CSVAnalysis(text: "n\n1\nabc\n").columns.first?.type == .string)
        let wide = (0..<2_000).map { "c\($0)" }.joined(separator: ",")
        #expect(CSVAnalysis(text: wide).columns.count == CSVAnalysis.maximumColumns)
        let unterminated = "a\n\"" + String(repeating: "x", count: 100_000)
        #expect(CSVAnalysis(text: unterminated).columns.count == 1)
    }
}
