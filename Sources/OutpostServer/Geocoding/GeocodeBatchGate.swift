import OutpostWire
import Synchronization

/// How many `geocodeAddresses` run at once in this process (docs/geocoding.md, "Service"): a
/// batch is up to `MaxBatchSize` × three index lookups, so more at once would hold the store's
/// threads from every other request; one past the limit is answered 429 with a `Retry-After`.
final class GeocodeBatchGate: Sendable {
    let limit: Int
    private let running = Atomic<Int>(0)

    init(limit: Int = 2) { self.limit = limit }

    /// Runs `body` when a place is free, else throws ArcGIS's 429 at once.
    func run<T>(_ body: () throws -> T) throws -> T {
        let count = running.add(1, ordering: .acquiringAndReleasing).newValue
        defer { running.subtract(1, ordering: .acquiringAndReleasing) }
        guard count <= limit else {
            throw ArcGISError.tooManyRequests("\(limit) batches are being geocoded; try again shortly.", retryAfterSeconds: 1)
        }
        return try body()
    }
}
