import OutpostGeocoding

/// A point placed on the network: an edge and how far along it (0 at its first junction, 1 at
/// its last, by length), the nearest point of the edge, and how far that was from the input.
public struct NetworkLocation: Sendable, Equatable {
    public var edge: Int
    public var fraction: Double
    public var snapped: PlanarPoint
    /// Metres from the input point to `snapped`.
    public var distance: Double

    public init(edge: Int, fraction: Double, snapped: PlanarPoint, distance: Double) {
        self.edge = edge
        self.fraction = fraction
        self.snapped = snapped
        self.distance = distance
    }
}

/// Finds the nearest edge to a point through a grid over the edges' segments, built once
/// per loaded network.
public struct EdgeLocator: Sendable {
    struct Segment {
        let edge: Int32
        let vertex: Int32
        /// Metres along the edge where the segment starts.
        let along: Double
    }

    let network: RoadNetwork
    let cell: Double
    let segments: [Segment]
    let grid: [Int64: [Int32]]
    /// Segments whose box meets more than `maximumCells` cells: read by every search.
    let long: [Int32]
    static let maximumCells = 64

    public init(_ network: RoadNetwork) {
        self.network = network
        var segments: [Segment] = []
        segments.reserveCapacity(network.vertexX.count)
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for e in 0..<network.edgeCount {
            var along = 0.0
            let vertices = network.vertices(of: e)
            for (i, (a, b)) in zip(vertices, vertices.dropFirst()).enumerated() {
                segments.append(Segment(edge: Int32(e), vertex: Int32(i), along: along))
                along += RoadNetworkBuilder.metres(from: a, to: b)
            }
        }
        for i in 0..<network.vertexX.count {
            minX = min(minX, network.vertexX[i])
            maxX = max(maxX, network.vertexX[i])
            minY = min(minY, network.vertexY[i])
            maxY = max(maxY, network.vertexY[i])
        }
        // About one segment a cell over the extent; a long segment sits in every cell its box meets.
        let side = max(maxX - minX, maxY - minY, 1)
        cell = max(side / Double(max(segments.count, 1)).squareRoot(), 1)
        var grid: [Int64: [Int32]] = [:]
        var long: [Int32] = []
        for (index, segment) in segments.enumerated() {
            let first = Int(network.vertexStart[Int(segment.edge)]) + Int(segment.vertex)
            let (x0, x1) = (network.vertexX[first], network.vertexX[first + 1])
            let (y0, y1) = (network.vertexY[first], network.vertexY[first + 1])
            let xs = Self.cellIndex(min(x0, x1), cell)...Self.cellIndex(max(x0, x1), cell)
            let ys = Self.cellIndex(min(y0, y1), cell)...Self.cellIndex(max(y0, y1), cell)
            guard xs.count * ys.count <= Self.maximumCells else {
                long.append(Int32(index))
                continue
            }
            for cx in xs {
                for cy in ys {
                    grid[Self.key(cx, cy), default: []].append(Int32(index))
                }
            }
        }
        self.segments = segments
        self.grid = grid
        self.long = long
    }

    static func cellIndex(_ value: Double, _ cell: Double) -> Int { Int((value / cell).rounded(.down)) }
    static func key(_ x: Int, _ y: Int) -> Int64 { Int64(x) << 32 ^ Int64(UInt32(truncatingIfNeeded: y)) }

    /// The nearest location within `tolerance` metres on an edge `accepts` admits, or nil.
    public func locate(_ point: PlanarPoint, tolerance: Double, accepts: (Int) -> Bool = { _ in true }) -> NetworkLocation? {
        guard point.isFinite, tolerance.isFinite, tolerance >= 0, !segments.isEmpty else { return nil }
        let reach = tolerance * WebMercator.unitsPerMetre(at: point)
        let (cx, cy) = (Self.cellIndex(point.x, cell), Self.cellIndex(point.y, cell))
        var best: (distance: Double, segment: Int, point: PlanarPoint)?
        func consider(_ index: Int32) {
            let segment = segments[Int(index)]
            guard accepts(Int(segment.edge)) else { return }
            let first = Int(network.vertexStart[Int(segment.edge)]) + Int(segment.vertex)
            let a = PlanarPoint(x: network.vertexX[first], y: network.vertexY[first])
            let b = PlanarPoint(x: network.vertexX[first + 1], y: network.vertexY[first + 1])
            let nearest = Self.project(point, a, b)
            let distance = nearest.distance(to: point)
            if distance <= reach, distance < (best?.distance ?? .infinity) { best = (distance, Int(index), nearest) }
        }
        let rings = Double((reach / cell).rounded(.up)) + 1
        if rings * rings * 4 > Double(segments.count) {
            // The rings would visit more cells than there are segments: read them all instead.
            for index in segments.indices { consider(Int32(index)) }
        } else {
            var seen = Set<Int32>()
            long.forEach(consider)
            for ring in 0...Int(rings) {
                // This ring's cells are at least (ring - 1) cells away: stop once that passes the best.
                if let found = best, Double(ring - 1) * cell > found.distance { break }
                for (x, y) in Self.ring(ring, around: (cx, cy)) {
                    for index in grid[Self.key(x, y)] ?? [] where seen.insert(index).inserted { consider(index) }
                }
            }
        }
        guard let best else { return nil }
        let segment = segments[best.segment]
        let edge = Int(segment.edge)
        let first = Int(network.vertexStart[edge]) + Int(segment.vertex)
        let a = PlanarPoint(x: network.vertexX[first], y: network.vertexY[first])
        let along = segment.along + RoadNetworkBuilder.metres(from: a, to: best.point)
        let length = network.edgeLength[edge]
        // Within a millimetre of an end is at the end: its junction, whose every edge a stop
        // there may take (a rounding error's 1e-12 along would keep it to this edge's way).
        let fraction = along < 0.001 ? 0 : length - along < 0.001 ? 1 : min(max(along / length, 0), 1)
        return NetworkLocation(
            edge: edge, fraction: fraction, snapped: best.point, distance: best.distance / WebMercator.unitsPerMetre(at: point))
    }

    static func ring(_ ring: Int, around center: (Int, Int)) -> [(Int, Int)] {
        guard ring > 0 else { return [center] }
        var cells: [(Int, Int)] = []
        for dx in -ring...ring {
            cells.append((center.0 + dx, center.1 - ring))
            cells.append((center.0 + dx, center.1 + ring))
        }
        for dy in (-ring + 1)..<ring {
            cells.append((center.0 - ring, center.1 + dy))
            cells.append((center.0 + ring, center.1 + dy))
        }
        return cells
    }

    /// The point of segment a–b nearest p.
    static func project(_ p: PlanarPoint, _ a: PlanarPoint, _ b: PlanarPoint) -> PlanarPoint {
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let squared = dx * dx + dy * dy
        guard squared > 0 else { return a }
        let t = min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / squared, 0), 1)
        return PlanarPoint(x: a.x + t * dx, y: a.y + t * dy)
    }
}
