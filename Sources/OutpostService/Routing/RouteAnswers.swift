import OutpostGeocoding
import OutpostRouting
import OutpostStorage
import OutpostWire

/// A route service's answers (docs/routing.md, "Service"): the store keeps the network, the
/// cache holds it loaded, `OutpostRouting` solves, this writes ArcGIS's JSON.
public struct RouteAnswers<Store: NetworkStore>: Sendable {
    public let store: Store
    public let cache: NetworkCache

    public init(store: Store, cache: NetworkCache) {
        self.store = store
        self.cache = cache
    }

    /// The network the path names, or ArcGIS's 404.
    public func network(named name: String) throws -> StoredNetwork {
        guard let network = try store.network(named: name) else {
            throw ArcGISError(kind: .notFound, message: "Service not found.", details: ["There is no NAServer '\(name)'."])
        }
        return network
    }

    /// `solve` on the `Route` layer.
    public func solve(_ network: StoredNetwork, _ parameters: RequestParameters) throws -> JSONValue {
        let request = try RouteRequest.parse(parameters, hasCost: network.hasCost)
        let solver = try cache.solver(for: network, in: store)
        let route: SolvedRoute
        do {
            route = try solver.solve(request.problem)
        } catch let failure as RouteFailure {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to complete operation.", details: ["No solution found.", failure.description])
        }
        let roads = solver.network
        let routeName = "\(route.stops[0].name) - \(route.stops[route.stops.count - 1].name)"
        var answer = JSONObject()
        answer["messages"] = .array(
            route.unlocated.map { ["type": 50, "description": .string("Location \"\(request.problem.stops[$0].name)\" is unlocated.")] })
        if request.returnRoutes {
            answer["routes"] = routes(route, roads, name: routeName, request)
        }
        if request.returnDirections {
            answer["directions"] = [directions(route, roads, name: routeName, request)]
        }
        if request.returnStops { answer["stops"] = stops(route, roads, name: routeName, request) }
        if request.returnBarriers {
            answer["barriers"] = featureSet(
                geometryType: "esriGeometryPoint", request,
                features: request.problem.barriers.enumerated().map { i, barrier in
                    feature(
                        [
                            "ObjectID": .int(Int64(i + 1)), "Name": .string(barrier.name), "BarrierType": 0,
                            "Status": route.locatedBarriers.contains(i) ? 0 : 1,
                        ],
                        point: barrier.point, request)
                })
        }
        return .object(answer)
    }

    func routes(_ route: SolvedRoute, _ roads: RoadNetwork, name: String, _ request: RouteRequest) -> JSONValue {
        let metres = route.pieces.reduce(0) { $0 + roads.length(of: $1) }
        let minutes = route.pieces.reduce(0) { $0 + roads.minutes(of: $1) }
        var attributes: JSONObject = [
            "ObjectID": 1, "Name": .string(name), "FirstStopID": .int(Int64(route.stops[0].input + 1)),
            "LastStopID": .int(Int64(route.stops[route.stops.count - 1].input + 1)), "StopCount": .int(Int64(route.stops.count)),
            "Total_Length": .double(metres), "Total_TravelTime": .double(minutes), "Total_Kilometers": .double(metres / 1000),
            "Total_Miles": .double(metres / LengthUnit.miles.metres), "Total_Minutes": .double(minutes), "Shape_Length": .double(metres),
        ]
        if roads.hasCost { attributes["Total_Cost"] = .double(route.pieces.reduce(0) { $0 + roads.cost(of: $1) }) }
        var feature: JSONObject = ["attributes": .object(attributes)]
        switch request.outputLines {
        case .trueShape: feature["geometry"] = ["paths": [path(roads.path(of: route.pieces), request)]]
        case .straight: feature["geometry"] = ["paths": [path(route.stops.map(\.location.snapped), request)]]
        case .none: break
        }
        return featureSet(geometryType: "esriGeometryPolyline", request, features: [.object(feature)])
    }

