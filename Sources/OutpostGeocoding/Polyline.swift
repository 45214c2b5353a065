/// A polyline's vertices checked once: at least two finite vertices and a finite length, or
/// nothing. A length that overflows (vertices near ±1e308) would make every fraction NaN.
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
        guard lengths[lengths.count - 1].isFinite else { return nil }
        self.lengths = lengths
    }

    var length: Double { lengths[lengths.count - 1] }
}
