import OutpostWire
import Testing

/// The portal's search syntax (docs/portal.md, "Search"), each row a query and the demo
/// items it finds.
@Suite struct ItemSearchTests {
    static let map = PortalItem(
        id: "aaaa0000000000000000000000000001", owner: "ada", title: "Field map of the North", type: "Web Map", access: .org, created: 100,
        typeKeywords: ["Web Map", "Offline"], tags: ["water", "North Shore"], snippet: "Hydrants", url: nil)
    static let app = PortalItem(
        id: "aaaa0000000000000000000000000002", owner: "bob", title: "Viewer", type: "Web Mapping Application", created: 200,
        typeKeywords: ["Map", "Javascript"], tags: [], snippet: "")
    static let service = PortalItem(
        id: "aaaa0000000000000000000000000003", owner: "outpost", title: "Demo", type: "Feature Service", access: .public, created: 300,
        typeKeywords: ["Sync", "ReferenceURL#https://h/arcgis/rest/services/Demo/FeatureServer"],
        url: "https://h/arcgis/rest/services/Demo/FeatureServer")

    static let rows: [(query: String, finds: [String])] = [
        ("", ["Field map of the North", "Viewer", "Demo"]),
        ("*", ["Field map of the North", "Viewer", "Demo"]),
        ("north", ["Field map of the North"]),
        (#""map of the""#, ["Field map of the North"]),
        (#""the map""#, []),
        (#"type:"Web Map""#, ["Field map of the North"]),
        (#"type:"web mapping application""#, ["Viewer"]),
        ("owner:ADA", ["Field map of the North"]),
        ("owner:ad*", ["Field map of the North"]),
        ("typekeywords:Offline", ["Field map of the North"]),
        (#"typekeywords:"ReferenceURL#https://h/arcgis/rest/services/Demo/FeatureServer""#, ["Demo"]),
        (#"tags:"north shore""#, ["Field map of the North"]),
        // "Map" is one of the viewer's type keywords, a default field.
        ("map AND owner:bob", ["Viewer"]),
        ("north OR demo", ["Field map of the North", "Demo"]),
        ("north AND demo", []),
        ("map owner:ada", ["Field map of the North"]),
        ("(owner:ada OR owner:bob) NOT type:application", ["Field map of the North"]),
        ("-owner:ada", ["Viewer", "Demo"]),
        ("created:[150 TO 300]", ["Viewer", "Demo"]),
        ("hydr*", ["Field map of the North"]),
        ("id:aaaa0000000000000000000000000003", ["Demo"]),
        ("access:public", ["Demo"]),
        ("demo accountid:0rg", ["Demo"]),
        ("demo accountid:other", []),
    ]

    @Test(arguments: rows.indices) func aQueryFindsWhatItSays(_ row: Int) throws {
        let (text, expected) = Self.rows[row]
        let query = try ItemSearch.parse(text)
        let found = [Self.map, Self.app, Self.service].filter { query.matches($0, organization: "0rg") }.map(\.title)
        #expect(found == expected, "\(text) → \(query)")
    }

    @Test(arguments: ["title:(", #"title:"open"#, "owner:", "created:[a TO b]", "colour:red", "AND", "(map", "map)", "[1 TO 2]"])
    func malformedQueriesAreRefusedWithAReason(_ text: String) {
        #expect(throws: ItemSearch.SyntaxError.self) { try ItemSearch.parse(text) }
    }

    /// Issue 43, finding 1: one anonymous `search` with a 64 KiB `q` of dashes or parentheses
    /// overflowed the thread's stack (the parser recursed once per `-`, `NOT` or `(`).
    @Test(arguments: ["-", "(", "NOT ", "-(", "a "])
    func queriesOfAnyLengthOrDepthAreAnsweredOrRefusedWithoutCrashing(_ unit: String) {
        let hostile = String(repeating: unit, count: 65_536 / unit.utf8.count)
        #expect(throws: ItemSearch.SyntaxError.self) { try ItemSearch.parse(hostile) }
        let deep =
            String(repeating: unit == "a " ? "(" : unit, count: ItemSearch.maximumDepth + 1) + "map"
            + (unit.contains("(") ? String(repeating: ")", count: ItemSearch.maximumDepth + 1) : "")
        #expect(throws: ItemSearch.SyntaxError.self) { try ItemSearch.parse(deep) }
    }

    @Test func theDeepestQueryTakenStillMatches() throws {
        let depth = ItemSearch.maximumDepth
        let nested = String(repeating: "(", count: depth) + "field" + String(repeating: ")", count: depth)
        #expect(try ItemSearch.parse(nested).matches(Self.map, organization: "0rg"))
        let negations = String(repeating: "NOT ", count: depth) + "field"
        #expect(try ItemSearch.parse(negations).matches(Self.map, organization: "0rg") == (depth % 2 == 0))
        let terms = Array(repeating: "field", count: ItemSearch.maximumTokens).joined(separator: " ")
        #expect(try ItemSearch.parse(terms).matches(Self.map, organization: "0rg"))
    }

    @Test func anItemRoundTripsThroughItsJSON() throws {
        var item = Self.map
        item.modified = 150
        item.properties = ["status": "complete"]
        item.extent = [[-10, -5], [10, 5]]
        #expect(PortalItem(json: item.json) == item)
        let reparsed = try JSONParser.parse(item.json.jsonText)
        #expect(PortalItem(json: reparsed) == item)
    }

    @Test func serverRelativeURLsBecomeAbsoluteAndOthersStayAsGiven() throws {
        let map = try JSONParser.parse(
            #"{"operationalLayers":[{"url":"/arcgis/rest/services/A/FeatureServer/0","title":"/arcgis/x"},{"url":"https://elsewhere/arcgis/x"}],"baseMap":{"baseMapLayers":[{"styleUrl":"/arcgis/rest/services/V/VectorTileServer/resources/styles/root.json"}]}}"#
        )
        let absolute = ServerRelativeURLs.absolute(map, server: "https://h:8443")
        #expect(absolute["operationalLayers"]?[0]?["url"] == "https://h:8443/arcgis/rest/services/A/FeatureServer/0")
        #expect(absolute["operationalLayers"]?[0]?["title"] == "/arcgis/x", "only URL keys")
        #expect(absolute["operationalLayers"]?[1]?["url"] == "https://elsewhere/arcgis/x")
        #expect(absolute["baseMap"]?["baseMapLayers"]?[0]?["styleUrl"]?.stringValue?.hasPrefix("https://h:8443/arcgis/") == true)
    }
}
