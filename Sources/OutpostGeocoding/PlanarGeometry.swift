/// A point in the index's planar coordinates (its spatial reference's units; the index keeps
/// one reference, so distances are plain Euclidean ones).
public struct PlanarPoint: Hashable, Sendable, CustomStringConvertible {
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

    public func distance(to other: PlanarPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    public var description: String { "(\(x), \(y))" }
}

/// ArcGIS's `searchExtent`: candidates outside it are dropped (its edges are inside).
public struct SearchExtent: Hashable, Sendable {
    public var xmin: Double
    public var ymin: Double
    public var xmax: Double
    public var ymax: Double

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = min(xmin, xmax)
        self.ymin = min(ymin, ymax)
        self.xmax = max(xmin, xmax)
        self.ymax = max(ymin, ymax)
    }

    public func contains(_ point: PlanarPoint) -> Bool {
        (xmin...xmax).contains(point.x) && (ymin...ymax).contains(point.y)
    }
}

/// Which side of a centre-line, looking along the direction it was drawn in.
public enum StreetSide: String, Hashable, Sendable {
    case left, right
}

/// A polyline's vertices checked once: at least two finite vertices, or nothing.
struct Polyline {
    var vertices: [PlanarPoint]
    /// Cumulative length at each vertex; `lengths.last` is the whole length.
    var lengths: [Double]

    init?(_ coordinates: [[Double]]) {
        let vertices = coordinates.compactMap(PlanarPoint.init(vertex:))
        guard vertices.count >= 2, vertices.count == coordinates.count else { return nil }
        self.vertices = vertices
        var lengths = [0.0]
        for index in 1..<vertices.count { lengths.append(lengths[index - 1] + vertices[index - 1].distance(to: vertices[index])) }
        self.lengths = lengths
    }

    var length: Double { lengths[lengths.count - 1] }
}
