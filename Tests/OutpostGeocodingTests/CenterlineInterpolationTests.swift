import Testing

@testable import OutpostGeocoding

/// House numbers placed along centre-lines, and read back from points (docs/geocoding.md,
/// "Interpolation").
@Suite struct CenterlineInterpolationTests {
    static let eastward: [[Double]] = [[0, 0], [100, 0]]
    static let bent: [[Double]] = [[300, 0], [300, 100], [350, 100]]
    static let westward: [[Double]] = [[600, 500], [500, 500]]
    static let oddLeftEvenRight = HouseNumberRanges(leftFrom: 1, leftTo: 99, rightFrom: 2, rightTo: 100)

    struct Row: CustomTestStringConvertible, Sendable {
        var rule: String
        var number: Int
        var ranges: HouseNumberRanges
        var polyline: [[Double]]
        var offset: Double
        var side: StreetSide?
        var x: Double
        var y: Double
        var testDescription: String { rule }
    }

    static let rows: [Row] = [
        Row(
            rule: "odd on the left, north of an eastward line", number: 13, ranges: oddLeftEvenRight, polyline: eastward, offset: 5, side: .left,
            x: 1_200.0 / 98, y: 5),
        Row(
            rule: "the fraction is along the side's range", number: 51, ranges: oddLeftEvenRight, polyline: eastward, offset: 5, side: .left,
            x: 5_000.0 / 98, y: 5),
        Row(
            rule: "even on the right, south of an eastward line", number: 52, ranges: oddLeftEvenRight, polyline: eastward, offset: 2, side: .right,
            x: 50.0 / 98 * 100, y: -2),
        Row(
            rule: "the first number is at the first vertex", number: 1, ranges: oddLeftEvenRight, polyline: eastward, offset: 0, side: .left,
            x: 0, y: 0),
        Row(
            rule: "the last number is at the last vertex", number: 100, ranges: oddLeftEvenRight, polyline: eastward, offset: 0, side: .right,
            x: 100, y: 0),
        Row(
            rule: "by length along a bent line, right of a northward segment is east", number: 16,
            ranges: HouseNumberRanges(leftFrom: 1, leftTo: 29, rightFrom: 2, rightTo: 30), polyline: bent, offset: 3, side: .right, x: 303, y: 75),
        Row(
            rule: "onto the second segment of a bent line", number: 29,
            ranges: HouseNumberRanges(leftFrom: 1, leftTo: 29, rightFrom: 2, rightTo: 30), polyline: bent, offset: 3, side: .left, x: 350, y: 103),
        Row(
            rule: "descending ranges run back along the line", number: 11,
            ranges: HouseNumberRanges(leftFrom: 21, leftTo: 1, rightFrom: 20, rightTo: 2), polyline: westward, offset: 4, side: .left, x: 550, y: 496),
        Row(
            rule: "a one-number range is the middle", number: 7, ranges: HouseNumberRanges(leftFrom: 7, leftTo: 7), polyline: eastward, offset: 0,
            side: .left, x: 50, y: 0),
        Row(
            rule: "a mixed-parity side holds any number", number: 10, ranges: HouseNumberRanges(leftFrom: 1, leftTo: 20), polyline: eastward,
            offset: 0, side: .left, x: 900.0 / 19, y: 0),
    ]

    @Test(arguments: rows)
    func places(_ row: Row) throws {
        let placement = try #require(CenterlineInterpolation.place(row.number, ranges: row.ranges, polyline: row.polyline, offset: row.offset))
        #expect(placement.side == row.side)
        #expect(abs(placement.location.x - row.x) < 1e-9 && abs(placement.location.y - row.y) < 1e-9, "\(placement.location)")
    }

    @Test(arguments: [
        ("outside the ranges", 101, oddLeftEvenRight),
        ("below the ranges", 0, oddLeftEvenRight),
        ("an odd number where only the even side is numbered", 3, HouseNumberRanges(rightFrom: 2, rightTo: 50)),
        ("no ranges at all", 5, HouseNumberRanges()),
    ])
    func doesNotPlace(_ rule: String, _ number: Int, _ ranges: HouseNumberRanges) {
        #expect(CenterlineInterpolation.place(number, ranges: ranges, polyline: Self.eastward, offset: 0) == nil, "\(rule)")
    }

    @Test func aLineWithoutTwoFiniteVerticesPlacesNothing() {
        #expect(CenterlineInterpolation.point(along: [[1, 1]], at: 0.5) == nil)
        #expect(CenterlineInterpolation.point(along: [[0, 0], [Double.nan, 1]], at: 0.5) == nil)
        #expect(CenterlineInterpolation.place(3, ranges: Self.oddLeftEvenRight, polyline: [[5, 5], [5, 5]], offset: 0) == nil)
    }

    @Test func aParityMatchedSideBeatsAMixedOneThenLeftBeatsRight() {
        let both = HouseNumberRanges(leftFrom: 1, leftTo: 20, rightFrom: 2, rightTo: 20)
        #expect(CenterlineInterpolation.side(of: 4, in: both) == .right)
        #expect(CenterlineInterpolation.side(of: 5, in: both) == .left)
        let mixed = HouseNumberRanges(leftFrom: 1, leftTo: 20, rightFrom: 2, rightTo: 21)
        #expect(CenterlineInterpolation.side(of: 4, in: mixed) == .left)
    }

    @Test(arguments: [
        ("north of an eastward line is left", PlanarPoint(x: 25, y: 3), 0.25, StreetSide.left, 3.0),
        ("south is right", PlanarPoint(x: 75, y: -4), 0.75, StreetSide.right, 4.0),
        ("beyond the end projects on the end", PlanarPoint(x: 110, y: 0), 1.0, StreetSide.left, 10.0),
    ])
    func projects(_ rule: String, _ point: PlanarPoint, _ fraction: Double, _ side: StreetSide, _ distance: Double) throws {
        let projection = try #require(CenterlineInterpolation.project(point, onto: Self.eastward))
        #expect(abs(projection.fraction - fraction) < 1e-9, "\(rule)")
        #expect(projection.side == side, "\(rule)")
        #expect(abs(projection.distance - distance) < 1e-9, "\(rule)")
    }

    @Test(arguments: [
        ("rounds to the side's parity", 0.5, StreetSide.right, 52),
        ("the start", 0.0, StreetSide.left, 1),
        ("the end", 1.0, StreetSide.left, 99),
        ("a quarter of the odd side", 0.25, StreetSide.left, 25),
    ])
    func numbersAtAFraction(_ rule: String, _ fraction: Double, _ side: StreetSide, _ number: Int) {
        #expect(CenterlineInterpolation.houseNumber(at: fraction, side: side, ranges: Self.oddLeftEvenRight) == number, "\(rule)")
    }
}
