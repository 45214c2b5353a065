/// Part of an edge travelled: from fraction `from` to fraction `to` (backward when to < from).
public struct PathPiece: Sendable, Equatable {
    public var edge: Int
    public var from: Double
    public var to: Double

    public init(edge: Int, from: Double, to: Double) {
        self.edge = edge
        self.from = from
        self.to = to
    }

    public var isForward: Bool { to >= from }
}

/// The cheapest way between two locations and its impedance.
public struct PathLeg: Sendable, Equatable {
    public var pieces: [PathPiece]
    public var cost: Double
}

/// Dijkstra's algorithm between network locations under `TravelRules` (docs/routing.md,
/// "Solving"). Junction to junction, U-turns allowed; a stop is reached from either end of its
/// edge, or along the edge itself when the start is on it.
public struct ShortestPaths: Sendable {
    public let network: RoadNetwork
    let adjacency: Adjacency
    public let rules: TravelRules

    public init(network: RoadNetwork, adjacency: Adjacency, rules: TravelRules) {
        self.network = network
        self.adjacency = adjacency
        self.rules = rules
    }

    /// The cheapest leg, or nil when the target cannot be reached.
    public func leg(from start: NetworkLocation, to target: NetworkLocation) -> PathLeg? {
        run(from: start, targets: [target])[0]
    }

    /// The cheapest impedance to each target (infinity where unreachable): one search.
    public func costs(from start: NetworkLocation, to targets: [NetworkLocation]) -> [Double] {
        run(from: start, targets: targets).map { $0?.cost ?? .infinity }
    }

    private func cost(_ edge: Int, _ from: Double, _ to: Double) -> Double? {
        rules.allows(edge, from: from, to: to, in: network) ? abs(to - from) * rules.cost(of: edge, in: network) : nil
    }

    /// How a target is best reached: through a junction (then along its edge), or directly.
    private enum Arrival {
        case direct
        /// Through the junction at the target edge's end `fraction` (0 or 1: a loop's ends are
        /// one junction, so the junction alone does not say which end).
        case through(Int32, fraction: Double)
    }

    private func run(from start: NetworkLocation, targets: [NetworkLocation]) -> [PathLeg?] {
        let count = network.junctionCount
        var distance = [Double](repeating: .infinity, count: count)
        var previousEdge = [Int32](repeating: -1, count: count)
        var settled = [Bool](repeating: false, count: count)
        var heap = BinaryHeap()
        var best = [(cost: Double, arrival: Arrival)](repeating: (.infinity, .direct), count: targets.count)
        // Each target waits at both ends of its edge, by the end's fraction.
        var waiting: [Int32: [(target: Int, fraction: Double)]] = [:]
        for (i, target) in targets.enumerated() {
            waiting[network.edgeFrom[target.edge], default: []].append((i, 0))
            waiting[network.edgeTo[target.edge], default: []].append((i, 1))
            if target.edge == start.edge, let direct = cost(start.edge, start.fraction, target.fraction) { best[i] = (direct, .direct) }
        }
        // Which end of the start's edge reached each seeded junction (a loop's ends are one).
        var seededFrom: [Int32: Double] = [:]
        for (junction, fraction) in [(network.edgeTo[start.edge], 1.0), (network.edgeFrom[start.edge], 0.0)] {
            guard !rules.isBlocked(junction), let seed = cost(start.edge, start.fraction, fraction), seed < distance[Int(junction)] else {
                continue
            }
            distance[Int(junction)] = seed
            seededFrom[junction] = fraction
            heap.push(seed, junction)
        }
        while let (key, junction) = heap.pop() {
            let j = Int(junction)
            guard !settled[j], key <= distance[j] else { continue }
            // Every target is reached no dearer than anything left to settle could reach it.
            if best.allSatisfy({ $0.cost <= key }) { break }
            settled[j] = true
            for (i, fraction) in waiting[junction] ?? [] {
                if let along = cost(targets[i].edge, fraction, targets[i].fraction), key + along < best[i].cost {
                    best[i] = (key + along, .through(junction, fraction: fraction))
                }
            }
            for slot in Int(adjacency.start[j])..<Int(adjacency.start[j + 1]) {
                let edge = Int(adjacency.edges[slot])
                let forward = adjacency.leavesForward[slot]
                guard let step = cost(edge, forward ? 0 : 1, forward ? 1 : 0) else { continue }
                let next = Int(forward ? network.edgeTo[edge] : network.edgeFrom[edge])
                if key + step < distance[next], !rules.isBlocked(Int32(next)) {
                    distance[next] = key + step
                    previousEdge[next] = Int32(edge)
                    heap.push(key + step, Int32(next))
                }
            }
        }
        let legs = targets.indices.map { i -> PathLeg? in
            guard best[i].cost.isFinite else { return nil }
            switch best[i].arrival {
            case .direct:
                return PathLeg(pieces: [PathPiece(edge: start.edge, from: start.fraction, to: targets[i].fraction)], cost: best[i].cost)
            case .through(let junction, let fraction):
                let last = PathPiece(edge: targets[i].edge, from: fraction, to: targets[i].fraction)
                // Pieces of no length (a stop on a junction) say nothing; a leg keeps at least one.
                let all = pieces(to: junction, previousEdge, start, seededFrom) + [last]
                let moving = all.filter { $0.from != $0.to }
                return PathLeg(pieces: moving.isEmpty ? [last] : moving, cost: best[i].cost)
            }
        }
        return legs
    }

    /// The pieces from the start to a settled junction, following each junction's edge back.
    private func pieces(to junction: Int32, _ previousEdge: [Int32], _ start: NetworkLocation, _ seededFrom: [Int32: Double]) -> [PathPiece] {
        var reversed: [PathPiece] = []
        var at = junction
        while previousEdge[Int(at)] >= 0, reversed.count <= network.edgeCount {
            let edge = Int(previousEdge[Int(at)])
            // A loop (its ends one junction) never shortens a path, so is never an edge back.
            let forward = network.edgeTo[edge] == at
            reversed.append(PathPiece(edge: edge, from: forward ? 0 : 1, to: forward ? 1 : 0))
            at = forward ? network.edgeFrom[edge] : network.edgeTo[edge]
        }
        let first = PathPiece(edge: start.edge, from: start.fraction, to: seededFrom[at] ?? (network.edgeTo[start.edge] == at ? 1 : 0))
        return [first] + reversed.reversed()
    }
}
