import Foundation
import OutpostGeocoding
import OutpostRouting
import OutpostWire

/// Routes solved by a route service, or on the device from a network taken offline (after the
/// ArcGIS Maps SDKs' `RouteTask`; docs/client.md, "Routing"). Offline it runs the server's own
/// engine (`OutpostRouting`) over the network's stored form, so both answer alike.
public struct RouteTask: Sendable {
    enum Source: Sendable {
        case service(ServiceConnection)
        case device(RouteSolver)
    }

    let source: Source
    /// The most bytes a network file may hold before it is read.
    public static let maximumNetworkBytes = 1 << 30
    /// Stops and barriers, as the service bounds them.
    public static let maximumStops = 50
    public static let maximumBarriers = 250

    /// Online: `url` is the route service (`…/rest/services/<name>/NAServer`).
    public init(url: URL, token: String? = nil, allowsUntrustedCertificates: Bool = false, transport: (any HTTPTransport)? = nil) {
        source = .service(
            ServiceConnection(serviceURL: url, token: token, allowsUntrustedCertificates: allowsUntrustedCertificates, transport: transport))
    }

    /// Offline: a network file `downloadNetwork` wrote. The file is read as untrusted: its
    /// size is checked first, every count and index as it is read.
    public init(networkFile path: String) throws {
        // The size of what is read: a link's target, which must be a regular file (not a pipe).
        let size = OfflineMapTasks.regularFileSize(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        guard let size, size <= Self.maximumNetworkBytes else { throw ClientError.geodatabase("\(path) is no network file of at most 1 GiB") }
        do {
            source = .device(RouteSolver(network: try RoadNetwork(decoding: try Data(contentsOf: URL(fileURLWithPath: path)))))
        } catch {
            throw ClientError.geodatabase("\(path) is not a network file: \(error)")
        }
    }

    /// Takes the service's network offline: its stored form, written beside `path` and renamed
    /// into place. Open it with `init(networkFile:)`.
    public func downloadNetwork(to path: String) async throws {
        guard case .service(let connection) = source else { throw ClientError.unsupported("the network is already on the device") }
        let (data, _) = try await connection.download(connection.url("exportNetwork"), offset: 0, length: Self.maximumNetworkBytes)
        let partial = path + ".part"
        try data.write(to: URL(fileURLWithPath: partial))
        guard rename(partial, path) == 0 else { throw ClientError.geodatabase("could not put the network at \(path) (errno \(errno))") }
    }

    public func solveRoute(_ parameters: RouteParameters) async throws -> RouteResult {
        guard parameters.stops.count <= Self.maximumStops, parameters.pointBarriers.count <= Self.maximumBarriers else {
            throw ClientError.unsupported("at most \(Self.maximumStops) stops and \(Self.maximumBarriers) barriers")
        }
        switch source {
        case .service(let connection): return try Self.result(try await connection.postForm(connection.url("Route/solve"), parameters.formFields))
        case .device(let solver): return try Self.solve(parameters, with: solver)
        }
    }

    static func solve(_ parameters: RouteParameters, with solver: RouteSolver) throws -> RouteResult {
        func planar(_ place: RoutePlace) throws -> RoutePoint {
            guard place.longitude.isFinite, place.latitude.isFinite, abs(place.longitude) <= 180, abs(place.latitude) <= 90 else {
                throw ClientError.server(
                    code: 400, message: "Unable to complete operation.", details: ["'\(place.name)' is no longitude and latitude."])
            }
            return RoutePoint(name: place.name, point: WebMercator.point(longitude: place.longitude, latitude: place.latitude))
        }
        var problem = RouteProblem(stops: try parameters.stops.map(planar))
        problem.barriers = try parameters.pointBarriers.map(planar)
        problem.rules = TravelRules(impedance: parameters.impedance, restrictions: parameters.restrictions)
        problem.findBestSequence = parameters.findsBestSequence
        problem.preserveFirstStop = parameters.preservesFirstStop
        problem.preserveLastStop = parameters.preservesLastStop
        let route: SolvedRoute
        do {
            route = try solver.solve(problem)
        } catch let failure as RouteFailure {
            throw ClientError.server(code: 400, message: "Unable to complete operation.", details: ["No solution found.", failure.description])
        }
        let network = solver.network
        let maneuvers =
            parameters.returnsDirections
            ? RouteDirections.make(route, network: network, language: DirectionsLanguage(code: parameters.directionsLanguage)) : []
        return RouteResult(
            name: "\(route.stops[0].name) - \(route.stops[route.stops.count - 1].name)", stopOrder: route.stops.map(\.name),
            totalMetres: route.pieces.reduce(0) { $0 + network.length(of: $1) },
            totalMinutes: route.pieces.reduce(0) { $0 + network.minutes(of: $1) },
            path: network.path(of: route.pieces).map { point in
                let (longitude, latitude) = WebMercator.coordinates(of: point)
                return [longitude, latitude]
            },
            directions: maneuvers.map { RouteResult.Maneuver(text: $0.text, kind: $0.kind.rawValue, metres: $0.length, minutes: $0.minutes) })
    }

    /// The service's `solve` answer as a `RouteResult` (directions in metres, as asked).
    static func result(_ answer: JSONValue) throws -> RouteResult {
        guard let route = answer["routes"]?["features"]?[0], let attributes = route["attributes"] else {
            throw ClientError.invalidResponse("a solve without a route")
        }
        let stops = (answer["stops"]?["features"]?.arrayValue ?? []).compactMap { stop -> (Int64, String)? in
            guard let sequence = stop["attributes"]?["Sequence"]?.int64Value, let name = stop["attributes"]?["Name"]?.stringValue else { return nil }
            return (sequence, name)
        }
        let path = (route["geometry"]?["paths"]?[0]?.arrayValue ?? []).map { vertex in (vertex.arrayValue ?? []).compactMap(\.doubleValue) }
        let maneuvers = (answer["directions"]?[0]?["features"]?.arrayValue ?? []).map { feature in
            RouteResult.Maneuver(
                text: feature["attributes"]?["text"]?.stringValue ?? "", kind: feature["attributes"]?["maneuverType"]?.stringValue ?? "",
                metres: feature["attributes"]?["length"]?.doubleValue ?? 0, minutes: feature["attributes"]?["time"]?.doubleValue ?? 0)
        }
        return RouteResult(
            name: attributes["Name"]?.stringValue ?? "", stopOrder: stops.sorted { $0.0 < $1.0 }.map(\.1),
            totalMetres: attributes["Total_Length"]?.doubleValue ?? 0, totalMinutes: attributes["Total_TravelTime"]?.doubleValue ?? 0, path: path,
            directions: maneuvers)
    }
}
