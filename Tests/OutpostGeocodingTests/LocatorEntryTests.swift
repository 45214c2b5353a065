import Testing

@testable import OutpostGeocoding

/// The builder's pure part: a source feature's fields into an entry (docs/geocoding.md, "Entries").
@Suite struct LocatorEntryTests {
    static let here = PlanarPoint(x: 1, y: 2)

    @Test func aPointAddressFromItsFields() throws {
        let entry = try LocatorEntry.make(
            id: "a:1", kind: .pointAddress,
            fields: LocatorSourceFields(houseNumber: " 12b ", street: "N  Main St.", locality: "Springfield", postcode: "sw1a 1aa"),
            location: Self.here)
        #expect(entry.houseNumber == HouseNumber(number: 12, suffix: "b"))
        #expect(entry.street == ["north", "main", "street"])
        #expect(entry.postcode == "sw1a1aa")
        #expect(entry.display == LocatorEntry.Display(street: "North Main Street", locality: "Springfield", postcode: "SW1A 1AA"))
        #expect(entry.indexTokens == ["12b", "north", "main", "street", "springfield", "sw1a1aa"])
    }

    @Test func aPointAddressFromAFullAddress() throws {
        let entry = try LocatorEntry.make(
            id: "a:2", kind: .pointAddress, fields: LocatorSourceFields(fullAddress: "12 Hill St, Springfield, 90210"), location: Self.here)
        #expect(entry.houseNumber == HouseNumber(number: 12))
        #expect(entry.street == ["hill", "street"])
        #expect(entry.locality == ["springfield"])
        #expect(entry.postcode == "90210")
        #expect(AddressMatcher.matchAddress(.pointAddress, entry, houseNumber: entry.houseNumber) == "12 Hill Street, Springfield, 90210")
    }

    @Test func aCentreLineIsLocatedHalfwayAlong() throws {
        let entry = try LocatorEntry.make(
            id: "l:1", kind: .streetCenterline, fields: LocatorSourceFields(street: "Hill St", ranges: HouseNumberRanges()),
            polyline: [[0, 0], [0, 10], [30, 10]])
        #expect(entry.location == PlanarPoint(x: 10, y: 10))
        #expect(entry.ranges == nil)
    }

    @Test(arguments: [
        (
            "a point address needs a number", LocatorEntry.Kind.pointAddress, LocatorSourceFields(street: "Hill St"),
            LocatorEntryRefusal.missing(field: "houseNumber")
        ),
        ("a point address needs a street", .pointAddress, LocatorSourceFields(houseNumber: "3"), .missing(field: "street")),
        ("an unreadable number", .pointAddress, LocatorSourceFields(houseNumber: "rear", street: "Hill St"), .unreadableHouseNumber("rear")),
        ("a half number", .pointAddress, LocatorSourceFields(houseNumber: "12 1/2", street: "Hill St"), .unreadableHouseNumber("12 1/2")),
        ("a place needs a name", .place, LocatorSourceFields(placeName: "  "), .missing(field: "placeName")),
        ("a locality needs its name", .locality, LocatorSourceFields(postcode: "90210"), .missing(field: "locality")),
        ("a postcode area needs a postcode", .postal, LocatorSourceFields(locality: "Springfield"), .missing(field: "postcode")),
    ])
    func refuses(_ rule: String, _ kind: LocatorEntry.Kind, _ fields: LocatorSourceFields, _ refusal: LocatorEntryRefusal) {
        #expect(throws: refusal, "\(rule)") { try LocatorEntry.make(id: "x", kind: kind, fields: fields, location: Self.here) }
    }

    @Test(arguments: [[[Double]](), [[0, 0]], [[0, 0], [Double.infinity, 1]], [[3, 3], [3, 3]], [[0], [1, 1]]])
    func aCentreLineNeedsALine(_ polyline: [[Double]]) {
        #expect(throws: LocatorEntryRefusal.noGeometry) {
            try LocatorEntry.make(id: "x", kind: .streetCenterline, fields: LocatorSourceFields(street: "Hill St"), polyline: polyline)
        }
    }

    @Test func aPointKindNeedsAPoint() {
        #expect(throws: LocatorEntryRefusal.noGeometry) {
            try LocatorEntry.make(id: "x", kind: .place, fields: LocatorSourceFields(placeName: "Library"))
        }
    }

    /// Whatever text a source holds, an entry's tokens are `[a-z0-9]`, at most 40 long.
    @Test func randomTextMakesOnlySafeTokens() throws {
        var random = SeededGenerator(seed: 3)
        let pool = Array("aZé ß'\"-.,;()*:^~ÆøŁ0123456789\u{301}\u{0}Ωж漢 ") + ["\n"]
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 1...120, using: &random)).map { _ in pool.randomElement(using: &random)! })
            guard let entry = try? LocatorEntry.make(id: "r", kind: .place, fields: LocatorSourceFields(placeName: text), location: Self.here) else {
                continue
            }
            for token in entry.indexTokens {
                #expect(!token.isEmpty && token.count <= AddressNormalizer.maximumTokenLength)
                #expect(token.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }, "\(token)")
            }
            let terms = SearchTerms(SingleLineAddress.parse(text, typing: true))
            #expect(terms.required.count + terms.optional.count + (terms.prefix == nil ? 0 : 1) <= QueryBounds.maximumTokens)
        }
    }
}
