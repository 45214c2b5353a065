import OutpostGeocoding
import OutpostGeometry
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// A locator with more entries sharing a street's distinctive word than the matcher reads
/// (`AddressMatcher.maximumEntries`): the whole-query pass keeps the asked address among them
/// (docs/geocoding.md, "Search terms"), on both backends.
@Suite struct LocatorScaleTests {
    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func theAskedAddressIsFoundAmongThousandsSharingItsStreetName(_ backend: String) throws {
        try Self.check(try LocatorStoreTests.newStore(backend))
    }

    static let towns = (0..<30).map { "Town\(Character(UnicodeScalar(UInt8(65 + $0 % 26))))\($0 / 26)" }

    static func check(_ store: some OutpostBackend) throws {
        let text = { (name: String) in FieldDefinition(name: name, type: .string, length: 60) }
        let layer = LayerDefinition(
            id: 0, name: "Addresses", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([text("NUM"), text("STREET"), text("TOWN")]))
        _ = try store.schema.createService(ServiceDefinition(name: "Oaks", spatialReference: .wgs84, layers: [layer]))
        // 30 towns × 50 numbers of Oak Street: 1,500 entries meet `oak`, more than the matcher reads.
        var rows: [FeatureRow] = []
        for (t, town) in towns.enumerated() {
            for number in 1...50 {
                rows.append(
                    FeatureRow(
                        attributes: ["NUM": .string(String(number)), "STREET": "Oak Street", "TOWN": .string(town)],
                        geometry: .point(Point(x: 13 + Double(t) * 0.01, y: 52 + Double(number) * 0.0005))))
            }
        }
        try store.edits.insert(rows, service: "Oaks", layer: 0)
        try LocatorBuilder.build(
            LocatorDefinition(
                name: "OakAddresses", service: "Oaks", layer: 0, kind: .pointAddress,
                fields: .init(houseNumber: "NUM", street: "STREET", locality: "TOWN")),
            in: store)
        let answers = LocatorAnswers(store: store.locators)
        let locator = try answers.locator(named: "OakAddresses")
        for (number, town) in [(50, towns[29]), (49, towns[28]), (1, towns[0]), (25, towns[15])] {
            let answer = try answers.findAddressCandidates(locator, RequestParameters([("SingleLine", "\(number) Oak Street, \(town)")]))
            let best = answer["candidates"]?[0]
            #expect(
                best?["address"]?.stringValue == "\(number) Oak Street, \(town)" && best?["score"]?.doubleValue == 100, "\(String(describing: best))")
        }

        // Once the whole query found the address, at most 100 alternatives are gathered after
        // it; a query the whole pass cannot meet (no such town) or one naming only the street
        // still gathers all the matcher reads.
        let index = StoreLocatorIndex(store: store.locators, locator: try #require(try store.locators.locator(named: "OakAddresses")))
        let search = LocatorSearch(index: index)
        func gathered(_ text: String) throws -> Int {
            try index.gatherEntries(terms: SearchTerms(search.parse(singleLine: text, fields: nil)), limit: AddressMatcher.maximumEntries).count
        }
        #expect(try gathered("50 Oak Street, \(towns[29])") == 1 + SearchTerms.alternatesAfterAWholeMatch)
        #expect(try gathered("50 Oak Street, Nowhere") == AddressMatcher.maximumEntries)
        #expect(try gathered("Oak Street") == AddressMatcher.maximumEntries)
    }
}
