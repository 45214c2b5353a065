/// The house numbers along a centre-line's two sides (TIGER-style from/to per side). A side
/// with either end missing, or either end outside `HouseNumber.bounds`, holds no numbers.
/// From may be above to: numbers then fall along the line.
public struct HouseNumberRanges: Hashable, Sendable, Codable {
    public var leftFrom: Int?
    public var leftTo: Int?
    public var rightFrom: Int?
    public var rightTo: Int?

    public init(leftFrom: Int? = nil, leftTo: Int? = nil, rightFrom: Int? = nil, rightTo: Int? = nil) {
        self.leftFrom = leftFrom
        self.leftTo = leftTo
        self.rightFrom = rightFrom
        self.rightTo = rightTo
    }

    /// One side's from and to, when it has both and both are house numbers a query can ask
    /// (0…999,999): bounded numbers keep every sum and difference far from overflow.
    public func range(_ side: StreetSide) -> (from: Int, to: Int)? {
        let ends: (Int?, Int?) =
            switch side {
            case .left: (leftFrom, leftTo)
            case .right: (rightFrom, rightTo)
            }
        guard let from = ends.0, let to = ends.1, HouseNumber.bounds.contains(from), HouseNumber.bounds.contains(to) else { return nil }
        return (from, to)
    }

    /// No side holds a number.
    public var isEmpty: Bool { range(.left) == nil && range(.right) == nil }

    /// Every end given is within `HouseNumber.bounds` (what `LocatorEntry.make` requires).
    public var isWithinBounds: Bool {
        [leftFrom, leftTo, rightFrom, rightTo].allSatisfy { $0.map(HouseNumber.bounds.contains) ?? true }
    }
}