    func directions(_ route: SolvedRoute, _ roads: RoadNetwork, name: String, _ request: RouteRequest) -> JSONValue {
        let maneuvers = RouteDirections.make(route, network: roads, language: request.language)
        let unit = request.lengthUnits.metres
        var elapsed = 0.0
        let features: [JSONValue] = maneuvers.map { maneuver in
            let eta = request.startTime.map { $0 + elapsed * 60_000 } ?? -2_209_161_600_000
            elapsed += maneuver.minutes
            let points = maneuver.path.map { request.outSR.coordinates(of: $0) }
            return [
                "attributes": [
                    "length": .double(maneuver.length / unit), "time": .double(maneuver.minutes), "text": .string(maneuver.text),
                    "ETA": .double(eta), "maneuverType": .string(maneuver.kind.rawValue),
                ],
                "compressedGeometry": .string(
                    CompressedGeometry.encode(points.map { ($0.x, $0.y) }, factor: request.outSR == .wgs84 ? 1_000_000 : 100)),
            ]
        }
        let all = roads.path(of: route.pieces).map { request.outSR.coordinates(of: $0) }
        let metres = route.pieces.reduce(0) { $0 + roads.length(of: $1) }
        return [
            "routeId": 1, "routeName": .string(name),
            "summary": [
                "totalLength": .double(metres / unit), "totalTime": .double(elapsed), "totalDriveTime": .double(elapsed),
                "envelope": [
                    "xmin": .double(all.map(\.x).min() ?? 0), "ymin": .double(all.map(\.y).min() ?? 0), "xmax": .double(all.map(\.x).max() ?? 0),
                    "ymax": .double(all.map(\.y).max() ?? 0), "spatialReference": request.outSR.spatialReference.json,
                ],
            ],
            "features": .array(features),
        ]
    }

    func stops(_ route: SolvedRoute, _ roads: RoadNetwork, name: String, _ request: RouteRequest) -> JSONValue {
        var cumulative: [Int: (metres: Double, minutes: Double, sequence: Int)] = [route.stops[0].input: (0, 0, 1)]
        var metres = 0.0
        var minutes = 0.0
        for (i, leg) in route.legs.enumerated() {
            metres += leg.pieces.reduce(0) { $0 + roads.length(of: $1) }
            minutes += leg.pieces.reduce(0) { $0 + roads.minutes(of: $1) }
            cumulative[route.stops[i + 1].input] = (metres, minutes, i + 2)
        }
        let located = Dictionary(route.stops.map { ($0.input, $0.location) }, uniquingKeysWith: { first, _ in first })
        let features: [JSONValue] = request.problem.stops.indices.map { i in
            var attributes: JSONObject = [
                "ObjectID": .int(Int64(i + 1)), "Name": .string(request.problem.stops[i].name), "RouteName": .string(name),
                "Sequence": cumulative[i].map { .int(Int64($0.sequence)) } ?? .null, "Status": located[i] == nil ? 1 : 0,
                "Cumul_Length": cumulative[i].map { .double($0.metres) } ?? .null,
                "Cumul_TravelTime": cumulative[i].map { .double($0.minutes) } ?? .null,
                "SourceOID": located[i].map { .int(roads.edgeSource[$0.edge]) } ?? .null,
                "PosAlong": located[i].map { .double($0.fraction) } ?? .null,
            ]
            for (key, value) in request.stopInputs[i].attributes where attributes[key] == nil { attributes[key] = value }
            return feature(attributes, point: request.stopInputs[i].point, request)
        }
        return featureSet(geometryType: "esriGeometryPoint", request, features: features)
    }

    func featureSet(geometryType: String, _ request: RouteRequest, features: [JSONValue]) -> JSONValue {
        ["geometryType": .string(geometryType), "spatialReference": request.outSR.spatialReference.json, "features": .array(features)]
    }

    func feature(_ attributes: JSONObject, point: PlanarPoint, _ request: RouteRequest) -> JSONValue {
        let (x, y) = request.outSR.coordinates(of: point)
        return ["attributes": .object(attributes), "geometry": ["x": .double(x), "y": .double(y)]]
    }

    func path(_ points: [PlanarPoint], _ request: RouteRequest) -> JSONValue {
        .array(
            points.map { point in
                let (x, y) = request.outSR.coordinates(of: point)
                return [.double(x), .double(y)]
            })
    }
}
