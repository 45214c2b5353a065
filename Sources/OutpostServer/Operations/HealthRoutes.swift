import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// Liveness, readiness and metrics: plain HTTP for orchestrators and scrapers. Liveness
/// answers while the process serves; readiness also needs the database to answer a read.
struct HealthRoutes<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let metrics: ServerMetrics
    let runner: JobRunner

    func addRoutes(to router: Router<OutpostRequestContext>) {
        let store = store
        let metrics = metrics
        let runner = runner
        router.get("/health/live") { _, _ in RESTResponse.json(["status": "live"], parameters: RequestParameters()) }
        router.get("/health/ready") { _, _ -> Response in
            let ready = try await StoreCall.run { store.maintenance.health().isHealthy }
            var response = RESTResponse.json(["status": ready ? "ready" : "unavailable"], parameters: RequestParameters())
            if !ready { response.status = .serviceUnavailable }
            return response
        }
        router.get("/metrics") { _, _ -> Response in
            let text = try await metrics.scrape(store: store, runner: runner)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }
    }
}
