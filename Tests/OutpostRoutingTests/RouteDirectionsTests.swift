import OutpostGeocoding
import Testing

@testable import OutpostRouting

/// Directions' instructions, turns and languages (docs/routing.md, "Directions").
@Suite struct RouteDirectionsTests {
    /// An L and a fork: Main St east from (0,0) to (100,0); Oak Ave north from there to
    /// (100,100), then bends north-east, then an unnamed road east-north-east; Elm Rd south from (100,0) to (100,-100).
    static func network() -> RoadNetwork {
        var builder = RoadNetworkBuilder()
        builder.add(TestNetworks.line(1, "Main St", [(0, 0), (100, 0)]))
        builder.add(TestNetworks.line(2, "Oak Ave", [(100, 0), (100, 100)]))
        builder.add(TestNetworks.line(3, "Oak Ave", [(100, 100), (130, 130)]))
        builder.add(TestNetworks.line(4, "Elm Rd", [(100, 0), (100, -100)]))
        builder.add(TestNetworks.line(5, "", [(130, 130), (160, 140)]))
        return builder.network
    }

    func directions(_ stops: [(Double, Double)], _ language: DirectionsLanguage = .english) throws -> [Maneuver] {
        let network = Self.network()
        var problem = RouteProblem(stops: stops.enumerated().map { TestNetworks.point($1.0, $1.1, "Stop \($0 + 1)") })
        problem.rules = TravelRules(impedance: .length)
        let route = try RouteSolver(network: network).solve(problem)
        return RouteDirections.make(route, network: network, language: language)
    }

    @Test func aTurnLeftBetweenTwoStreets() throws {
        let maneuvers = try directions([(0, 0), (100, 100)])
        #expect(maneuvers.map(\.text) == ["Start at Stop 1", "Go east on Main St", "Turn left on Oak Ave", "Finish at Stop 2"])
        #expect(maneuvers.map(\.kind) == [.depart, .straight, .turnLeft, .stop])
        #expect(maneuvers.map { ($0.length * 1000).rounded() / 1000 } == [0, 100, 100, 0])
    }

    @Test func oneStreetsEdgesAreOneInstructionAndAnUnnamedRoadHasNoName() throws {
        let maneuvers = try directions([(0, 0), (160, 140)])
        #expect(maneuvers.map(\.text) == ["Start at Stop 1", "Go east on Main St", "Turn left on Oak Ave", "Bear right", "Finish at Stop 2"])
        #expect(abs(maneuvers[2].length - (100 + 30 * 2.squareRoot())) < 0.001)
    }

    @Test func intermediateStopsArriveAndDepart() throws {
        let maneuvers = try directions([(0, 0), (100, 50), (100, -100)])
        #expect(
            maneuvers.map(\.text) == [
                "Start at Stop 1", "Go east on Main St", "Turn left on Oak Ave", "Arrive at Stop 2", "Depart Stop 2", "Go south on Oak Ave",
                "Continue on Elm Rd", "Finish at Stop 3",
            ])
    }

    @Test func germanAndFrench() throws {
        #expect(
            try directions([(0, 0), (100, 100)], .german).map(\.text) == [
                "Start bei Stop 1", "Fahren Sie nach Osten auf Main St", "Biegen Sie links ab auf Oak Ave", "Ziel: Stop 2",
            ])
        #expect(try directions([(0, 0), (100, -100)], .french).map(\.text)[2] == "Tournez à droite sur Elm Rd")
    }

    @Test(arguments: [
        ("en", DirectionsLanguage.english), ("en-US", .english), ("de", .german), ("de_DE", .german), ("fr-CA", .french), ("ja", .english),
        ("", .english),
    ])
    func languageCodes(_ code: String, _ language: DirectionsLanguage) {
        #expect(DirectionsLanguage(code: code) == language)
    }

    @Test(arguments: [(0.0, RouteDirections.Compass.north), (44, .northeast), (90, .east), (200, .south), (300, .northwest), (359, .north)])
    func compassPoints(_ bearing: Double, _ compass: RouteDirections.Compass) {
        #expect(RouteDirections.compass(bearing) == compass)
    }
}

/// ArcGIS's compressed geometry, against the example its decoders are tested with.
@Suite struct CompressedGeometryTests {
    @Test func theKnownExampleDecodesAndEncodesBack() throws {
        let text = "+1m91-6fkfr+202tp+k+f+7+3+34+2d"
        let points = try #require(CompressedGeometry.decode(text))
        #expect(points.count == 4)
        #expect(abs(points[0].x - -122.40645857695421) < 1e-4 && abs(points[0].y - 37.78272915354862) < 1e-4)
        #expect(abs(points[3].x - -122.40417378789242) < 1e-4 && abs(points[3].y - 37.7844382477287) < 1e-4)
        #expect(CompressedGeometry.encode(points, factor: 55585) == text)
    }

    @Test(arguments: ["", "+", "+0+1+2", "+1m91-6fk!r+2", "+zzzzzzzzzzzzzzzzzz+1+1"])
    func nonsenseIsNil(_ text: String) {
        #expect(CompressedGeometry.decode(text) == nil)
    }
}
