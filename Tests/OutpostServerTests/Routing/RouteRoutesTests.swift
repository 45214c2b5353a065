import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostRouting
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

@testable import OutpostServer

/// A network over HTTP as an `NAServer` (docs/routing.md, "Service"): the street grid's
/// routes with a one-way, a restriction, barriers and speeds; ArcGIS's JSON and its errors.
@Suite struct RouteRoutesTests {
    static let service = "/arcgis/rest/services/StreetRoutes/NAServer"
    /// Metres of a block east–west and north–south at 52.5° N (0.001° each).
    static let eastWest = 0.001 * .pi / 180 * 6_371_008.8 * cos(52.5 * .pi / 180)
    static let northSouth = 0.001 * .pi / 180 * 6_371_008.8

    static func stops(_ points: [(Int, Int)]) -> String {
        points.map { "\(StreetGrid.point($0.0, $0.1).x),\(StreetGrid.point($0.0, $0.1).y)" }.joined(separator: ";")
    }

    static func solve(_ client: any TestClientProtocol, _ pairs: [(String, String)]) async throws -> JSONValue {
        let query = (pairs + [("f", "json")]).map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        return try await get(client, "\(service)/Route/solve?\(query)")
    }

    static func metres(_ answer: JSONValue) -> Double { answer["routes"]?["features"]?[0]?["attributes"]?["Total_Length"]?.doubleValue ?? -1 }

