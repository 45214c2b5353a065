import Testing

@testable import OutpostGeocoding

/// The order of an answer (docs/geocoding.md, "Ranking").
@Suite struct CandidateRankingTests {
    static func candidate(
        _ id: String, _ type: AddressType, _ score: Double, at x: Double = 0, _ y: Double = 0, kind: LocatorEntry.Kind = .pointAddress,
        address: String? = nil
    ) -> GeocodeCandidate {
        GeocodeCandidate(
            entryId: id, entryKind: kind, addressType: type, score: score, matchAddress: address ?? id, location: PlanarPoint(x: x, y: y))
    }

    @Test func scoreFirstThenAddressTypeThenFeatureId() {
        let ranked = CandidateRanking.rank(
            [
                Self.candidate("z", .locality, 100), Self.candidate("b", .pointAddress, 90), Self.candidate("c", .postal, 100),
                Self.candidate("a", .streetName, 100), Self.candidate("d", .poi, 100), Self.candidate("e", .streetAddress, 100),
                Self.candidate("f", .pointAddress, 100), Self.candidate("g", .pointAddress, 100),
            ], maxLocations: 10, minScore: 0)
        #expect(ranked.map(\.entryId) == ["f", "g", "e", "d", "a", "c", "z", "b"])
    }

    @Test func theAddressTypeOrderIsArcGISs() {
        #expect(AddressType.allCases.map(\.rawValue) == ["PointAddress", "StreetAddress", "POI", "StreetName", "Postal", "Locality"])
    }

    @Test func duplicatesOfOneAddressKeepTheFirst() {
        let ranked = CandidateRanking.rank(
            [
                Self.candidate("p2", .streetName, 100, address: "Hill Street, Springfield"),
                Self.candidate("line", .streetName, 100, kind: .streetCenterline, address: "Hill Street, Springfield"),
                Self.candidate("p1", .streetName, 100, address: "hill street, springfield"),
            ], maxLocations: 10, minScore: 0)
        #expect(ranked.map(\.entryId) == ["line"])
    }

    @Test func minScoreAndMaxLocationsCut() {
        let candidates = (0..<80).map { Self.candidate(String(1_000 + $0), .pointAddress, Double($0)) }
        #expect(CandidateRanking.rank(candidates, maxLocations: 3, minScore: 0).map(\.score) == [79, 78, 77])
        #expect(CandidateRanking.rank(candidates, maxLocations: 500, minScore: 0).count == CandidateRanking.maximumLocations)
        #expect(CandidateRanking.rank(candidates, maxLocations: 100, minScore: 75).count == 5)
        #expect(CandidateRanking.rank(candidates, maxLocations: -1, minScore: 0).isEmpty)
    }

    @Test func aLocationBreaksTiesByDistanceButNeverLiftsAScore() {
        let candidates = [
            Self.candidate("far", .streetName, 95, at: 1_000, 0), Self.candidate("near", .streetName, 95, at: 10, 0),
            Self.candidate("nearest-but-lower", .streetName, 90, at: 1, 0),
        ]
        let bias = LocationBias(location: PlanarPoint(x: 0, y: 0))
        #expect(CandidateRanking.rank(candidates, maxLocations: 5, minScore: 0, near: bias).map(\.entryId) == ["near", "far", "nearest-but-lower"])
        #expect(CandidateRanking.rank(candidates, maxLocations: 5, minScore: 0).map(\.entryId) == ["far", "near", "nearest-but-lower"])
    }

    @Test func beyondTheBiasDistanceAllAreEquallyFar() {
        let candidates = [Self.candidate("b-far", .streetName, 95, at: 500, 0), Self.candidate("a-farther", .streetName, 95, at: 900, 0)]
        let bias = LocationBias(location: PlanarPoint(x: 0, y: 0), distance: 100)
        #expect(CandidateRanking.rank(candidates, maxLocations: 5, minScore: 0, near: bias).map(\.entryId) == ["a-farther", "b-far"])
    }

    @Test func theSearchExtentKeepsItsInsideAndEdges() throws {
        let candidates = [
            Self.candidate("in", .pointAddress, 100, at: 5, 5), Self.candidate("edge", .pointAddress, 100, at: 10, 0),
            Self.candidate("out", .pointAddress, 100, at: 11, 5),
        ]
        let extent = try #require(SearchExtent(xmin: 10, ymin: 10, xmax: 0, ymax: 0))
        #expect(CandidateRanking.rank(candidates, maxLocations: 5, minScore: 0, within: extent).map(\.entryId) == ["edge", "in"])
    }

    @Test func aSearchExtentOverTheFixtureFindsOnlyShelbyvillesHillStreet() {
        let query = SingleLineAddress.parse("12 Hill Street", knownLocalities: LocatorFixture.known)
        let found = AddressMatcher.findCandidates(
            query, among: LocatorFixture.entries, within: SearchExtent(xmin: 900, ymin: 900, xmax: 1_200, ymax: 1_200)!)
        #expect(found.map(\.entryId) == ["pa-shel-hill-12"])
    }
}
