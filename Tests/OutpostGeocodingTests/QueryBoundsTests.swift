import Testing

@testable import OutpostGeocoding

/// What one request may cost (docs/geocoding.md, "Parsing", "Search terms", "Suggest").
@Suite struct QueryBoundsTests {
    /// One character of 100,000 combining marks: the bytes are cut before anything is folded.
    @Test func aHugeCharacterIsCutTo1024BytesOnAScalarBoundary() {
        let zalgo = "a" + String(repeating: "\u{301}", count: 100_000) + " Hill"
        let bounded = QueryBounds.bounded(zalgo)
        #expect(bounded.utf8.count <= QueryBounds.maximumUTF8Bytes)
        #expect(bounded.unicodeScalars.dropFirst().allSatisfy { $0 == "\u{301}" })
        // "a" and 511 two-byte marks fill 1,023 bytes; the next mark would split, so it goes whole.
        #expect(bounded.utf8.count == 1_023)
    }

    /// A word after 600 marks (1,200 bytes, one character) is past the bytes though within
    /// 200 characters: in the single line and in each multi-field field.
    @Test func eachMultiFieldFieldIsCutToo() {
        let marks = String(repeating: "\u{301}", count: 600)
        let parsed = MultiFieldAddress(address: "12 Hill\(marks) Road", city: "Ab\(marks) Springfield", region: "Cd\(marks) Ef").parsed
        #expect(parsed.street == ["hill"])
        #expect(parsed.locality == ["ab"])
        #expect(parsed.region == ["cd"])
        #expect(SingleLineAddress.parse("12 Hill\(marks) Road, Springfield").street == ["hill"])
    }

    /// The fields share one budget of 20 words, spent Address, City, Postal, Region, Address2.
    @Test func multiFieldFieldsShareOneBudgetOf20Words() {
        let fifteen = (0..<15).map { "a\($0)" }.joined(separator: " ")
        let ten = (0..<10).map { "c\($0)" }.joined(separator: " ")
        let parsed = MultiFieldAddress(address: "12 " + fifteen, address2: ten, city: ten, postal: "90210", region: ten).parsed
        #expect(parsed.houseNumber?.number == 12)
        #expect(parsed.street.count == 15)
        #expect(parsed.locality.count == 4)
        #expect(parsed.postcode == nil)
        #expect(parsed.region.isEmpty && parsed.subAddress.isEmpty)
        let total = 1 + parsed.street.count + parsed.locality.count
        #expect(total == QueryBounds.maximumTokens)
    }

    /// Only the first `maximumEntries` entries given are read: ordering them is the index's job.
    @Test func matchSuggestAndReverseReadAtMost1000Entries() {
        let filler = (0..<AddressMatcher.maximumEntries).map { index in
            LocatorEntry(id: "f\(index)", kind: .locality, locality: ["nowhere"], location: PlanarPoint(x: 1e6, y: 1e6))
        }
        let hill = LocatorFixture.entry("pa-hill-12")
        let query = SingleLineAddress.parse("12 Hill St")
        #expect(AddressMatcher.findCandidates(query, among: filler + [hill]).isEmpty)
        #expect(AddressMatcher.findCandidates(query, among: Array(filler.dropLast()) + [hill]).map(\.entryId) == ["pa-hill-12"])
        #expect(AddressMatcher.suggest(SingleLineAddress.parse("12 Hill St", typing: true), among: filler + [hill]).isEmpty)
        #expect(ReverseGeocoder.reverseGeocode(hill.location, among: filler + [hill], maxDistance: 1) == nil)
        #expect(ReverseGeocoder.reverseGeocode(hill.location, among: [hill] + filler, maxDistance: 1)?.entryId == "pa-hill-12")
    }

    /// The early exit: two unlike 40-letter tokens stop after the rows the bound allows.
    @Test func theFuzzyDistanceStopsOnceARowPassesTheBound() {
        let a = String(repeating: "a", count: 40)
        let b = String(repeating: "b", count: 40)
        let measured = TokenDistance.measured(a, b, bound: 2)
        #expect(measured.distance == nil)
        #expect(measured.rows == 3)
        #expect(TokenDistance.measured("abcdefgh", "abcdefgh", bound: 2).rows == 8)
    }
}
