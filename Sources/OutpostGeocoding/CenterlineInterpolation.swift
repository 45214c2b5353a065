/// Where a house number lies along a centre-line, and which number lies at a point beside one:
/// plain planar geometry on `[[x, y]]` vertices (docs/geocoding.md, "Interpolation").
///
/// A side whose from and to have the same parity holds only numbers of that parity (the usual
/// odd-left, even-right); a side whose ends differ in parity holds any number between them.
public enum CenterlineInterpolation {
    /// A house number placed on a centre-line.
    public struct Placement: Hashable, Sendable {
        public var side: StreetSide
        /// From the side's `from` (0) to its `to` (1).
        public var fraction: Double
        public var location: PlanarPoint
    }

    /// A point's nearest place on a centre-line.
    public struct Projection: Hashable, Sendable {
        /// Along the line's length, from its first vertex (0) to its last (1).
        public var fraction: Double
        /// The nearest point on the line.
        public var location: PlanarPoint
        public var distance: Double
        /// The side the point is on; a point on the line counts as left.
        public var side: StreetSide
    }

    /// The side that holds `number`, or nil when neither does. When both do, a side whose
    /// parity matches the number beats a mixed side, then left beats right.
    public static func side(of number: Int, in ranges: HouseNumberRanges) -> StreetSide? {
        let holding = [StreetSide.left, .right].filter { side in ranges.range(side).map { holds(number, $0) } ?? false }
        return holding.first { side in ranges.range(side).map { $0.from % 2 == $0.to % 2 } ?? false } ?? holding.first
    }

    /// How far `number` is from `from` towards `to`; the middle when the range is one number.
    /// In Double: the difference of two Ints may overflow, of two Doubles it cannot.
    public static func fraction(of number: Int, from: Int, to: Int) -> Double {
        from == to ? 0.5 : (Double(number) - Double(from)) / (Double(to) - Double(from))
    }

    /// Where `number` is: its side, the fraction along that side's range, and the point at that
    /// fraction of the line's length moved `offset` (line units) off the line to that side.
    /// Nil when no side holds the number or the line has no length.
    public static func place(_ number: Int, ranges: HouseNumberRanges, polyline: [[Double]], offset: Double) -> Placement? {
        guard let side = side(of: number, in: ranges), let range = ranges.range(side), let line = Polyline(polyline), line.length > 0 else {
            return nil
        }
        let share = fraction(of: number, from: range.from, to: range.to)
        return Placement(side: side, fraction: share, location: point(along: line, at: share, offset: offset, side: side))
    }

    /// The point at `fraction` (clamped to 0…1) of the polyline's length, moved `offset` to
    /// `side` (perpendicular to the segment it falls on). Nil for fewer than two finite vertices.
    public static func point(along polyline: [[Double]], at fraction: Double, offset: Double = 0, side: StreetSide = .left) -> PlanarPoint? {
        Polyline(polyline).map { point(along: $0, at: fraction, offset: offset, side: side) }
    }

    /// The point of the line nearest `point`; nil for fewer than two finite vertices or no length.
    public static func project(_ point: PlanarPoint, onto polyline: [[Double]]) -> Projection? {
        guard let line = Polyline(polyline), line.length > 0 else { return nil }
        var best: Projection?
        for index in 0..<line.vertices.count - 1 {
            let start = line.vertices[index]
            let end = line.vertices[index + 1]
            let segment = line.lengths[index + 1] - line.lengths[index]
            guard segment > 0 else { continue }
            let (dx, dy) = ((end.x - start.x) / segment, (end.y - start.y) / segment)
            let along = min(max((point.x - start.x) * dx + (point.y - start.y) * dy, 0), segment)
            let foot = PlanarPoint(x: start.x + dx * along, y: start.y + dy * along)
            let distance = foot.distance(to: point)
            if distance < best?.distance ?? .infinity {
                let cross = dx * (point.y - start.y) - dy * (point.x - start.x)
                best = Projection(
                    fraction: (line.lengths[index] + along) / line.length, location: foot, distance: distance, side: cross >= 0 ? .left : .right)
            }
        }
        return best
    }

    /// The number at `fraction` along a side's range, rounded to the nearest number the side
    /// holds (its parity when it has one); nil when the side has no range.
    /// Arithmetic in Double, and the result clamped between the range's ends before it becomes
    /// an Int again, so no conversion ever meets an unbounded value.
    public static func houseNumber(at fraction: Double, side: StreetSide, ranges: HouseNumberRanges) -> Int? {
        guard let (from, to) = ranges.range(side) else { return nil }
        let (start, end) = (Double(from), Double(to))
        let share = fraction.isNaN ? 0.5 : min(max(fraction, 0), 1)
        var number = start + share * (end - start)
        if from % 2 == to % 2, from != to {
            let step = to > from ? 2.0 : -2.0
            number = start + ((number - start) / step).rounded() * step
        }
        return Int(min(max(number.rounded(), min(start, end)), max(start, end)))
    }

    static func holds(_ number: Int, _ range: (from: Int, to: Int)) -> Bool {
        guard number >= min(range.from, range.to), number <= max(range.from, range.to) else { return false }
        return range.from % 2 != range.to % 2 || abs(number % 2) == abs(range.from % 2)
    }

    static func point(along line: Polyline, at fraction: Double, offset: Double = 0, side: StreetSide = .left) -> PlanarPoint {
        let target = min(max(fraction, 0), 1) * line.length
        var index = 0
        while index < line.vertices.count - 2, line.lengths[index + 1] < target || line.lengths[index + 1] == line.lengths[index] {
            index += 1
        }
        let start = line.vertices[index]
        let end = line.vertices[index + 1]
        let segment = line.lengths[index + 1] - line.lengths[index]
        guard segment > 0 else { return start }
        let (dx, dy) = ((end.x - start.x) / segment, (end.y - start.y) / segment)
        let along = target - line.lengths[index]
        let (nx, ny) = side == .left ? (-dy, dx) : (dy, -dx)
        return PlanarPoint(x: start.x + dx * along + nx * offset, y: start.y + dy * along + ny * offset)
    }
}
