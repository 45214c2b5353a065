import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// Route networks as `NAServer`s with one `Route` layer (docs/routing.md, "Service"): every
/// operation reads, so every viewer may ask. Solves run two at a time per process.
struct RouteController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let cache = NetworkCache()
    let solves = BusyGate(busyMessage: "2 routes are being solved; try again shortly.")

    var answers: RouteAnswers<Backend.Networks> { RouteAnswers(store: store.networks, cache: cache) }

    func addRoutes(to routes: ArcGISRoutes) {
        let version = FeatureServiceMetadata.currentVersion
        routes.viewers
            .read("NAServer", store: { _, c in try answer(c) { network, _ in NetworkInfo.service(network, currentVersion: version) } })
            .read("NAServer/Route", store: { _, c in try answer(c) { network, _ in NetworkInfo.routeLayer(network, currentVersion: version) } })
            .read("NAServer/Route/solve") { _, c in try await StoreCall.runHeavy(solves) { try answer(c, answers.solve) } }
            .read("NAServer/exportNetwork") { request, c in
                let network = try await StoreCall.run { try answers.network(named: try c.serviceName()) }
                if let unchanged = ConditionalGet.notModified(request, eTag: Self.eTag(of: network)) { return unchanged }
                return try await StoreCall.runHeavy(solves) { try exportNetwork(c) }
            }
    }

    /// A network's entity tag: its build's id, new at every build.
    static func eTag(of network: StoredNetwork) -> String { "\"\(network.buildId)\"" }

    /// The network's stored form (docs/routing.md, "Stored form"), for the client library's
    /// `RouteTask` to solve offline with the same engine. A whole graph is read into memory, so
    /// downloads share the solves' gate; the build's id is the ETag.
    private func exportNetwork(_ c: OutpostRequestContext) throws -> Response {
        let network = try answers.network(named: try c.serviceName())
        guard let graph = try store.networks.graph(ofNetwork: network.name) else { throw StoreError.serviceNotFound(network.name) }
        // A network's name is letters, digits, _ and - (`ServiceDefinition.isValidName`), in one folder at most.
        let file = network.name.split(separator: "/").last.map(String.init) ?? "network"
        let headers: HTTPFields = [
            .contentType: "application/octet-stream", .contentDisposition: "attachment; filename=\"\(file).network\"",
            .eTag: Self.eTag(of: network),
        ]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: graph)))
    }

    private func answer(_ c: OutpostRequestContext, _ body: (StoredNetwork, RequestParameters) throws -> JSONValue) throws -> Response {
        let network = try answers.network(named: try c.serviceName())
        return RESTResponse.json(try body(network, c.form.parameters), parameters: c.form.parameters)
    }
}
