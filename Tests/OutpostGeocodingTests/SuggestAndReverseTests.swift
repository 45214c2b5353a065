import Testing

@testable import OutpostGeocoding

/// `suggest` and `reverseGeocode` over the fixture (docs/geocoding.md, "Suggest", "Reverse geocoding").
@Suite struct SuggestAndReverseTests {
    static func suggest(_ text: String, max: Int = 3) -> [Suggestion] {
        let query = SingleLineAddress.parse(text, knownLocalities: LocatorFixture.known, typing: true)
        return AddressMatcher.suggest(query, among: LocatorFixture.entries, maxSuggestions: max)
    }

    @Test(arguments: [
        ("a street being typed after a number", "12 Hil", ["12 Hill Street, Springfield, 90210", "12 Hill Street, Shelbyville, 90300"]),
        ("a locality being typed", "12 Hill St, Shel", ["12 Hill Street, Shelbyville, 90300"]),
        ("a locality alone", "Shelby", ["Shelbyville"]),
        ("an abbreviation typed whole", "5 Station Rd", ["5 Station Road, St Albans, AL1 3AB"]),
        ("a place's name", "Central Sta", ["Central Station, St Albans"]),
        ("a typo before the word being typed", "Sprngfield Public Lib", ["Springfield Public Library, Springfield"]),
    ])
    func suggests(_ rule: String, _ text: String, _ expected: [String]) {
        #expect(Self.suggest(text, max: expected.count).map(\.text) == expected, "\(rule)")
    }

    @Test func aSuggestionsKeyFindsItsEntry() throws {
        let suggestion = try #require(Self.suggest("Central Sta").first)
        #expect(!suggestion.isCollection)
        let key = try #require(MagicKey(encoded: suggestion.magicKey))
        #expect(key == MagicKey(entryId: "poi-station", kind: .place))
    }

    @Test func maxSuggestionsIsBoundedByArcGISsFifteen() {
        #expect(Self.suggest("1", max: 100).count <= AddressMatcher.maximumSuggestions)
    }

    @Test(arguments: [
        (
            "the nearest point address within the distance", PlanarPoint(x: 12, y: -7), 5.0, "pa-hill-12b", AddressType.pointAddress, String?("12B"),
            "12B Hill Street, Springfield, 90210"
        ),
        (
            "else the centre-line's number at the projection, on the point's side", PlanarPoint(x: 50, y: -3), 5.0, "sc-hill", .streetAddress, "52",
            "52 Hill Street, Springfield, 90210"
        ),
        ("the odd side north of the line", PlanarPoint(x: 75, y: 2), 5.0, "sc-hill", .streetAddress, "75", "75 Hill Street, Springfield, 90210"),
        (
            "a side without a range is a StreetName", PlanarPoint(x: 198, y: 150), 5.0, "sc-marys", .streetName, nil,
            "Saint Marys Road, St Albans, AL1 3AB"
        ),
        ("descending ranges", PlanarPoint(x: 550, y: 497), 5.0, "sc-eglise", .streetAddress, "11", "11 Rue de l'Église, Shelbyville, 90300"),
    ])
    func reverseGeocodes(
        _ rule: String, _ point: PlanarPoint, _ maxDistance: Double, _ id: String, _ type: AddressType, _ number: String?, _ address: String
    ) throws {
        let result = try #require(ReverseGeocoder.reverseGeocode(point, among: LocatorFixture.entries, maxDistance: maxDistance), "\(rule)")
        #expect(result.entryId == id, "\(rule)")
        #expect(result.addressType == type, "\(rule)")
        #expect(result.houseNumber?.description == number, "\(rule)")
        #expect(result.matchAddress == address, "\(rule)")
    }

    @Test func nothingWithinTheDistanceIsNothing() {
        #expect(ReverseGeocoder.reverseGeocode(PlanarPoint(x: 5_000, y: 5_000), among: LocatorFixture.entries, maxDistance: 100) == nil)
        #expect(ReverseGeocoder.reverseGeocode(PlanarPoint(x: .nan, y: 0), among: LocatorFixture.entries, maxDistance: 100) == nil)
    }

    /// A locator of places answers the nearest place (a POI); among addresses and streets, an
    /// address or street within the distance always goes first.
    @Test func withoutAnAddressOrStreetNearTheNearestPlaceIsAPOI() throws {
        let places = LocatorFixture.entries.filter { $0.kind == .place }
        let fountain = try #require(places.first { $0.id == "poi-fountain" })
        let near = PlanarPoint(x: fountain.location.x + 3, y: fountain.location.y)
        let result = try #require(ReverseGeocoder.reverseGeocode(near, among: places, maxDistance: 10))
        #expect(result.entryId == "poi-fountain" && result.addressType == .poi && result.matchAddress == "Old Fountain")
        #expect(ReverseGeocoder.reverseGeocode(near, among: places, maxDistance: 2) == nil, "beyond the distance")
        let everything = try #require(ReverseGeocoder.reverseGeocode(near, among: LocatorFixture.entries, maxDistance: 100))
        #expect(everything.addressType != .poi, "an address or street within the distance first")
    }

    @Test func aCentreLineAnswerIsLocatedOnTheLine() throws {
        let result = try #require(ReverseGeocoder.reverseGeocode(PlanarPoint(x: 50, y: -3), among: LocatorFixture.entries, maxDistance: 5))
        #expect(result.location == PlanarPoint(x: 50, y: 0))
        #expect(result.side == .right)
        #expect(result.distance == 3)
    }
}
