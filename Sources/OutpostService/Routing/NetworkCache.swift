import Foundation
import OutpostRouting
import OutpostStorage
import Synchronization

/// Loaded networks, each kept with the `buildId` it was loaded at: a rebuilt network (by
/// this process or another on the same store) is loaded again on its next solve. A removed
/// network's graph stays until one of its name is loaded again or the process ends: a graph
/// per name ever solved, as the store's networks are an administrator's few.
public final class NetworkCache: Sendable {
    private let loaded = Mutex<[String: (buildId: String, solver: RouteSolver)]>([:])

    public init() {}

    /// The network's solver, loading its graph when the cached one is missing or stale.
    public func solver(for network: StoredNetwork, in store: some NetworkStore) throws -> RouteSolver {
        let key = network.name.lowercased()
        if let cached = loaded.withLock({ $0[key] }), cached.buildId == network.buildId { return cached.solver }
        guard let bytes = try store.graph(ofNetwork: network.name) else { throw StoreError.serviceNotFound(network.name) }
        let solver = RouteSolver(network: try RoadNetwork(decoding: bytes))
        loaded.withLock { $0[key] = (network.buildId, solver) }
        return solver
    }
}
