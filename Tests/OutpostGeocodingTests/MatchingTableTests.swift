import Testing

@testable import OutpostGeocoding

/// Queries against `LocatorFixture`: each row's best match and the order of the top candidates,
/// written "feature-id AddressType score" (docs/geocoding.md, "Score", "Ranking").
@Suite struct MatchingTableTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var rule: String
        var query: String
        var top: [String]
        var matchAddress: String?
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(
            rule: "a full address with commas is exact", query: "12 Hill Street, Springfield, 90210",
            top: ["pa-hill-12 PointAddress 100", "sc-hill StreetAddress 100", "pa-hill-12b PointAddress 95"],
            matchAddress: "12 Hill Street, Springfield, 90210"),
        Row(
            rule: "St after a name is Street", query: "12 Hill St, Springfield 90210",
            top: ["pa-hill-12 PointAddress 100", "sc-hill StreetAddress 100", "pa-hill-12b PointAddress 95"]),
        Row(
            rule: "commas are optional when the locality is known", query: "12 hill st springfield 90210",
            top: ["pa-hill-12 PointAddress 100", "sc-hill StreetAddress 100", "pa-hill-12b PointAddress 95", "pa-shel-hill-12 PointAddress 70"]),
        Row(
            rule: "a suffix letter picks its own point", query: "12B Hill St, Springfield",
            top: ["pa-hill-12b PointAddress 100", "sc-hill StreetAddress 100", "pa-hill-12 PointAddress 95"],
            matchAddress: "12B Hill Street, Springfield, 90210"),
        Row(
            rule: "a lower-case suffix without commas", query: "12b Hill Street Springfield",
            top: ["pa-hill-12b PointAddress 100", "sc-hill StreetAddress 100", "pa-hill-12 PointAddress 95"]),
        Row(
            rule: "a range is its first number", query: "12-14 Hill St, Springfield",
            top: ["pa-hill-12 PointAddress 100", "sc-hill StreetAddress 100"]),
        Row(
            rule: "misspelt tokens match fuzzily at 5 points an edit", query: "12 Hil Stret, Springfield",
            top: ["pa-hill-12 PointAddress 90", "sc-hill StreetAddress 90", "pa-hill-12b PointAddress 85"]),
        Row(
            rule: "no locality costs 5 and ties go to feature id", query: "12 Hill Street",
            top: ["pa-hill-12 PointAddress 95", "pa-shel-hill-12 PointAddress 95", "sc-hill StreetAddress 95"]),
        Row(
            rule: "a postcode places an address without a locality", query: "12 Hill St 90210",
            top: ["pa-hill-12 PointAddress 100", "sc-hill StreetAddress 100", "pa-hill-12b PointAddress 95", "pa-shel-hill-12 PointAddress 85"]),
        Row(
            rule: "the other locality's street costs 20", query: "12 Hill Street, Shelbyville",
            top: ["pa-shel-hill-12 PointAddress 100", "pa-hill-12 PointAddress 80", "sc-hill StreetAddress 80"]),
        Row(
            rule: "no house number is a StreetName, the centre-line first", query: "Hill Street, Springfield",
            top: ["sc-hill StreetName 100", "pa-shel-hill-12 StreetName 80", "lo-springfield Locality 70"],
            matchAddress: "Hill Street, Springfield, 90210"),
        Row(
            rule: "a number in the ranges interpolates", query: "99 Hill St, Springfield",
            top: ["sc-hill StreetAddress 100", "lo-springfield Locality 70"],
            matchAddress: "99 Hill Street, Springfield, 90210"),
        Row(
            rule: "a number without a point interpolates", query: "13 Hill St, Springfield",
            top: ["sc-hill StreetAddress 100", "lo-springfield Locality 70"]),
        Row(
            rule: "a number outside the ranges is a StreetName less 10", query: "250 Hill St, Springfield",
            top: ["sc-hill StreetName 90", "lo-springfield Locality 70"], matchAddress: "Hill Street, Springfield, 90210"),
        Row(
            rule: "N is North", query: "7 N Main St, Springfield", top: ["pa-main-7 PointAddress 100", "sc-main StreetAddress 100"],
            matchAddress: "7 North Main Street, Springfield, 90210"),
        Row(
            rule: "North spelt out is the same", query: "7 North Main Street, Springfield",
            top: ["pa-main-7 PointAddress 100", "sc-main StreetAddress 100"]),
        Row(
            rule: "a missing direction costs 4", query: "7 Main St, Springfield",
            top: ["pa-main-7 PointAddress 96", "sc-main StreetAddress 96", "lo-springfield Locality 70"]),
        Row(
            rule: "St first in a street name is Saint", query: "3 St Marys Road, St Albans",
            top: ["pa-marys-3 PointAddress 100", "sc-marys StreetName 90", "lo-stalbans Locality 70"],
            matchAddress: "3 Saint Marys Road, St Albans, AL1 3AB"),
        Row(
            rule: "Saint spelt out and a known St locality without commas", query: "3 Saint Marys Rd St Albans",
            top: ["pa-marys-3 PointAddress 100", "sc-marys StreetName 90"]),
        Row(
            rule: "an even number interpolates on a street numbered on its even side only", query: "26 St Marys Road St Albans",
            top: ["sc-marys StreetAddress 100", "lo-stalbans Locality 70"]),
        Row(
            rule: "diacritics as written", query: "1 Rue de l'Église, Shelbyville",
            top: ["pa-eglise-1 PointAddress 100", "sc-eglise StreetAddress 100"],
            matchAddress: "1 Rue de l'Église, Shelbyville, 90300"),
        Row(
            rule: "diacritics left out", query: "1 Rue de l'Eglise, Shelbyville",
            top: ["pa-eglise-1 PointAddress 100", "sc-eglise StreetAddress 100"]),
        Row(
            rule: "an elision split by a space costs an extra token and an edit", query: "1 rue de l eglise shelbyville",
            top: ["pa-eglise-1 PointAddress 87", "sc-eglise StreetAddress 87", "lo-shelbyville Locality 70"]),
        Row(
            rule: "descending ranges interpolate", query: "11 Rue de l'Eglise Shelbyville",
            top: ["sc-eglise StreetAddress 100", "lo-shelbyville Locality 70"]),
        Row(rule: "sharp s is ss", query: "20 Hauptstrasse, Shelbyville", top: ["pa-haupt-20 PointAddress 100", "lo-shelbyville Locality 70"]),
        Row(
            rule: "ordinal words are digits", query: "100 First Avenue, Springfield", top: ["pa-first-100 PointAddress 100"],
            matchAddress: "100 1st Avenue, Springfield, 90210"),
        Row(
            rule: "a place by its name", query: "Springfield Public Library", top: ["poi-library POI 95"],
            matchAddress: "Springfield Public Library, Springfield"),
        Row(
            rule: "a place with its locality", query: "Central Station, St Albans",
            top: ["poi-station POI 100", "pa-station-5 StreetName 88", "lo-stalbans Locality 70"]),
        Row(rule: "a place's diacritics", query: "Cafe Rouge", top: ["poi-cafe POI 95"], matchAddress: "Café Rouge, Shelbyville"),
        Row(rule: "a missing distinctive token costs 15", query: "Public Library, Springfield", top: ["poi-library POI 85"]),
        Row(rule: "a house number given for a place costs 10", query: "12 Central Station, St Albans", top: ["poi-station POI 90"]),
        Row(
            rule: "a locality asked of an entry without one costs 5", query: "Old Fountain, Springfield",
            top: ["poi-fountain POI 95", "lo-springfield Locality 70"], matchAddress: "Old Fountain"),
        Row(rule: "a locality alone", query: "Springfield", top: ["lo-springfield Locality 100"]),
        Row(
            rule: "a postcode before its locality", query: "90210 Springfield",
            top: ["po-90210 Postal 100", "lo-springfield Locality 100"]),
        Row(
            rule: "a postcode alone before a comma and its locality", query: "90210, Springfield",
            top: ["po-90210 Postal 100", "lo-springfield Locality 100"]),
        Row(rule: "a postcode alone", query: "90210", top: ["po-90210 Postal 100"], matchAddress: "90210, Springfield"),
        Row(rule: "another locality costs 20", query: "42 Oak Ln, Shelbyville", top: ["pa-oak-42 PointAddress 80", "lo-shelbyville Locality 70"]),
        Row(
            rule: "another postcode costs 10", query: "42 Oak Lane, Springfield 90300",
            top: ["pa-oak-42 PointAddress 90", "lo-springfield Locality 70"]),
        Row(
            rule: "a longer similar name is not a fuzzy match", query: "22 Hillcrest Drive Springfield",
            top: ["pa-hillcrest-22 PointAddress 100", "lo-springfield Locality 70"]),
        Row(rule: "Ct is Court", query: "8 Elm Ct, Springfield", top: ["pa-elm-8 PointAddress 100"], matchAddress: "8 Elm Court, Springfield, 90210"),
        Row(rule: "Sq is Square", query: "4 Market Sq, St Albans", top: ["pa-market-4 PointAddress 100"]),
        Row(rule: "Boulevard matches Blvd", query: "11 Sunset Boulevard, Shelbyville", top: ["pa-sunset-11 PointAddress 100"]),
        Row(rule: "Cres is Crescent, its dot ignored", query: "6 Victoria Cres, Springfield", top: ["pa-victoria-6 PointAddress 100"]),
        Row(rule: "an unknown street falls back to the locality", query: "99 Nowhere Road, Springfield", top: ["lo-springfield Locality 70"]),
        Row(rule: "a street name alone", query: "St Marys Road", top: ["sc-marys StreetName 95"]),
        Row(
            rule: "Rd is Road", query: "5 Station Rd, St Albans",
            top: ["pa-station-5 PointAddress 100", "lo-stalbans Locality 70", "poi-station POI 67"]),
        Row(rule: "misspelt without number or locality", query: "Hil Stret", top: ["sc-hill StreetName 85", "pa-shel-hill-12 StreetName 85"]),
        Row(
            rule: "the exact street beats one with an extra direction", query: "Main Street",
            top: ["pa-shel-main-9 StreetName 95", "sc-main StreetName 91"]),
    ]

    @Test(arguments: rows)
    func theBestMatchAndTheOrderOfTheTopCandidates(_ row: Row) throws {
        let query = SingleLineAddress.parse(row.query, knownLocalities: LocatorFixture.known)
        let found = AddressMatcher.findCandidates(query, among: LocatorFixture.entries, maxLocations: row.top.count)
        #expect(found.map { "\($0.entryId) \($0.addressType.rawValue) \(Int($0.score))" } == row.top)
        if let matchAddress = row.matchAddress { #expect(found.first?.matchAddress == matchAddress) }
    }

    @Test func theTableHasAtLeastTwentyFiveAddresses() {
        #expect(Self.rows.count >= 25)
    }

    /// `score` is the candidate's score, and 0 for an entry that is no candidate.
    @Test func scoreIsTheCandidatesScoreOrZero() {
        let query = SingleLineAddress.parse("12 Hill St, Springfield", knownLocalities: LocatorFixture.known)
        #expect(AddressMatcher.score(query, LocatorFixture.entry("pa-hill-12")) == 100)
        #expect(AddressMatcher.score(query, LocatorFixture.entry("pa-hill-14")) == 0)
        #expect(AddressMatcher.score(query, LocatorFixture.entry("pa-oak-42")) == 0)
    }

    /// Tokens paired out of the entry's order cost a point, so "3 Park Hill 2" finds Park Hill 2
    /// before Hill Park 2 (the geocoding benchmark's one miss among a million addresses).
    @Test func tokensPairedOutOfTheEntrysOrderCostAPoint() {
        #expect(TokenAlignment(query: ["park", "hill", "2"], entry: ["park", "hill", "2"]).penalties == [])
        #expect(TokenAlignment(query: ["park", "hill", "2"], entry: ["hill", "park", "2"]).penalties == [.tokenOrder])
        #expect(TokenAlignment(query: ["prak", "hill"], entry: ["hill", "park"]).penalties == [.fuzzyToken(edits: 1), .tokenOrder])
        #expect(TokenAlignment(query: ["park", "hill"], entry: ["park", "row", "hill"]).penalties == [.missingToken(generic: false)])
    }

    /// Every penalty the table names, with its points (docs/geocoding.md, "Score").
    @Test(arguments: [
        (MatchPenalty.fuzzyToken(edits: 1), 5.0), (.fuzzyToken(edits: 2), 10), (.missingToken(generic: false), 15), (.missingToken(generic: true), 4),
        (.extraToken, 8), (.houseNumberNotFound, 10), (.houseNumberSuffix, 5), (.houseNumberOnPlace, 10), (.streetNotFound, 30),
        (.missingLocality, 5), (.localityUnknownToEntry, 5), (.differentLocality, 20), (.differentPostcode, 10), (.tokenOrder, 1),
    ])
    func penaltiesCostTheirPoints(_ penalty: MatchPenalty, _ points: Double) {
        #expect(penalty.points == points)
    }

    /// A StreetAddress is placed by the centre-line's ranges, `offset` off the line.
    @Test func anInterpolatedCandidateIsPlacedOnItsSide() throws {
        let query = SingleLineAddress.parse("13 Hill St, Springfield", knownLocalities: LocatorFixture.known)
        let candidate = try #require(AddressMatcher.match(query, LocatorFixture.entry("sc-hill"), options: .init(interpolationOffset: 5)))
        #expect(candidate.side == .left)
        #expect(abs(candidate.location.x - 1_200.0 / 98) < 1e-9)
        #expect(candidate.location.y == 5)
    }

    /// The multi-field form parses to what the single line does, and so matches alike.
    @Test func multiFieldAndSingleLineMatchAlike() {
        let multi = MultiFieldAddress(address: "12 Hill St", city: "Springfield", postal: "90210").parsed
        let single = SingleLineAddress.parse("12 Hill St, Springfield, 90210")
        #expect(multi == single)
        #expect(AddressMatcher.findCandidates(multi, among: LocatorFixture.entries).first?.entryId == "pa-hill-12")
    }
}
