import Testing

@testable import OutpostGeocoding

/// A single line and the multi-field form into a `ParsedAddress` (docs/geocoding.md, "Parsing").
@Suite struct SingleLineAddressTests {
    static let known = KnownLocalities(["Springfield", "St Albans", "Paris", "Berlin", "New York"])

    struct Row: CustomTestStringConvertible, Sendable {
        var rule: String
        var text: String
        var expected: ParsedAddress
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(
            rule: "number with suffix, street, locality, postcode", text: "12B Hill St, Springfield 90210",
            expected: ParsedAddress(
                houseNumber: HouseNumber(number: 12, suffix: "b"), street: ["hill", "street"], locality: ["springfield"], postcode: "90210")),
        Row(
            rule: "a range is its first number", text: "12-14 Hill St",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["hill", "street"])),
        Row(
            rule: "without commas the locality is the known suffix", text: "12 Hill St Springfield 90210",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["hill", "street"], locality: ["springfield"], postcode: "90210")),
        Row(
            rule: "the longest known suffix wins", text: "5 Broadway New York",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 5), street: ["broadway"], locality: ["new", "york"])),
        Row(
            rule: "an unknown locality without commas stays in the street", text: "12 Hill St Shelbyville",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["hill", "street", "shelbyville"])),
        Row(
            rule: "a known locality with St is saint", text: "3 St Marys Rd St Albans",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 3), street: ["saint", "marys", "road"], locality: ["saint", "albans"])),
        Row(
            rule: "a postcode before the locality", text: "Hauptstraße 5, 10115 Berlin",
            expected: ParsedAddress(street: ["hauptstrasse", "5"], locality: ["berlin"], postcode: "10115")),
        Row(
            rule: "a postcode before a known locality without commas", text: "1 Rue de la Paix 75002 Paris",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 1), street: ["rue", "de", "la", "paix"], locality: ["paris"], postcode: "75002")),
        Row(
            rule: "a UK postcode is two words", text: "10 Downing St, London SW1A 2AA",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 10), street: ["downing", "street"], locality: ["london"], postcode: "sw1a2aa")),
        Row(
            rule: "a Canadian postcode is two words", text: "24 Sussex Dr, Ottawa K1M 1M4",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 24), street: ["sussex", "drive"], locality: ["ottawa"], postcode: "k1m1m4")),
        Row(
            rule: "ZIP+4 keeps the ZIP", text: "1 Main St, Springfield, IL 62701-1234",
            expected: ParsedAddress(
                houseNumber: HouseNumber(number: 1), street: ["main", "street"], locality: ["springfield"], postcode: "62701", region: ["il"])),
        Row(rule: "a lone number is a postcode", text: "90210", expected: ParsedAddress(postcode: "90210")),
        Row(rule: "a lone known locality", text: "Springfield", expected: ParsedAddress(locality: ["springfield"])),
        Row(
            rule: "a number keeps one word of street", text: "12 Springfield",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["springfield"])),
        Row(
            rule: "a number alone before a comma", text: "12, Hill St",
            expected: ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["hill", "street"])),
        Row(rule: "an ordinal street is not a house number", text: "12th Street", expected: ParsedAddress(street: ["12th", "street"])),
        Row(rule: "a trailing number stays in the street", text: "Route 66", expected: ParsedAddress(street: ["route", "66"])),
        Row(rule: "blank is empty", text: " ,, ; ", expected: ParsedAddress()),
    ]

    @Test(arguments: rows)
    func parses(_ row: Row) {
        #expect(SingleLineAddress.parse(row.text, knownLocalities: Self.known) == row.expected)
    }

    @Test(arguments: [
        (
            "the last word is the prefix", "12 Hill St, Spr",
            ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["hill", "street"], prefix: "spr")
        ),
        ("a trailing space ends the word", "12 Hill St ", ParsedAddress(houseNumber: HouseNumber(number: 12), street: ["hill", "street"])),
        ("a number being typed", "12", ParsedAddress(prefix: "12")),
        ("a street being typed after a number", "12 Hi", ParsedAddress(houseNumber: HouseNumber(number: 12), prefix: "hi")),
    ])
    func typing(_ rule: String, _ text: String, _ expected: ParsedAddress) {
        #expect(SingleLineAddress.parse(text, knownLocalities: Self.known, typing: true) == expected, "\(rule)")
    }

    @Test func boundsCutTheTextTo200CharactersAnd20Words() {
        let long = Array(repeating: "hill", count: 100).joined(separator: " ")
        #expect(SingleLineAddress.parse(long).street.count == QueryBounds.maximumTokens)
        let one = String(repeating: "x", count: 500)
        #expect(SingleLineAddress.parse(one).street == [String(repeating: "x", count: AddressNormalizer.maximumTokenLength)])
        let late = String(repeating: " ", count: 200) + "hill"
        #expect(SingleLineAddress.parse(late).isEmpty)
    }

    @Test(arguments: [
        (
            "the fields map to the single line's value", MultiFieldAddress(address: "12B Hill St", city: "Springfield", postal: "90210"),
            "12B Hill St, Springfield, 90210"
        ),
        (
            "region is kept", MultiFieldAddress(address: "1 Main St", city: "Springfield", postal: "62701", region: "IL"),
            "1 Main St, Springfield, IL 62701"
        ),
        ("a street without a number", MultiFieldAddress(address: "Hill St", city: "Springfield"), "Hill St, Springfield"),
        ("a city alone", MultiFieldAddress(city: "St Albans"), "St Albans"),
    ])
    func multiField(_ rule: String, _ fields: MultiFieldAddress, _ single: String) {
        #expect(fields.parsed == SingleLineAddress.parse(single, knownLocalities: Self.known), "\(rule)")
    }

    @Test func address2IsASubAddressNeverScored() {
        let parsed = MultiFieldAddress(address: "12 Hill St", address2: "Apt 4", city: "Springfield").parsed
        #expect(parsed.subAddress == ["apt", "4"])
        #expect(parsed.street == ["hill", "street"])
    }
}