    /// Within half a percent: Web Mercator's scale is taken at each segment's middle.
    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= b * 0.005 }

    @Test func theGridsRoutesFollowOneWaysRestrictionsBarriersAndSpeeds() async throws {
        try await withFreshDemoApp { client, store in
            try StreetGrid.make(store)
            let info = try await get(client, "\(Self.service)?f=json")
            #expect(info["routeLayers"] == ["Route"], "\(info)")
            let layer = try await get(client, "\(Self.service)/Route?f=json")
            #expect(layer["layerType"] == "esriNAServerRouteLayer" && layer["impedance"] == "TravelTime", "\(layer)")

            let along = try await Self.solve(client, [("stops", Self.stops([(0, 0), (3, 0)])), ("impedanceAttributeName", "Length")])
            #expect(Self.close(Self.metres(along), 3 * Self.eastWest), "\(along)")
            let texts = along["directions"]?[0]?["features"]?.arrayValue?.compactMap { $0["attributes"]?["text"]?.stringValue }
            #expect(texts == ["Start at Location 1", "Go east on Row 0 Street", "Finish at Location 2"], "\(along)")
            let path = along["routes"]?["features"]?[0]?["geometry"]?["paths"]?[0]?.arrayValue ?? []
            #expect(path.first == [.double(13.4), .double(52.5)] || abs((path.first?[0]?.doubleValue ?? 0) - 13.4) < 1e-9, "WGS84 by default")

            // Row 0's first block is one-way east: westward goes round by Row 1.
            let back = try await Self.solve(client, [("stops", Self.stops([(1, 0), (0, 0)])), ("impedanceAttributeName", "Length")])
            #expect(Self.close(Self.metres(back), 2 * Self.northSouth + Self.eastWest), "\(back)")
            let lifted = try await Self.solve(
                client, [("stops", Self.stops([(1, 0), (0, 0)])), ("impedanceAttributeName", "Length"), ("restrictionAttributeNames", "")])
            #expect(Self.close(Self.metres(lifted), Self.eastWest), "without restrictions, straight back")

            // Column 3's first block is restricted.
            let restricted = try await Self.solve(client, [("stops", Self.stops([(3, 0), (3, 1)])), ("impedanceAttributeName", "Length")])
            #expect(Self.close(Self.metres(restricted), 2 * Self.eastWest + Self.northSouth), "\(restricted)")

            // A barrier mid-block on Row 0's second block: round by Row 1.
            let barrier = "\(StreetGrid.origin.x + 0.0015),\(StreetGrid.origin.y)"
            let blocked = try await Self.solve(
                client, [("stops", Self.stops([(0, 0), (3, 0)])), ("barriers", barrier), ("impedanceAttributeName", "Length")])
            #expect(Self.close(Self.metres(blocked), 3 * Self.eastWest + 2 * Self.northSouth), "\(blocked)")

            // Minutes at each line's speed: Row 3 at 100 km/h, Row 2 at the default 50.
            let minutes = { (answer: JSONValue) in answer["routes"]?["features"]?[0]?["attributes"]?["Total_TravelTime"]?.doubleValue ?? 0 }
            let fast = try await Self.solve(client, [("stops", Self.stops([(0, 3), (3, 3)])), ("returnDirections", "false")])
            #expect(fast["directions"] == nil)
            #expect(Self.close(minutes(fast), 3 * Self.eastWest / 1000 / 100 * 60), "\(fast)")
            let slow = try await Self.solve(client, [("stops", Self.stops([(0, 2), (3, 2)]))])
            #expect(Self.close(minutes(slow), 3 * Self.eastWest / 1000 / 50 * 60), "\(slow)")
        }
    }

    @Test func stopsSequenceOutSRAndTheDirectory() async throws {
        try await withFreshDemoApp { client, store in
            try StreetGrid.make(store)
            let features =
                #"{"features":[{"geometry":{"x":13.4,"y":52.5},"attributes":{"Name":"Depot"}},"#
                + #"{"geometry":{"x":13.403,"y":52.5},"attributes":{"Name":"Far"}},{"geometry":{"x":13.401,"y":52.5},"attributes":{"Name":"Near"}}],"#
                + #""spatialReference":{"wkid":4326}}"#
            let ordered = try await Self.solve(
                client,
                [
                    ("stops", features), ("findBestSequence", "true"), ("preserveLastStop", "false"), ("returnStops", "true"),
                    ("impedanceAttributeName", "Length"), ("outSR", "102100"),
                ])
            let stops = ordered["stops"]?["features"]?.arrayValue ?? []
            #expect(stops.map { $0["attributes"]?["Sequence"] } == [1, 3, 2], "\(ordered)")
            #expect(ordered["routes"]?["features"]?[0]?["attributes"]?["Name"] == "Depot - Far")
            #expect(ordered["routes"]?["spatialReference"]?["wkid"] == 102100)
            let x = ordered["routes"]?["features"]?[0]?["geometry"]?["paths"]?[0]?[0]?[0]?.doubleValue ?? 0
            #expect(abs(x - 13.4 * .pi / 180 * 6_378_137) < 0.01, "Web Mercator out")

            let directory = try await get(client, "/arcgis/rest/services?f=json")
            #expect(directory["services"]?.arrayValue?.contains(["name": "StreetRoutes", "type": "NAServer"]) == true, "\(directory)")
            let portal = try await get(client, "/arcgis/sharing/rest/portals/self?f=json")
            #expect(portal["helperServices"]?["route"]?["url"]?.stringValue?.hasSuffix("/rest/services/StreetRoutes/NAServer/Route") == true)
        }
    }

    @Test func badRequestsGetArcGISErrorsAndNoWork() async throws {
        try await withFreshDemoApp { client, store in
            let none = try await get(client, "/arcgis/sharing/rest/portals/self?f=json")
            #expect(none["helperServices"]?["route"] == nil, "no network, no route helper")
            try StreetGrid.make(store)
            let unknown = try await get(client, "/arcgis/rest/services/Nowhere/NAServer/Route/solve?f=json&stops=1,2;3,4")
            #expect(unknown["error"]?["code"] == 404)
            let manyStops = Array(repeating: "13.4,52.5", count: RouteRequest.maximumStops + 1).joined(separator: ";")
            for (pairs, reason) in [
                ([("returnRoutes", "true")], "no stops"),
                ([("stops", Self.stops([(0, 0)]))], "one stop"),
                ([("stops", "13.4,52.5;100,100")], "latitude beyond 90"),
                ([("stops", "13.4,52.5;nan,1")], "not numbers"),
                ([("stops", #"{"type":"features","url":"http://127.0.0.1:1/query"}"#)], "features by URL"),
                ([("stops", Self.stops([(0, 0), (1, 1)])), ("impedanceAttributeName", "Hops")], "an unknown impedance"),
                ([("stops", Self.stops([(0, 0), (1, 1)])), ("restrictionAttributeNames", "Avoid Ferries")], "an unknown restriction"),
                ([("stops", Self.stops([(0, 0), (1, 1)])), ("outSR", "2154")], "an unknown outSR"),
                ([("stops", manyStops)], "too many stops"),
                ([("stops", "13.4,52.5;14.4,52.5")], "a stop far off the network leaves one"),
                ([("stops", Self.stops([(0, 0), (1, 1)])), ("polylineBarriers", #"{"features":[{"geometry":{"paths":[]}}]}"#)], "line barriers"),
                ([("stops", #"{"features":[],"junk":""# + String(repeating: "0", count: RouteRequest.maximumPointsBytes) + "\"}")], "2 MiB of stops"),
            ] {
                let answer = try await Self.solve(client, pairs)
                #expect(answer["error"]?["code"] == 400, "\(reason): \(answer)")
            }
        }
    }

    /// A heavy read past its gate is refused at once, before it waits for a thread: the
    /// gate sits in front of the heavy reads' own threads, not inside the store's pool.
    @Test func aHeavyReadPastItsGateIsRefusedBeforeTakingAThread() async throws {
        let gate = BusyGate(limit: 1, busyMessage: "busy")
        let started = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        let first = Task {
            try await StoreCall.runHeavy(gate) {
                started.store(true, ordering: .releasing)
                let deadline = ContinuousClock.now + .seconds(30)
                while !release.load(ordering: .acquiring) && ContinuousClock.now < deadline { usleep(1_000) }
                return 1
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !started.load(ordering: .acquiring) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        var refusal: Int?
        do { _ = try await StoreCall.runHeavy(gate) { 0 } } catch let error as ArcGISError { refusal = error.code }
        release.store(true, ordering: .releasing)
        #expect(refusal == 429)
        #expect(try await first.value == 1)
        #expect(try await StoreCall.runHeavy(gate) { 2 } == 2, "free again once the first ended")
    }

    @Test func theNetworksStoredFormIsDownloadedWithItsBuildAsETag() async throws {
        try await withFreshDemoApp { client, store in
            let built = try StreetGrid.make(store)
            try await client.execute(uri: "\(Self.service)/exportNetwork", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/octet-stream")
                #expect(response.headers[.eTag] == "\"\(built.buildId)\"")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"StreetRoutes.network\"")
                let network = try RoadNetwork(decoding: Data(buffer: response.body))
                #expect(network.edgeCount == built.edgeCount)
            }
            try await client.execute(uri: "\(Self.service)/exportNetwork", method: .get, headers: [.ifNoneMatch: "\"\(built.buildId)\""]) {
                response in
                #expect(response.status == .notModified && response.body.readableBytes == 0)
            }
            try await client.execute(uri: "\(Self.service)/exportNetwork", method: .get, headers: [.ifNoneMatch: "\"stale\""]) { response in
                #expect(response.status == .ok && response.body.readableBytes > 0)
            }
        }
    }

    @Test func aRebuiltNetworkIsLoadedAgain() async throws {
        try await withFreshDemoApp { client, store in
            try StreetGrid.make(store)
            let before = try await Self.solve(client, [("stops", Self.stops([(0, 0), (1, 0)]))])
            var slower = StreetGrid.definition("Streets", "StreetRoutes")
            slower.defaultSpeed = 25
            try NetworkBuilder.build(slower, in: store)
            let after = try await Self.solve(client, [("stops", Self.stops([(0, 0), (1, 0)]))])
            let minutes = { (answer: JSONValue) in answer["routes"]?["features"]?[0]?["attributes"]?["Total_TravelTime"]?.doubleValue ?? 0 }
            #expect(abs(minutes(after) - 2 * minutes(before)) < 1e-9, "\(minutes(before)) then \(minutes(after))")
        }
    }
}
