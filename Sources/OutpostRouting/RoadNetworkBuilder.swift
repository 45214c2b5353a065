import OutpostGeocoding

/// One line of the source layer as the builder reads it: vertices in Web Mercator and the
/// fields a network is made from (docs/routing.md, "Networks").
public struct NetworkSourceLine: Sendable, Equatable {
    public var id: Int64
    public var vertices: [PlanarPoint]
    public var name: String
    public var directions: RoadNetwork.Directions
    /// Kilometres per hour; nil for the network's default speed.
    public var speed: Double?
    public var cost: Double?
    public var restricted: Bool

    public init(
        id: Int64, vertices: [PlanarPoint], name: String = "", directions: RoadNetwork.Directions = .both, speed: Double? = nil,
        cost: Double? = nil, restricted: Bool = false
    ) {
        self.id = id
        self.vertices = vertices
        self.name = name
        self.directions = directions
        self.speed = speed
        self.cost = cost
        self.restricted = restricted
    }
}

/// Why a line made no edge, counted for the administrator.
public enum NetworkLineRefusal: String, Sendable, CaseIterable {
    case noGeometry
    case tooShort
    case badSpeed
    case badCost
}

/// Makes a network from lines: their ends meet at a junction when they are within
/// `snapTolerance` metres of the same grid point (end-point connectivity, as ArcGIS's default);
/// lines crossing mid-way do not meet.
public struct RoadNetworkBuilder: Sendable {
    /// Speed of a line without one, km/h.
    public var defaultSpeed: Double = 50
    /// Ends this close (metres, on a grid) are one junction.
    public var snapTolerance: Double = 0.01
    public var withCost: Bool

    public private(set) var network = RoadNetwork()
    public private(set) var refused: [NetworkLineRefusal: Int] = [:]
    private var junctions: [GridKey: Int32] = [:]
    private var nameIndex: [String: Int32] = [:]

    struct GridKey: Hashable {
        let x: Int64
        let y: Int64
    }

    public init(withCost: Bool = false) { self.withCost = withCost }

    /// Adds the line as an edge, or counts why it cannot be one.
    public mutating func add(_ line: NetworkSourceLine) {
        let vertices = line.vertices.filter(\.isFinite)
        guard vertices.count >= 2, vertices.count == line.vertices.count,
            vertices.allSatisfy({ abs($0.x) <= WebMercator.halfWidth && abs($0.y) <= WebMercator.halfWidth })
        else { return refuse(.noGeometry) }
        let length = Self.metres(along: vertices)
        guard length > 0 else { return refuse(.tooShort) }
        let speed = line.speed ?? defaultSpeed
        // A speed so small that the minutes overflow is no speed either.
        guard speed.isFinite, speed > 0, (length / 1000 / speed * 60).isFinite else { return refuse(.badSpeed) }
        if withCost { guard let cost = line.cost, cost.isFinite, cost >= 0 else { return refuse(.badCost) } }
        network.edgeFrom.append(junction(at: vertices[0]))
        network.edgeTo.append(junction(at: vertices[vertices.count - 1]))
        network.edgeSource.append(line.id)
        network.edgeLength.append(length)
        network.edgeMinutes.append(length / 1000 / speed * 60)
        if withCost { network.edgeCost.append(line.cost ?? 0) }
        network.edgeDirections.append(line.directions)
        network.edgeRestricted.append(line.restricted)
        network.edgeName.append(nameNumber(line.name))
        for vertex in vertices {
            network.vertexX.append(vertex.x)
            network.vertexY.append(vertex.y)
        }
        network.vertexStart.append(Int32(network.vertexX.count))
    }

    private mutating func refuse(_ reason: NetworkLineRefusal) { refused[reason, default: 0] += 1 }

    private mutating func junction(at point: PlanarPoint) -> Int32 {
        let cell = snapTolerance * WebMercator.unitsPerMetre(at: point)
        let key = GridKey(x: Int64((point.x / cell).rounded()), y: Int64((point.y / cell).rounded()))
        if let known = junctions[key] { return known }
        let index = Int32(network.junctionX.count)
        network.junctionX.append(point.x)
        network.junctionY.append(point.y)
        junctions[key] = index
        return index
    }

    private mutating func nameNumber(_ name: String) -> Int32 {
        if let known = nameIndex[name] { return known }
        let index = Int32(network.names.count)
        network.names.append(name)
        nameIndex[name] = index
        return index
    }

    /// Metres on the ground along Web Mercator vertices: each segment scaled at its middle.
    public static func metres(along vertices: [PlanarPoint]) -> Double {
        zip(vertices, vertices.dropFirst()).reduce(0) { sum, pair in sum + metres(from: pair.0, to: pair.1) }
    }

    public static func metres(from a: PlanarPoint, to b: PlanarPoint) -> Double {
        let middle = PlanarPoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        return a.distance(to: b) / WebMercator.unitsPerMetre(at: middle)
    }
}
