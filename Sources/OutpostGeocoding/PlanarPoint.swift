/// A point in the index's planar coordinates: its projected spatial reference (the index
/// records the wkid), in that reference's units. The index keeps one reference, so distances
/// are plain Euclidean ones in those units; nothing here knows latitude or longitude.
public struct PlanarPoint: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The first two coordinates of a vertex written `[x, y]`, or nil when it has fewer or
    /// either is not finite.
    public init?(vertex: [Double]) {
        guard vertex.count >= 2, vertex[0].isFinite, vertex[1].isFinite else { return nil }
        self.init(x: vertex[0], y: vertex[1])
    }

    public var isFinite: Bool { x.isFinite && y.isFinite }

    public func distance(to other: PlanarPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    public var description: String { "(\(x), \(y))" }
}
