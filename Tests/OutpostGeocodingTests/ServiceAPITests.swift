import Foundation
import Testing

@testable import OutpostGeocoding

/// What a GeocodeServer or LocatorTask needs next (docs/geocoding.md, "Ranking", "Suggest",
/// "Service values").
@Suite struct ServiceAPITests {
    @Test func valuesRoundTripThroughJSON() throws {
        let entries = LocatorFixture.entries
        let decoded = try JSONDecoder().decode([LocatorEntry].self, from: JSONEncoder().encode(entries))
        #expect(decoded == entries)
        let query = SingleLineAddress.parse("13 Hill St, Springfield", knownLocalities: LocatorFixture.known)
        let candidates = AddressMatcher.findCandidates(query, among: entries)
        #expect(try JSONDecoder().decode([GeocodeCandidate].self, from: JSONEncoder().encode(candidates)) == candidates)
        let known = try JSONDecoder().decode(KnownLocalities.self, from: JSONEncoder().encode(LocatorFixture.known))
        #expect(known == LocatorFixture.known)
    }

    @Test func knownLocalitiesFromStoredTokens() {
        let known = KnownLocalities(tokens: [["saint", "albans"], ["springfield"], []])
        #expect(known.contains(["saint", "albans"]))
        #expect(known.longest == 2)
        #expect(known == KnownLocalities(["St Albans", "Springfield"]))
    }

    @Test func aCandidateCarriesArcGISsAttributes() throws {
        let query = SingleLineAddress.parse("13 Hill St, Springfield", knownLocalities: LocatorFixture.known)
        let candidate = try #require(AddressMatcher.match(query, LocatorFixture.entry("sc-hill")))
        #expect(
            candidate.attributes == [
                "Match_addr": "13 Hill Street, Springfield, 90210", "Addr_type": "StreetAddress", "AddNum": "13", "StName": "Hill Street",
                "City": "Springfield", "Postal": "90210", "Side": "L", "Score": "100.00",
            ])
    }

    /// A centre-line's suggestion found again by its key keeps the number it was suggested with.
    @Test func aSuggestionsKeyRestrictsTheSearchAndKeepsItsHouseNumber() throws {
        let typed = SingleLineAddress.parse("99 Hill St, Spr", knownLocalities: LocatorFixture.known, typing: true)
        let suggestion = try #require(AddressMatcher.suggest(typed, among: LocatorFixture.entries).first { $0.text.hasPrefix("99 ") })
        let key = try #require(MagicKey(encoded: suggestion.magicKey))
        let query = SingleLineAddress.parse(suggestion.text, knownLocalities: LocatorFixture.known)
        let found = AddressMatcher.findCandidates(query, restrictedTo: key, among: LocatorFixture.entries)
        #expect(found.map(\.entryId) == ["sc-hill"])
        #expect(found.first?.addressType == .streetAddress)
        #expect(found.first?.houseNumber?.number == 99)
    }

    /// The same entry as the same type twice (another `matchAddress`): the first in rank stays.
    @Test func duplicatesOfOneEntryAndTypeKeepTheFirst() {
        func candidate(_ address: String, _ score: Double) -> GeocodeCandidate {
            GeocodeCandidate(
                entryId: "e", entryKind: .place, addressType: .poi, score: score, matchAddress: address, location: PlanarPoint(x: 0, y: 0))
        }
        let ranked = CandidateRanking.rank([candidate("B", 90), candidate("A", 95)], maxLocations: 5, minScore: 0)
        #expect(ranked.map(\.matchAddress) == ["A"])
    }

    /// A key that passes the version check but carries more than the longest id reads as nil.
    @Test func aKeyPastTheVersionCheckButTooLongIsNil() {
        let long = MagicKey(entryId: String(repeating: "x", count: 10_000), kind: .place).encoded
        #expect(long.utf8.count > MagicKey.maximumEncodedLength)
        #expect(MagicKey(encoded: long) == nil)
        let longest = MagicKey(entryId: String(repeating: "x", count: MagicKey.maximumIdLength), kind: .streetCenterline)
        #expect(longest.encoded.utf8.count <= MagicKey.maximumEncodedLength)
        #expect(MagicKey(encoded: longest.encoded) == longest)
    }

    /// The ranking order of address types and entry kinds is spelt out, not declaration order.
    @Test func rankOrdersAreExplicit() {
        #expect(
            AddressType.allCases.sorted { $0.rankOrder < $1.rankOrder } == [.pointAddress, .streetAddress, .poi, .streetName, .postal, .locality])
        #expect(LocatorEntry.Kind.allCases.sorted { $0.tieOrder < $1.tieOrder } == [.streetCenterline, .pointAddress, .place, .locality, .postal])
    }
}
