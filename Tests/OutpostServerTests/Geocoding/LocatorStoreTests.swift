import Foundation
import OutpostGeocoding
import OutpostGeometry
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// Locators built from a layer and answered over each backend's text index (docs/geocoding.md,
/// "Locators"): the same answers from SQLite FTS5 and PostgreSQL's full text and `pg_trgm`.
@Suite struct LocatorStoreTests {
    static func newStore(_ backend: String) throws -> any OutpostBackend {
        backend == "SpatiaLite" ? try SpatiaLiteBackend(dataDirectory: TestFolders.make("locators")) : try TestPostgres.makeBackend()
    }

    static func ask(_ answers: LocatorAnswers<some LocatorStore>, _ operation: String, _ pairs: [(String, String)]) throws -> JSONValue {
        let locator = try answers.locator(named: "townaddresses")  // names ignore case
        let parameters = RequestParameters(pairs)
        switch operation {
        case "find": return try answers.findAddressCandidates(locator, parameters)
        case "suggest": return try answers.suggest(locator, parameters)
        case "reverse": return try answers.reverseGeocode(locator, parameters)
        default: return try answers.geocodeAddresses(locator, parameters)
        }
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func anAddressLocatorAnswersEachOperation(_ backend: String) throws {
        try Self.anAddressLocatorAnswersEachOperation(Self.newStore(backend))
    }

    static func anAddressLocatorAnswersEachOperation(_ store: some OutpostBackend) throws {
        try AddressTown.make(store)
        let built = try LocatorBuilder.build(AddressTown.addresses, in: store)
        #expect(built.entryCount == 31 && built.refused == ["unreadableHouseNumber": 1, "noGeometry": 1], "\(built)")
        let answers = LocatorAnswers(store: store.locators)
        let expected = AddressTown.location(street: 0, number: 3)

        let exact = try Self.ask(answers, "find", [("SingleLine", "3 Hill Street, Springfield"), ("outFields", "*")])["candidates"]?[0]
        #expect(exact?["score"]?.doubleValue == 100 && exact?["attributes"]?["Addr_type"] == "PointAddress", "\(String(describing: exact))")
        #expect(abs((exact?["location"]?["x"]?.doubleValue ?? 0) - expected.x) < 1e-7)
        #expect(abs((exact?["location"]?["y"]?.doubleValue ?? 0) - expected.y) < 1e-7)
        // Gathered by the trigram pass: no whole token but the number meets the index.
        let misspelt = try Self.ask(answers, "find", [("SingleLine", "3 Hil Stret, Springfeld")])["candidates"]?[0]
        #expect(misspelt?["address"] == exact?["address"] && (misspelt?["score"]?.doubleValue ?? 100) < 100, "\(String(describing: misspelt))")
        let fields = try Self.ask(answers, "find", [("Address", "3 Hill St"), ("City", "Springfield")])["candidates"]?[0]
        #expect(fields?["address"] == exact?["address"])
        let other = try Self.ask(answers, "find", [("SingleLine", "1 Hill Street, Shelbyville")])["candidates"]?[0]
        #expect(other?["location"]?["x"] == 13.5, "the other town's 1 Hill Street")

        let suggestions = try Self.ask(answers, "suggest", [("text", "3 Hill St, Spr")])["suggestions"]?.arrayValue ?? []
        let key = try #require(suggestions.first?["magicKey"]?.stringValue)
        #expect(suggestions.first?["text"] == exact?["address"])
        let keyed = try Self.ask(answers, "find", [("SingleLine", suggestions[0]["text"]?.stringValue ?? ""), ("magicKey", key)])
        #expect(keyed["candidates"]?.arrayValue?.count == 1 && keyed["candidates"]?[0]?["address"] == exact?["address"])

        let near = "\(expected.x + 0.00003),\(expected.y)"  // about 2 m east
        let reversed = try Self.ask(answers, "reverse", [("location", near)])
        #expect(reversed["address"]?["Match_addr"] == exact?["address"] && reversed["address"]?["AddNum"] == "3", "\(reversed)")
        #expect(throws: ArcGISError.self) { try Self.ask(answers, "reverse", [("location", "0,0")]) }

        let batch = try Self.ask(
            answers, "batch",
            [
                (
                    "addresses",
                    #"{"records":[{"attributes":{"OBJECTID":7,"SingleLine":"5 Station Rd, Springfield"}},{"attributes":{"OBJECTID":8,"SingleLine":"zzqx"}}]}"#
                )
            ])
        let locations = batch["locations"]?.arrayValue ?? []
        #expect(locations.count == 2 && locations[0]["attributes"]?["ResultID"] == 7 && locations[0]["attributes"]?["Status"] == "M")
        #expect(locations[1]["attributes"]?["ResultID"] == 8 && locations[1]["attributes"]?["Status"] == "U")
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aCentreLineInterpolatesAndReverseGeocodesAlongItsRanges(_ backend: String) throws {
        try Self.aCentreLineInterpolatesAndReverseGeocodesAlongItsRanges(Self.newStore(backend))
    }

    static func aCentreLineInterpolatesAndReverseGeocodesAlongItsRanges(_ store: some OutpostBackend) throws {
        try AddressTown.make(store)
        let definition = LocatorDefinition(
            name: "TownStreets", service: "Town", layer: 1, kind: .streetCenterline,
            fields: .init(street: "STREET", locality: "TOWN", fromLeft: "FL", toLeft: "TL", fromRight: "FR", toRight: "TR"))
        try LocatorBuilder.build(definition, in: store)
        let answers = LocatorAnswers(store: store.locators)
        let locator = try answers.locator(named: "TownStreets")
        let found = try answers.findAddressCandidates(locator, RequestParameters([("SingleLine", "150 Long Road, Springfield"), ("outFields", "*")]))
        let best = found["candidates"]?[0]
        #expect(best?["attributes"]?["Addr_type"] == "StreetAddress" && best?["address"] == "150 Long Road, Springfield", "\(found)")
        let x = best?["location"]?["x"]?.doubleValue ?? 0
        #expect(x > 13.404 && x < 13.406, "halfway along 100–198: \(x)")
        let reversed = try answers.reverseGeocode(locator, RequestParameters([("location", "13.405,52.5301")]))
        #expect(reversed["address"]?["Addr_type"] == "StreetAddress" && reversed["address"]?["Side"] == "L", "\(reversed)")
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aRebuildReplacesTheEntriesAndARemovedLocatorIsGone(_ backend: String) throws {
        try Self.aRebuildReplacesTheEntriesAndARemovedLocatorIsGone(Self.newStore(backend))
    }

    static func aRebuildReplacesTheEntriesAndARemovedLocatorIsGone(_ store: some OutpostBackend) throws {
        try AddressTown.make(store)
        try LocatorBuilder.build(AddressTown.addresses, in: store)
        var narrower = AddressTown.addresses
        narrower.fields.postcode = nil
        narrower.name = "TOWNADDRESSES"  // the same locator, by any case
        let rebuilt = try LocatorBuilder.build(narrower, in: store)
        #expect(try store.locators.locators().map(\.name) == ["TOWNADDRESSES"] && rebuilt.entryCount == 31)
        let terms = SearchTerms(SingleLineAddress.parse("Hill Street 90210"))
        #expect(try store.locators.gatherEntries(locator: "townaddresses", terms: terms, limit: 1_000).allSatisfy { $0.postcode == nil })
        #expect(
            try store.locators.gatherEntries(locator: "townaddresses", terms: SearchTerms(SingleLineAddress.parse("12 Street")), limit: 10).isEmpty)
        #expect(try store.locators.gatherEntries(locator: "nothing", terms: terms, limit: 10).isEmpty)
        try store.locators.deleteLocator(named: "TownAddresses")
        #expect(try store.locators.locators().isEmpty)
        #expect(throws: StoreError.serviceNotFound("TownAddresses")) { try store.locators.deleteLocator(named: "TownAddresses") }
        #expect(throws: LocatorBuilder.Failure.unknownField("NOPE")) {
            try LocatorBuilder.build(
                LocatorDefinition(name: "X", service: "Town", layer: 0, kind: .place, fields: .init(placeName: "NOPE")), in: store)
        }
        // The directory is shared: no service's name, no folder of services, no service as a folder.
        try store.schema.createService(pointLayerService(name: "Field/Wells"))
        for taken in ["Town", "town", "Field", "Town/Streets"] {
            #expect(throws: LocatorBuilder.Failure.nameTaken(taken)) {
                try LocatorBuilder.build(
                    LocatorDefinition(name: taken, service: "Town", layer: 0, kind: .place, fields: .init(placeName: "NUM")), in: store)
            }
        }
        #expect(throws: LocatorBuilder.Failure.invalidName("a b")) {
            try LocatorBuilder.build(
                LocatorDefinition(name: "a b", service: "Town", layer: 0, kind: .place, fields: .init(placeName: "NUM")), in: store)
        }
    }
}
