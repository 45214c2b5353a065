import OutpostStorage
import OutpostSync
import OutpostWire

/// The replica registry as callers use it, the HTTP server and the CLI alike: listing what a
/// caller may see, unregistering one, all or the idle ones, compacting.
public struct ReplicaAdministration<Backend: SyncBackend>: Sendable {
    public let backend: Backend

    public init(backend: Backend) {
        self.backend = backend
    }

    /// The replicas `caller` may manage, of one service or of all (each service's oldest
    /// first), optionally only those with no sync for more than `idleDays` (by the backend's
    /// clock).
    public func replicas(service: String? = nil, idleDays: Double? = nil, for caller: Caller) throws -> [ReplicaDefinition] {
        var replicas = try service.map { try backend.replicas.replicas(service: $0) } ?? backend.replicas.allReplicas()
        replicas = replicas.filter { caller.mayManage(owner: $0.owner) }
        if let idleDays {
            replicas = ReplicaHousekeeping.idle(replicas, days: idleDays, now: backend.clock.milliseconds())
        }
        return replicas
    }

    /// Unregisters one replica (`unRegisterReplica`). Throws not found for an id the service
    /// does not have, forbidden for another's replica.
    public func unregister(service: String, replicaId: String, for caller: Caller) throws {
        guard GlobalID.normalize(replicaId) != nil else {
            throw ArcGISError.invalidParameter("replicaID", "'\(replicaId)' is not a replica id (a GUID) or *")
        }
        if let replica = try backend.replicas.replica(service: service, id: replicaId), !caller.mayManage(owner: replica.owner) {
            throw ArcGISError.forbidden
        }
        guard try backend.replicas.unregisterReplica(service: service, id: replicaId) else { throw ArcGISError.replicaNotFound(replicaId) }
    }

    /// Unregisters every replica of a service the caller may manage (`replicaID=*`); returns how many.
    @discardableResult
    public func unregisterAll(service: String, for caller: Caller) throws -> Int {
        if caller.user == nil || caller.user?.role == .admin { return try backend.replicas.unregisterAllReplicas(service: service) }
        var count = 0
        for replica in try backend.replicas.replicas(service: service) where caller.mayManage(owner: replica.owner) {
            if try backend.replicas.unregisterReplica(service: service, id: replica.id) { count += 1 }
        }
        return count
    }

    /// Unregisters each of `replicas` still registered; returns those it unregistered.
    public func unregister(_ replicas: [ReplicaDefinition]) throws -> [ReplicaDefinition] {
        try replicas.filter { try backend.replicas.unregisterReplica(service: $0.serviceName, id: $0.id) }
    }

}

extension ReplicaAdministration where Backend: OutpostBackend {
    /// Purges change tracking no registered replica needs (`StoreMaintenance.compact`). Locators
    /// and networks follow the change tracking too, and deletions it no longer records would be
    /// missed: each is marked to be built anew at its next refresh.
    public func compact() throws -> CompactReport {
        let report = try backend.maintenance.compact()
        for locator in try backend.locators.locators() { try LocatorRefresh.forgetGeneration(locator, in: backend) }
        for network in try backend.networks.networks() { try NetworkRefresh.forgetGeneration(network, in: backend) }
        return report
    }
}

extension ArcGISError {
    /// The caller's role does not allow it.
    public static var forbidden: ArcGISError {
        ArcGISError(kind: .forbidden, message: "You do not have permissions to access this resource or perform this operation.")
    }

    public static func replicaNotFound(_ id: String) -> ArcGISError {
        ArcGISError(kind: .notFound, message: "Replica not found.", details: ["No registered replica has the id '\(id)'."])
    }
}
