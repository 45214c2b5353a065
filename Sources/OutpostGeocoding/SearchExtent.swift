/// ArcGIS's `searchExtent`: candidates outside it are dropped (its edges are inside).
public struct SearchExtent: Hashable, Sendable {
    public private(set) var xmin: Double
    public private(set) var ymin: Double
    public private(set) var xmax: Double
    public private(set) var ymax: Double

    /// Nil when any value is not finite: a request's junk extent is refused, not trusted
    /// (NaN would make every comparison false, and a range of it would trap).
    public init?(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        guard [xmin, ymin, xmax, ymax].allSatisfy(\.isFinite) else { return nil }
        self.xmin = min(xmin, xmax)
        self.ymin = min(ymin, ymax)
        self.xmax = max(xmin, xmax)
        self.ymax = max(ymin, ymax)
    }

    /// Plain comparisons: a non-finite point is outside, never a trap.
    public func contains(_ point: PlanarPoint) -> Bool {
        point.x >= xmin && point.x <= xmax && point.y >= ymin && point.y <= ymax
    }
}
