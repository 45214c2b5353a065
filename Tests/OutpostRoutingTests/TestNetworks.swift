import OutpostGeocoding
import OutpostRouting

/// Small networks near (0, 0), where Web Mercator's units are metres on the ground to a
/// millionth: a route's length is its drawn length.
enum TestNetworks {
    typealias Change = @Sendable (NetworkSourceLine) -> NetworkSourceLine

    static func line(
        _ id: Int64, _ name: String, _ points: [(Double, Double)], _ directions: RoadNetwork.Directions = .both, restricted: Bool = false
    )
        -> NetworkSourceLine
    {
        NetworkSourceLine(
            id: id, vertices: points.map { PlanarPoint(x: $0.0, y: $0.1) }, name: name, directions: directions, restricted: restricted)
    }

    /// A 3 × 3 grid of junctions 100 m apart, one edge per block:
    ///
    ///     A(0,200) — B(100,200) — C(200,200)   North St
    ///     D(0,100) — E(100,100) — F(200,100)   Middle St
    ///     G(0,0)   — H(100,0)   — I(200,0)     South St
    ///     West Ave (x = 0), Centre Ave (x = 100), East Ave (x = 200), each drawn northward.
    ///
    /// `changes` alters lines by id: 1 G–H, 2 H–I, 3 D–E, 4 E–F, 5 A–B, 6 B–C, 7 G–D, 8 D–A,
    /// 9 H–E, 10 E–B, 11 I–F, 12 F–C.
    static func grid(_ changes: [Int64: TestNetworks.Change] = [:]) -> RoadNetwork {
        let lines = [
            line(1, "South St", [(0, 0), (100, 0)]), line(2, "South St", [(100, 0), (200, 0)]),
            line(3, "Middle St", [(0, 100), (100, 100)]), line(4, "Middle St", [(100, 100), (200, 100)]),
            line(5, "North St", [(0, 200), (100, 200)]), line(6, "North St", [(100, 200), (200, 200)]),
            line(7, "West Ave", [(0, 0), (0, 100)]), line(8, "West Ave", [(0, 100), (0, 200)]),
            line(9, "Centre Ave", [(100, 0), (100, 100)]), line(10, "Centre Ave", [(100, 100), (100, 200)]),
            line(11, "East Ave", [(200, 0), (200, 100)]), line(12, "East Ave", [(200, 100), (200, 200)]),
        ]
        var builder = RoadNetworkBuilder()
        for line in lines { builder.add(changes[line.id].map { $0(line) } ?? line) }
        return builder.network
    }

    static func oneWay(_ directions: RoadNetwork.Directions) -> TestNetworks.Change {
        { line in
            var changed = line
            changed.directions = directions
            return changed
        }
    }

    static let restricted: TestNetworks.Change = { line in
        var changed = line
        changed.restricted = true
        return changed
    }

    static func point(_ x: Double, _ y: Double, _ name: String = "") -> RoutePoint { RoutePoint(name: name, point: PlanarPoint(x: x, y: y)) }
}
