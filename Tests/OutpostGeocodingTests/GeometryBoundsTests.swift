import Testing

@testable import OutpostGeocoding

/// Non-finite and overflowing input never traps (docs/geocoding.md, "Ranking", "Interpolation",
/// "Reverse geocoding").
@Suite struct GeometryBoundsTests {
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aSearchExtentOfNonFiniteValuesIsRefused(_ bad: Double) {
        #expect(SearchExtent(xmin: bad, ymin: 0, xmax: 1, ymax: 1) == nil)
        #expect(SearchExtent(xmin: 0, ymin: 0, xmax: 1, ymax: bad) == nil)
    }

    @Test func aNonFinitePointIsOutsideAnExtent() throws {
        let extent = try #require(SearchExtent(xmin: 0, ymin: 0, xmax: 10, ymax: 10))
        #expect(!extent.contains(PlanarPoint(x: .nan, y: 5)))
        #expect(!extent.contains(PlanarPoint(x: 5, y: .infinity)))
        #expect(extent.contains(PlanarPoint(x: 10, y: 0)))
    }

    /// Ranges a hand-made entry may hold, far past what a query can ask: no overflow.
    @Test(arguments: [
        HouseNumberRanges(leftFrom: Int.min, leftTo: Int.max), HouseNumberRanges(leftFrom: -1, leftTo: Int.max, rightFrom: Int.max, rightTo: Int.min),
        HouseNumberRanges(leftFrom: 0, leftTo: 1_000_000),
    ])
    func rangesPastTheBoundsHoldNoNumbers(_ ranges: HouseNumberRanges) {
        #expect(ranges.isEmpty)
        #expect(!ranges.isWithinBounds)
        #expect(CenterlineInterpolation.place(5, ranges: ranges, polyline: [[0, 0], [10, 0]], offset: 0) == nil)
        #expect(CenterlineInterpolation.houseNumber(at: 0.5, side: .left, ranges: ranges) == nil)
    }

    @Test func interpolationArithmeticIsInDouble() {
        #expect(CenterlineInterpolation.fraction(of: 0, from: Int.min, to: Int.max) > 0.49)
        let ranges = HouseNumberRanges(leftFrom: 0, leftTo: 999_999)
        #expect(CenterlineInterpolation.houseNumber(at: .nan, side: .left, ranges: ranges) == 500_000)
        #expect(CenterlineInterpolation.houseNumber(at: 2, side: .left, ranges: ranges) == 999_999)
        let odd = HouseNumberRanges(leftFrom: 999_999, leftTo: 1)
        #expect(CenterlineInterpolation.houseNumber(at: 1, side: .left, ranges: odd) == 1)
    }

    /// A query's house number against a hand-made centre-line of huge ranges: no trap.
    @Test func matchingAndReverseGeocodingHugeRangesDoNotTrap() {
        let entry = LocatorEntry(
            id: "x", kind: .streetCenterline, street: ["hill", "street"], location: PlanarPoint(x: 5, y: 0), polyline: [[0, 0], [10, 0]],
            ranges: HouseNumberRanges(leftFrom: Int.min, leftTo: Int.max, rightFrom: Int.max, rightTo: Int.max - 1))
        #expect(AddressMatcher.match(SingleLineAddress.parse("999999 Hill St"), entry)?.addressType == .streetName)
        #expect(ReverseGeocoder.reverseGeocode(PlanarPoint(x: 5, y: 1), among: [entry], maxDistance: 5)?.addressType == .streetName)
    }

    @Test(arguments: [(Double.nan, 0.0), (-3, 0), (.infinity, AddressMatcher.Options.maximumInterpolationOffset), (4, 4)])
    func theInterpolationOffsetIsClampedToAFiniteNonNegativeValue(_ given: Double, _ kept: Double) {
        var options = AddressMatcher.Options(interpolationOffset: given)
        #expect(options.interpolationOffset == kept)
        options.interpolationOffset = given
        #expect(options.interpolationOffset == kept)
    }

    @Test func anInfiniteOffsetPlacesAFiniteCandidate() throws {
        let query = SingleLineAddress.parse("13 Hill St, Springfield", knownLocalities: LocatorFixture.known)
        let candidate = try #require(AddressMatcher.match(query, LocatorFixture.entry("sc-hill"), options: .init(interpolationOffset: .infinity)))
        #expect(candidate.location.isFinite)
    }

    /// Vertices so far apart the length overflows: no line (every fraction would be NaN).
    @Test func aLineOfInfiniteLengthIsNoLine() {
        let huge = [[-1e308, 0], [1e308, 0]]
        #expect(CenterlineInterpolation.project(PlanarPoint(x: 0, y: 0), onto: huge) == nil)
        #expect(CenterlineInterpolation.point(along: huge, at: 0.5) == nil)
    }

    /// Two lines with one id: the answer's number and location are the nearer line's own.
    @Test func reverseGeocodingKeepsTheNearestLinesOwnProjection() throws {
        let ranges = HouseNumberRanges(leftFrom: 1, leftTo: 99)
        let far = LocatorEntry(
            id: "dup", kind: .streetCenterline, street: ["hill"], location: PlanarPoint(x: 50, y: 40), polyline: [[0, 40], [100, 40]], ranges: ranges)
        let near = LocatorEntry(
            id: "dup", kind: .streetCenterline, street: ["hill"], location: PlanarPoint(x: 50, y: 0), polyline: [[100, 0], [0, 0]], ranges: ranges)
        let result = try #require(ReverseGeocoder.reverseGeocode(PlanarPoint(x: 90, y: -1), among: [far, near], maxDistance: 10))
        #expect(result.location == PlanarPoint(x: 90, y: 0))
        #expect(result.distance == 1)
        #expect(result.houseNumber?.number == 11)
    }

    /// Two address points equally near: the smaller feature id, whatever the order given.
    @Test func reverseGeocodingTiesGoToTheSmallerFeatureId() throws {
        let b = LocatorEntry(id: "b", kind: .pointAddress, houseNumber: HouseNumber(number: 2), street: ["hill"], location: PlanarPoint(x: 1, y: 0))
        let a = LocatorEntry(id: "a", kind: .pointAddress, houseNumber: HouseNumber(number: 1), street: ["hill"], location: PlanarPoint(x: -1, y: 0))
        #expect(ReverseGeocoder.reverseGeocode(PlanarPoint(x: 0, y: 0), among: [b, a], maxDistance: 5)?.entryId == "a")
        #expect(ReverseGeocoder.reverseGeocode(PlanarPoint(x: 0, y: 0), among: [a, b], maxDistance: 5)?.entryId == "a")
    }
}
