/// A planar box of the index's reference (`WebMercator`), for a spatial prefilter.
public struct LocatorBox: Hashable, Sendable {
    public var xmin: Double
    public var ymin: Double
    public var xmax: Double
    public var ymax: Double

    /// The box `radius` around `center`; nil when a value is not finite.
    public init?(around center: PlanarPoint, radius: Double) {
        guard center.isFinite, radius.isFinite, radius >= 0 else { return nil }
        xmin = center.x - radius
        ymin = center.y - radius
        xmax = center.x + radius
        ymax = center.y + radius
    }
}
