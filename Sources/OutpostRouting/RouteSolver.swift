import OutpostGeocoding

/// A stop or barrier as a solve reads it: a name and a point in Web Mercator.
public struct RoutePoint: Sendable, Equatable {
    public var name: String
    public var point: PlanarPoint

    public init(name: String, point: PlanarPoint) {
        self.name = name
        self.point = point
    }
}

/// What a solve was asked (docs/routing.md, "Solving").
public struct RouteProblem: Sendable {
    public var stops: [RoutePoint]
    public var barriers: [RoutePoint] = []
    public var rules = TravelRules()
    public var findBestSequence = false
    public var preserveFirstStop = true
    public var preserveLastStop = true
    /// Metres a stop may be from the network and still be placed on it.
    public var searchTolerance = 5_000.0
    /// Skip stops off the network instead of failing (`ignoreInvalidLocations`).
    public var ignoreInvalidLocations = true

    public init(stops: [RoutePoint]) { self.stops = stops }
}

/// A solved route: its stops in visiting order, with their places, and one leg between each.
public struct SolvedRoute: Sendable, Equatable {
    public struct Stop: Sendable, Equatable {
        /// The stop's position in the request, from 0.
        public var input: Int
        public var name: String
        public var location: NetworkLocation
    }

    public var stops: [Stop]
    /// Stops (by request position) that could not be placed on the network.
    public var unlocated: [Int]
    public var legs: [PathLeg]
    /// Barriers (by request position) placed on the network.
    public var locatedBarriers: [Int]

    public var pieces: [PathPiece] { legs.flatMap(\.pieces) }
}

/// Why a route could not be solved, in ArcGIS's words (`solve`'s error details).
public enum RouteFailure: Error, Equatable, CustomStringConvertible {
    case tooFewStops
    case unlocated(String)
    case unreachable(from: String, to: String)

    public var description: String {
        switch self {
        case .tooFewStops: "Need at least 2 valid stops."
        case .unlocated(let name): "Location \"\(name)\" in \"Stops\" is unlocated."
        case .unreachable(let from, let to): "No route found between \"\(from)\" and \"\(to)\"."
        }
    }
}

/// Places stops and barriers, orders the stops when asked, and finds each leg.
public struct RouteSolver: Sendable {
    public let network: RoadNetwork
    let adjacency: Adjacency
    let locator: EdgeLocator

    public init(network: RoadNetwork) {
        self.network = network
        adjacency = network.adjacency()
        locator = EdgeLocator(network)
    }

    public func locate(_ point: PlanarPoint, tolerance: Double, rules: TravelRules) -> NetworkLocation? {
        locator.locate(point, tolerance: tolerance) { rules.admitsLocation(on: $0, in: network) }
    }

    public func solve(_ problem: RouteProblem) throws -> SolvedRoute {
        var barriers: [NetworkLocation] = []
        var locatedBarriers: [Int] = []
        for (i, barrier) in problem.barriers.enumerated() {
            guard let location = locator.locate(barrier.point, tolerance: problem.searchTolerance) else { continue }
            barriers.append(location)
            locatedBarriers.append(i)
        }
        let rules = TravelRules(impedance: problem.rules.impedance, restrictions: problem.rules.restrictions, barriers: barriers, in: network)
        var stops: [SolvedRoute.Stop] = []
        var unlocated: [Int] = []
        for (i, stop) in problem.stops.enumerated() {
            if let location = locate(stop.point, tolerance: problem.searchTolerance, rules: rules) {
                stops.append(SolvedRoute.Stop(input: i, name: stop.name, location: location))
            } else if problem.ignoreInvalidLocations {
                unlocated.append(i)
            } else {
                throw RouteFailure.unlocated(stop.name)
            }
        }
        guard stops.count >= 2 else { throw RouteFailure.tooFewStops }
        let paths = ShortestPaths(network: network, adjacency: adjacency, rules: rules)
        if problem.findBestSequence {
            let locations = stops.map(\.location)
            let costs = locations.map { paths.costs(from: $0, to: locations) }
            let order = StopSequence.best(costs, preserveFirst: problem.preserveFirstStop, preserveLast: problem.preserveLastStop)
            stops = order.map { stops[$0] }
        }
        var legs: [PathLeg] = []
        for (from, to) in zip(stops, stops.dropFirst()) {
            guard let leg = paths.leg(from: from.location, to: to.location) else {
                throw RouteFailure.unreachable(from: from.name, to: to.name)
            }
            legs.append(leg)
        }
        return SolvedRoute(stops: stops, unlocated: unlocated, legs: legs, locatedBarriers: locatedBarriers)
    }
}
