import Foundation
import OutpostClient
import OutpostRouting
import OutpostTestSupport
import Synchronization
import Testing

/// `RouteTask` online against a live route service and offline from the network it downloaded,
/// solved after the server is gone (docs/client.md, "Routing"): the same answers both ways,
/// from one engine.
@Suite struct RouteTaskTests {
    static func place(_ name: String, _ column: Double, _ row: Double) -> RoutePlace {
        RoutePlace(name: name, longitude: StreetGrid.origin.x + column * StreetGrid.step, latitude: StreetGrid.origin.y + row * StreetGrid.step)
    }

    /// Routes of the street grid: its one-way, a barrier, a restriction lifted, a sequence, German.
    static var cases: [RouteParameters] {
        var cases: [RouteParameters] = []
        var oneWay = RouteParameters(stops: [place("Here", 1, 0), place("There", 0, 0)])
        oneWay.impedance = .length
        cases.append(oneWay)
        var lifted = oneWay
        lifted.restrictions = []
        cases.append(lifted)
        var barrier = RouteParameters(stops: [place("A", 0, 0), place("B", 3, 0)])
        barrier.pointBarriers = [place("Roadworks", 1.5, 0)]
        cases.append(barrier)
        var sequence = RouteParameters(stops: [place("Depot", 0, 0), place("Far", 3, 2), place("Near", 1, 0), place("Middle", 2, 1)])
        sequence.findsBestSequence = true
        sequence.preservesLastStop = false
        cases.append(sequence)
        var german = RouteParameters(stops: [place("Start", 0, 3), place("Mitte", 2, 2.5), place("Ziel", 3, 0)])
        german.directionsLanguage = "de"
        cases.append(german)
        return cases
    }

    @Test func offlineAnswersEqualTheServicesWithTheNetworkCut() async throws {
        let kept = TestFolders.make("routes")
        let online = Mutex<[RouteResult]>([])
        try await withLiveServer { serviceURL, store, _ in
            try StreetGrid.make(store)
            let services = serviceURL.deletingLastPathComponent().deletingLastPathComponent()
            let task = RouteTask(url: services.appendingPathComponent("StreetRoutes/NAServer"))
            for parameters in Self.cases {
                let result = try await task.solveRoute(parameters)
                online.withLock { $0.append(result) }
            }
            try await task.downloadNetwork(to: "\(kept)/streets.network")
            await #expect(throws: ClientError.self) {
                _ = try await task.solveRoute(
                    RouteParameters(stops: [Self.place("A", 0, 0), RoutePlace(name: "Far", longitude: 14.4, latitude: 52.5)]))
            }
        }
        // The server is gone: the device solves alone.
        let device = try RouteTask(networkFile: "\(kept)/streets.network")
        let answers = online.withLock { $0 }
        #expect(answers.count == Self.cases.count)
        for (parameters, served) in zip(Self.cases, answers) {
            let solved = try await device.solveRoute(parameters)
            #expect(solved.name == served.name && solved.stopOrder == served.stopOrder, "\(solved.stopOrder) ≠ \(served.stopOrder)")
            #expect(abs(solved.totalMetres - served.totalMetres) < 1e-6 && abs(solved.totalMinutes - served.totalMinutes) < 1e-9)
            #expect(solved.directions.map(\.text) == served.directions.map(\.text))
            #expect(solved.directions.map(\.kind) == served.directions.map(\.kind))
            #expect(zip(solved.directions, served.directions).allSatisfy { abs($0.metres - $1.metres) < 1e-6 })
            #expect(solved.path.count == served.path.count)
            #expect(zip(solved.path, served.path).allSatisfy { abs($0[0] - $1[0]) < 1e-9 && abs($0[1] - $1[1]) < 1e-9 })
        }
        #expect(answers[0].totalMetres > 2 * answers[1].totalMetres, "the one-way is gone round unless lifted")
        #expect(answers[3].stopOrder == ["Depot", "Near", "Middle", "Far"])
        #expect(answers[4].directions.first?.text == "Start bei Start")
        await #expect(throws: ClientError.self) {
            _ = try await device.solveRoute(
                RouteParameters(stops: [Self.place("A", 0, 0), RoutePlace(name: "Far", longitude: 14.4, latitude: 52.5)]))
        }
    }

    @Test func aFileThatIsNoNetworkIsRefused() throws {
        let folder = TestFolders.make("not-a-network")
        for (name, bytes) in [("empty", Data()), ("text", Data("not a network".utf8)), ("truncated", Data([1, 0, 0, 0, 255, 255, 255, 127]))] {
            let path = "\(folder)/\(name).network"
            try bytes.write(to: URL(fileURLWithPath: path))
            #expect(throws: ClientError.self) { try RouteTask(networkFile: path) }
        }
        #expect(throws: ClientError.self) { try RouteTask(networkFile: "\(folder)/missing.network") }
    }
}
