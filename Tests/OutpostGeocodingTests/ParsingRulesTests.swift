import Testing

@testable import OutpostGeocoding

/// Parsing and vocabulary rules (docs/geocoding.md, "Normalisation", "Abbreviations", "Parsing").
@Suite struct ParsingRulesTests {
    static let berlinParis = KnownLocalities(["Berlin", "Paris", "Springfield"])

    @Test(arguments: [
        ("10115 Berlin", "10115", ["berlin"]), ("75002 Paris", "75002", ["paris"]), ("75002, Paris", "75002", ["paris"]),
        ("75002, Lyon", "75002", ["lyon"]), ("10115 Berlin, Germany", "10115", ["berlin"]),
    ])
    func aLeadingNumberBeforeALocalityIsAPostcode(_ text: String, _ postcode: String, _ locality: [String]) {
        let parsed = SingleLineAddress.parse(text, knownLocalities: Self.berlinParis)
        #expect(parsed.postcode == postcode)
        #expect(parsed.locality == locality)
        #expect(parsed.houseNumber == nil && parsed.street.isEmpty)
    }

    @Test(arguments: ["1234 Hill St", "1234, Hill St", "1234, 5 Hill", "123 Berlin", "12345 Hill Springfield"])
    func aLeadingNumberBeforeAStreetIsAHouseNumber(_ text: String) {
        #expect(SingleLineAddress.parse(text, knownLocalities: Self.berlinParis).houseNumber != nil)
    }

    @Test(arguments: [
        ("Route 1234", ["route", "1234"], [String]()), ("County Road 1450, Springfield", ["county", "road", "1450"], ["springfield"]),
        ("Hwy 1450 Springfield", ["highway", "1450"], ["springfield"]),
    ])
    func aNumberAfterAStreetTypeNamesTheRoad(_ text: String, _ street: [String], _ locality: [String]) {
        let parsed = SingleLineAddress.parse(text, knownLocalities: Self.berlinParis)
        #expect(parsed.street == street)
        #expect(parsed.locality == locality)
        #expect(parsed.postcode == nil)
    }

    @Test func aHouseNumberedLineWithoutCommasStillEndsInAPostcode() {
        #expect(SingleLineAddress.parse("12 Hill St 90210").postcode == "90210")
    }

    @Test func anOrdinalIsNotAUKInwardCode() {
        #expect(Postcode.trailing(in: ["n1", "3rd"]) == nil)
        #expect(Postcode.trailing(in: ["e1", "1st"]) == nil)
        #expect(Postcode.trailing(in: ["n1", "3ra"])?.postcode == "n13ra")
        #expect(SingleLineAddress.parse("5 Avenue B2 3rd, Springfield").postcode == nil)
    }

    @Test(arguments: [("12 Hill St.", "street"), ("12 Hill St-", "street"), ("12 Hill St,", "street"), ("12 Hill St ", "street")])
    func aFullStopHyphenCommaOrSpaceEndsAWordWhileTyping(_ text: String, _ last: String) {
        let parsed = SingleLineAddress.parse(text, typing: true)
        #expect(parsed.prefix == nil)
        #expect(parsed.street.last == last)
    }

    @Test(arguments: [
        ("Rue St Denis", ["rue", "saint", "denis"]), ("Boulevard St Germain", ["boulevard", "saint", "germain"]),
        ("Avenue St Charles", ["avenue", "saint", "charles"]), ("Ave St Charles", ["avenue", "saint", "charles"]),
        ("Rue St", ["rue", "street"]), ("Hill St Main", ["hill", "street", "main"]),
    ])
    func stAfterALeadingStreetTypeIsSaint(_ text: String, _ tokens: [String]) {
        #expect(AddressNormalizer.tokens(text) == tokens)
    }

    @Test func stAfterALeadingStreetTypeIsSaintInDisplayToo() {
        #expect(AddressNormalizer.displayForm("Rue St Denis") == "Rue Saint Denis")
    }

    @Test(arguments: ["'", "\u{2019}", "\u{2018}", "\u{02BC}", "`"])
    func eachApostropheFormJoins(_ apostrophe: String) {
        #expect(AddressNormalizer.tokens("St Mary\(apostrophe)s Rd l\(apostrophe)Église") == ["saint", "marys", "road", "leglise"])
    }

    /// docs/geocoding.md's abbreviation table, whole: each maps to its long form after a name.
    static let table: [(String, String)] = [
        ("str", "street"), ("strt", "street"), ("rd", "road"), ("ave", "avenue"), ("av", "avenue"), ("avn", "avenue"),
        ("blvd", "boulevard"), ("bvd", "boulevard"), ("boul", "boulevard"), ("dr", "drive"), ("drv", "drive"), ("ln", "lane"),
        ("ct", "court"), ("crt", "court"), ("pl", "place"), ("sq", "square"), ("hwy", "highway"), ("pkwy", "parkway"),
        ("pky", "parkway"), ("ter", "terrace"), ("terr", "terrace"), ("cres", "crescent"), ("crsnt", "crescent"), ("cl", "close"),
        ("cir", "circle"), ("mt", "mount"), ("n", "north"), ("s", "south"), ("e", "east"), ("w", "west"), ("ne", "northeast"),
        ("nw", "northwest"), ("se", "southeast"), ("sw", "southwest"), ("first", "1st"), ("second", "2nd"), ("third", "3rd"),
        ("fourth", "4th"), ("fifth", "5th"), ("sixth", "6th"), ("seventh", "7th"), ("eighth", "8th"), ("ninth", "9th"),
        ("tenth", "10th"), ("st", "street"),
    ]

    @Test(arguments: table)
    func everyAbbreviationInTheTableExpands(_ short: String, _ long: String) {
        #expect(AddressNormalizer.tokens("Oak \(short)") == ["oak", long])
        #expect(AddressNormalizer.tokens("Oak \(long)") == ["oak", long])
    }

    @Test func theTableIsTheCodesWholeVocabulary() {
        let code = Set(AddressNormalizer.abbreviations.keys).union(AddressNormalizer.ordinals.keys).union(["st"])
        #expect(Set(Self.table.map(\.0)) == code)
    }

    @Test(arguments: ["1234567", "١٢", "１２", "12345678 Hill St"])
    func sevenDigitsAndNonASCIIDigitsAreNoHouseNumber(_ text: String) {
        #expect(HouseNumber(text) == nil)
        #expect(SingleLineAddress.parse(text + " Hill St").houseNumber == nil)
        let fields = LocatorSourceFields(houseNumber: text, street: "Hill St")
        // Refused either way: unreadable, or (no ASCII letter or digit at all) missing.
        #expect(throws: LocatorEntryRefusal.self) {
            try LocatorEntry.make(id: "x", kind: .pointAddress, fields: fields, location: PlanarPoint(x: 0, y: 0))
        }
    }
}
