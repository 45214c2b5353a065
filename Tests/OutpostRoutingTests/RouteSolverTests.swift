import OutpostGeocoding
import Testing

@testable import OutpostRouting

/// Routes on a small network with one-ways, restrictions and barriers, with their expected
/// lengths (docs/routing.md, "Solving"). Lengths are by `Impedance.length`, so each has one answer.
@Suite struct RouteSolverTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let changes: [Int64: TestNetworks.Change]
        let stops: [(Double, Double)]
        var barriers: [(Double, Double)] = []
        var restrictions: Set<Restriction> = Set(Restriction.allCases)
        let metres: Double
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "along one street", changes: [:], stops: [(0, 0), (200, 0)], metres: 200),
        Case(name: "mid-edge to mid-edge", changes: [:], stops: [(50, 0), (150, 0)], metres: 100),
        Case(name: "within one edge", changes: [:], stops: [(20, 0), (80, 0)], metres: 60),
        Case(name: "a stop off the road is placed on its nearest edge", changes: [:], stops: [(30, -12), (0, 170)], metres: 200),
        Case(name: "across the grid", changes: [:], stops: [(0, 0), (200, 200)], metres: 400),
        Case(
            name: "a one-way against the route is gone round", changes: [1: TestNetworks.oneWay(.backward)], stops: [(0, 0), (100, 0)],
            metres: 300),
        Case(name: "a one-way with the route is taken", changes: [1: TestNetworks.oneWay(.forward)], stops: [(0, 0), (100, 0)], metres: 100),
        Case(
            name: "within a one-way edge against it: out, round and back", changes: [1: TestNetworks.oneWay(.backward)],
            stops: [(20, 0), (80, 0)], metres: 340),
        Case(
            name: "one-ways ignored when not among the restrictions", changes: [1: TestNetworks.oneWay(.backward)],
            stops: [(20, 0), (80, 0)], restrictions: [], metres: 60),
        Case(name: "a restricted edge is not travelled", changes: [1: TestNetworks.restricted], stops: [(0, 0), (100, 0)], metres: 300),
        Case(name: "a barrier blocks its place", changes: [:], stops: [(0, 0), (200, 0)], barriers: [(150, 0)], metres: 400),
        Case(name: "a barrier behind the start does not", changes: [:], stops: [(50, 0), (200, 0)], barriers: [(20, 0)], metres: 150),
        Case(
            name: "a barrier between stops on one edge goes round", changes: [:], stops: [(20, 0), (80, 0)], barriers: [(50, 0)],
            metres: 20 + 100 + 100 + 100 + 20),
        Case(name: "a barrier on a junction blocks the junction", changes: [:], stops: [(0, 0), (200, 0)], barriers: [(100, 0)], metres: 400),
        Case(
            name: "a stop is not placed on an edge of no travel (here: at G, not on G–D)", changes: [7: TestNetworks.oneWay([])],
            stops: [(-5, 40), (0, 200)], metres: 400),
    ]

    @Test(arguments: cases) func routeLength(_ test: Case) throws {
        let network = TestNetworks.grid(test.changes)
        var problem = RouteProblem(stops: test.stops.enumerated().map { TestNetworks.point($1.0, $1.1, "Stop \($0 + 1)") })
        problem.barriers = test.barriers.map { TestNetworks.point($0.0, $0.1) }
        problem.rules = TravelRules(impedance: .length, restrictions: test.restrictions)
        let route = try RouteSolver(network: network).solve(problem)
        let metres = route.legs.reduce(0) { $0 + $1.cost }
        #expect(abs(metres - test.metres) < 0.01, "\(metres) m")
        let drawn = RoadNetworkBuilder.metres(along: network.path(of: route.pieces))
        #expect(abs(drawn - test.metres) < 0.01, "the drawn path is \(drawn) m")
    }

    @Test func travelTimeFollowsSpeedsNotLength() throws {
        // West Ave, North St and East Ave's top at 150 km/h beat the short way at the default 50.
        var fast: [Int64: TestNetworks.Change] = [:]
        for id: Int64 in [7, 8, 5, 6, 12] {
            fast[id] = {
                var line = $0
                line.speed = 150
                return line
            }
        }
        let network = TestNetworks.grid(fast)
        let problem = RouteProblem(stops: [TestNetworks.point(0, 0), TestNetworks.point(200, 100)])
        let route = try RouteSolver(network: network).solve(problem)
        #expect(route.legs[0].pieces.map { network.edgeSource[$0.edge] } == [7, 8, 5, 6, 12])
        #expect(abs(route.legs[0].cost - 0.5 / 150 * 60) < 1e-9)
    }

    @Test func aStopBeyondTheToleranceIsSkippedOrFails() throws {
        let network = TestNetworks.grid()
        var problem = RouteProblem(stops: [TestNetworks.point(0, 0, "A"), TestNetworks.point(9_000, 0, "Far"), TestNetworks.point(200, 0, "B")])
        let route = try RouteSolver(network: network).solve(problem)
        #expect(route.unlocated == [1])
        #expect(route.stops.map(\.name) == ["A", "B"])
        problem.ignoreInvalidLocations = false
        #expect(throws: RouteFailure.unlocated("Far")) { try RouteSolver(network: network).solve(problem) }
        problem.stops.removeLast()
        problem.ignoreInvalidLocations = true
        #expect(throws: RouteFailure.tooFewStops) { try RouteSolver(network: network).solve(problem) }
    }

    @Test func anIslandIsUnreachable() throws {
        var builder = RoadNetworkBuilder()
        builder.add(TestNetworks.line(1, "Here", [(0, 0), (100, 0)]))
        builder.add(TestNetworks.line(2, "There", [(0, 500), (100, 500)]))
        let problem = RouteProblem(stops: [TestNetworks.point(0, 0, "A"), TestNetworks.point(0, 500, "B")])
        #expect(throws: RouteFailure.unreachable(from: "A", to: "B")) { try RouteSolver(network: builder.network).solve(problem) }
    }

    @Test func bestSequenceVisitsStopsAlongTheWay() throws {
        let network = TestNetworks.grid()
        var problem = RouteProblem(
            stops: [(0, 0), (200, 0), (50, 0), (150, 0), (100, 0)].enumerated().map {
                TestNetworks.point($1.0, $1.1, "\($0)")
            })
        problem.rules = TravelRules(impedance: .length)
        problem.findBestSequence = true
        problem.preserveLastStop = false
        let route = try RouteSolver(network: network).solve(problem)
        #expect(route.stops.map(\.name) == ["0", "2", "4", "3", "1"])
        #expect(abs(route.legs.reduce(0) { $0 + $1.cost } - 200) < 0.01)
    }

    /// A loop off H: (100,0) → (150,0) → (150,50) → back to (100,0), 170.71 m; its middle stop
    /// (150,25) is 75 m along it and 95.71 m back.
    @Test(arguments: [
        (RoadNetwork.Directions.both, true, 175.0), (.both, false, 175), (.forward, true, 175), (.forward, false, 100 + 170.71 - 75),
        (.backward, true, 100 + 170.71 - 75), (.backward, false, 175),
    ])
    func aLoopIsTravelledTheWaysItAllows(_ directions: RoadNetwork.Directions, _ loopIsTarget: Bool, _ metres: Double) throws {
        var builder = RoadNetworkBuilder()
        builder.add(TestNetworks.line(1, "Road", [(0, 0), (100, 0)]))
        builder.add(TestNetworks.line(2, "Loop", [(100, 0), (150, 0), (150, 50), (100, 0)], directions))
        var problem = RouteProblem(stops: [TestNetworks.point(0, 0, "Road"), TestNetworks.point(150, 25, "Loop")])
        if !loopIsTarget { problem.stops.reverse() }
        problem.rules = TravelRules(impedance: .length)
        let route = try RouteSolver(network: builder.network).solve(problem)
        let cost = route.legs.reduce(0) { $0 + $1.cost }
        #expect(abs(cost - metres) < 0.01, "\(cost) m")
        let drawn = RoadNetworkBuilder.metres(along: builder.network.path(of: route.pieces))
        #expect(abs(drawn - metres) < 0.01, "the drawn path is \(drawn) m")
        for piece in route.pieces where piece.edge == 1 && piece.from != piece.to {
            #expect(directions.contains(piece.isForward ? .forward : .backward), "the loop is travelled a way it allows")
        }
    }

    @Test func aPointOnAJunctionIsAtTheEndOfItsEdge() throws {
        // Longitudes and latitudes whose projection leaves rounding errors along the edge.
        var builder = RoadNetworkBuilder()
        let junction = WebMercator.point(longitude: 13.4, latitude: 52.476)
        builder.add(
            NetworkSourceLine(id: 1, vertices: [WebMercator.point(longitude: 13.399, latitude: 52.476), junction], directions: .forward))
        builder.add(NetworkSourceLine(id: 2, vertices: [junction, WebMercator.point(longitude: 13.4, latitude: 52.477)]))
        let location = try #require(RouteSolver(network: builder.network).locate(junction, tolerance: 10, rules: TravelRules()))
        #expect(location.fraction == 0 || location.fraction == 1, "\(location)")
    }

    @Test func aSpeedTooSmallForItsMinutesIsRefused() {
        var builder = RoadNetworkBuilder()
        var line = TestNetworks.line(1, "Slow", [(0, 0), (100, 0)])
        line.speed = 5e-324
        builder.add(line)
        #expect(builder.refused[.badSpeed] == 1 && builder.network.edgeCount == 0)
    }

    @Test func endsCloserThanACentimetreMeet() {
        var builder = RoadNetworkBuilder()
        builder.add(TestNetworks.line(1, "A", [(0, 0), (100, 0)]))
        builder.add(TestNetworks.line(2, "B", [(100.001, 0.001), (200, 0)]))
        builder.add(TestNetworks.line(3, "C", [(200.5, 0), (300, 0)]))
        #expect(builder.network.junctionCount == 5)
        builder.add(TestNetworks.line(4, "D", [(5, 5)]))
        #expect(builder.refused[.noGeometry] == 1)
    }
}
