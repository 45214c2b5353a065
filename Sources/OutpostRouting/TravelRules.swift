/// What a solve minimises (`impedanceAttributeName`).
public enum Impedance: String, Sendable, CaseIterable {
    /// Metres.
    case length = "Length"
    /// Minutes at each edge's speed.
    case travelTime = "TravelTime"
    /// The layer's cost field, when the network has one.
    case cost = "Cost"
}

/// Restrictions a solve may obey (`restrictionAttributeNames`); both by default.
public enum Restriction: String, Sendable, CaseIterable {
    /// An edge is travelled only the ways its one-way field allows.
    case oneway = "Oneway"
    /// An edge the layer marks restricted is not travelled at all.
    case restricted = "Restricted"
}

/// How edges are travelled in one solve: the impedance, the restrictions obeyed, and the point
/// barriers (each blocks passing its place on its edge; one on a junction blocks the junction).
public struct TravelRules: Sendable {
    public var impedance: Impedance
    public var restrictions: Set<Restriction>
    /// Barrier fractions by edge, for barriers within an edge.
    public private(set) var barriers: [Int: [Double]] = [:]
    /// Junctions a barrier stands on: no path passes through them.
    public private(set) var blockedJunctions: Set<Int32> = []

    public init(
        impedance: Impedance = .travelTime, restrictions: Set<Restriction> = Set(Restriction.allCases), barriers: [NetworkLocation] = [],
        in network: RoadNetwork? = nil
    ) {
        self.impedance = impedance
        self.restrictions = restrictions
        for barrier in barriers {
            if let network, barrier.fraction <= 0 || barrier.fraction >= 1 {
                blockedJunctions.insert(barrier.fraction <= 0 ? network.edgeFrom[barrier.edge] : network.edgeTo[barrier.edge])
            } else {
                self.barriers[barrier.edge, default: []].append(barrier.fraction)
            }
        }
    }

    public func isBlocked(_ junction: Int32) -> Bool { !blockedJunctions.isEmpty && blockedJunctions.contains(junction) }

    /// The whole edge's impedance.
    public func cost(of edge: Int, in network: RoadNetwork) -> Double {
        switch impedance {
        case .length: network.edgeLength[edge]
        case .travelTime: network.edgeMinutes[edge]
        case .cost: network.hasCost ? network.edgeCost[edge] : network.edgeLength[edge]
        }
    }

    /// Whether the edge may be travelled at all in that direction, barriers aside.
    public func allows(_ edge: Int, forward: Bool, in network: RoadNetwork) -> Bool {
        if restrictions.contains(.restricted), network.edgeRestricted[edge] { return false }
        guard restrictions.contains(.oneway) else { return true }
        return network.edgeDirections[edge].contains(forward ? .forward : .backward)
    }

    /// Whether the edge may be travelled from fraction `a` to fraction `b`: allowed that way,
    /// and no barrier between them (ends included).
    /// Standing still (a == b) goes no way, so only barriers count.
    public func allows(_ edge: Int, from a: Double, to b: Double, in network: RoadNetwork) -> Bool {
        guard a == b || allows(edge, forward: b > a, in: network) else { return false }
        let (low, high) = (min(a, b), max(a, b))
        return !(barriers[edge] ?? []).contains { $0 >= low && $0 <= high }
    }

    /// Whether a stop may be placed on the edge: not on a restricted edge, nor on one of no
    /// travel either way, when those restrictions are obeyed (ArcGIS's
    /// `doNotLocateOnRestrictedElements`).
    public func admitsLocation(on edge: Int, in network: RoadNetwork) -> Bool {
        !(restrictions.contains(.restricted) && network.edgeRestricted[edge])
            && !(restrictions.contains(.oneway) && network.edgeDirections[edge].isEmpty)
    }
}
