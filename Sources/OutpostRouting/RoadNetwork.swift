import OutpostGeocoding

/// A network built from a line layer (docs/routing.md, "Networks"): junctions where lines' ends
/// meet, and one edge per line, held as parallel arrays so a 100k-edge network is a few flat
/// buffers. Coordinates are Web Mercator's (`WebMercator`); lengths are metres on the ground.
public struct RoadNetwork: Sendable, Equatable {
    /// Which ways an edge may be travelled, as the layer's one-way field says.
    public struct Directions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// From its first vertex to its last.
        public static let forward = Directions(rawValue: 1)
        public static let backward = Directions(rawValue: 2)
        public static let both: Directions = [.forward, .backward]
    }

    /// Junctions' coordinates.
    public var junctionX: [Double] = []
    public var junctionY: [Double] = []
    /// Each edge's junctions, first vertex's then last vertex's.
    public var edgeFrom: [Int32] = []
    public var edgeTo: [Int32] = []
    /// The feature each edge was made from (its object id).
    public var edgeSource: [Int64] = []
    public var edgeLength: [Double] = []
    /// Minutes to travel the edge, at its speed.
    public var edgeMinutes: [Double] = []
    /// The layer's cost field, when the network has one (`Impedance.cost`); else empty.
    public var edgeCost: [Double] = []
    public var edgeDirections: [Directions] = []
    /// Edges the layer marks restricted (`Restriction.restricted`).
    public var edgeRestricted: [Bool] = []
    /// Index into `names`.
    public var edgeName: [Int32] = []
    public var names: [String] = []
    /// The edge's vertices are `vertexX[vertexStart[e] ..< vertexStart[e + 1]]`.
    public var vertexStart: [Int32] = [0]
    public var vertexX: [Double] = []
    public var vertexY: [Double] = []

    public init() {}

    public var edgeCount: Int { edgeFrom.count }
    public var junctionCount: Int { junctionX.count }
    public var hasCost: Bool { !edgeCost.isEmpty }

    public func junction(_ index: Int32) -> PlanarPoint { PlanarPoint(x: junctionX[Int(index)], y: junctionY[Int(index)]) }

    public func vertices(of edge: Int) -> [PlanarPoint] {
        (Int(vertexStart[edge])..<Int(vertexStart[edge + 1])).map { PlanarPoint(x: vertexX[$0], y: vertexY[$0]) }
    }

    public func name(of edge: Int) -> String { names[Int(edgeName[edge])] }

    /// Each junction's edges, as `Adjacency` (built once per loaded network).
    public func adjacency() -> Adjacency { Adjacency(self) }
}

/// The edges at each junction in compressed rows: junction j's are
/// `edges[start[j] ..< start[j + 1]]`, each an edge leaving j (`leavesForward`: j is its first
/// junction, so it is travelled forward).
public struct Adjacency: Sendable {
    public let start: [Int32]
    public let edges: [Int32]
    public let leavesForward: [Bool]

    init(_ network: RoadNetwork) {
        var counts = [Int32](repeating: 0, count: network.junctionCount + 1)
        for e in 0..<network.edgeCount {
            counts[Int(network.edgeFrom[e]) + 1] += 1
            counts[Int(network.edgeTo[e]) + 1] += 1
        }
        for j in 0..<network.junctionCount { counts[j + 1] += counts[j] }
        var next = counts
        var edges = [Int32](repeating: 0, count: network.edgeCount * 2)
        var forward = [Bool](repeating: false, count: network.edgeCount * 2)
        for e in 0..<network.edgeCount {
            for (junction, isForward) in [(network.edgeFrom[e], true), (network.edgeTo[e], false)] {
                let slot = Int(next[Int(junction)])
                edges[slot] = Int32(e)
                forward[slot] = isForward
                next[Int(junction)] += 1
            }
        }
        start = counts
        self.edges = edges
        leavesForward = forward
    }
}
