import OutpostSync

/// The replica registry: `replicas`, `replicas/<id>`, registration, unregistration and the
/// lineage the registration rules read (`RegistrationRules`).
///
/// Contract: ids compare in any GUID spelling; a replica is found only through its own
/// service; names stay unique per service (a name taken meanwhile gets the next free suffix);
/// an unregistered id is remembered for good; a registered copy's origin is written in its
/// registration's transaction.
public protocol ReplicaRegistry: Sendable {
    /// The registered replicas of a service, oldest first.
    func replicas(service: String) throws -> [ReplicaDefinition]
    /// Every registered replica of every service.
    func allReplicas() throws -> [ReplicaDefinition]
    func replica(service: String, id: String) throws -> ReplicaDefinition?
    /// Registers a replica whose snapshot is complete; returns the stored definition.
    @discardableResult func registerReplica(_ definition: ReplicaDefinition, copiedFrom origin: String?) throws -> ReplicaDefinition
    /// False when the service has no replica with that id.
    func unregisterReplica(service: String, id: String) throws -> Bool
    /// Unregisters every replica of a service (`replicaID=*`); returns how many.
    func unregisterAllReplicas(service: String) throws -> Int
    /// Registered names plus names being created right now go to `planned`; the name it
    /// returns is held until `releaseReplicaName`.
    func reserveReplicaName(_ planned: (_ taken: [String]) throws -> String, service: String) throws -> String
    func releaseReplicaName(_ name: String, service: String)
    /// What the registration rules need to know about registering against `referenceId`.
    func registrationFacts(service: String, referenceId: String?) throws -> RegistrationFacts
}

extension ReplicaRegistry {
    @discardableResult public func registerReplica(_ definition: ReplicaDefinition) throws -> ReplicaDefinition {
        try registerReplica(definition, copiedFrom: nil)
    }
}
