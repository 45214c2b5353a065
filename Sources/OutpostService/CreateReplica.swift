import OutpostStorage
import OutpostSync
import OutpostWire

/// The create-replica use case, whatever carries it: plan the request for a caller (the
/// registration rules, a name unique per service held while the replica is made, the plan
/// checked against the data), then either register existing data or export the snapshot —
/// written where the caller wants it — and register the replica.
public struct CreateReplica<Backend: OutpostBackend>: Sendable {
    public let backend: Backend

    public init(backend: Backend) {
        self.backend = backend
    }

    /// A planned replica, its name held until `register…`/`export` or `release`.
    public struct Planned: Sendable {
        public var plan: ReplicaPlan
        /// The name held while the replica is made; none for an export that is not
        /// registered (`syncModel=none`), whose name need not be unique.
        public var reservedName: String?
        /// Registering existing data: the replica it was copied from, and its line's first replica.
        var reference: ReplicaDefinition?
        var originId: String?
    }

    /// Plans `request` on `service` for `caller`. A viewer gets a download-only replica, as
    /// ArcGIS gives non-owners of Query+Sync services. Throws before anything is held or written.
    public func plan(_ request: CreateReplicaRequest, service: String, for caller: Caller, replicaId: String = GlobalID.make()) throws -> Planned {
        let stored = try backend.service(named: service)
        let serviceName = stored.definition.name
        var request = request
        if caller.user?.role == .viewer { request.syncDirection = .download }
        var reference: ReplicaDefinition?
        var originId: String?
        if let registration = request.registerExistingData {
            let facts = try backend.replicas.registrationFacts(service: serviceName, referenceId: registration.referenceReplicaId)
            try RegistrationRules.check(facts)
            originId = facts.originId
            if let id = registration.referenceReplicaId { reference = try backend.replicas.replica(service: serviceName, id: id) }
        }
        let now = backend.clock.milliseconds()
        let owner = caller.user?.name ?? ""
        var plan: ReplicaPlan?
        func planned(taking taken: [String]) throws -> String {
            let planned = try ReplicaPlanner.plan(
                request, service: stored.definition, replicaId: replicaId, owner: owner, takenNames: taken, reference: reference, now: now)
            plan = planned
            return planned.definition.name
        }
        // An export that will not be registered takes no name: many may share one.
        let reserved: String?
        if request.syncModel == SyncModel.none {
            _ = try planned(taking: [])
            reserved = nil
        } else {
            reserved = try backend.replicas.reserveReplicaName(planned(taking:), service: serviceName)
        }
        guard let plan else { throw ArcGISError.internalError("no replica plan") }
        let planned = Planned(plan: plan, reservedName: reserved, reference: reference, originId: originId)
        do {
            // The spatial references the backend cannot project, named as `createReplica` carries them.
            try StorageRefusal.naming([.replicaSpatialReference: "replicaSR", .replicaGeometrySpatialReference: "inSR"]) {
                try backend.sync.validate(plan)
            }
        } catch {
            release(planned)
            throw error
        }
        return planned
    }

    /// Lets go of the name a planned replica held (when it will not be made).
    public func release(_ planned: Planned) {
        guard let name = planned.reservedName else { return }
        backend.replicas.releaseReplicaName(name, service: planned.plan.definition.serviceName)
    }

    /// Registers existing data (§4.7): an id and generations, no data.
    public func registerExistingData(_ planned: Planned) throws -> ReplicaDefinition {
        defer { release(planned) }
        guard let registration = planned.plan.registration else { throw ArcGISError.internalError("not a registration") }
        let definition = try ReplicaPlanner.registeredGenerations(
            registration, for: planned.plan.definition, reference: planned.reference, currentGeneration: try backend.edits.currentGeneration())
        return try backend.replicas.registerReplica(definition, copiedFrom: planned.originId)
    }

    /// Exports the snapshot through `write` (which hands the plan to `SyncStore.exportReplica`
    /// with the output it wants and returns the definition stamped with the snapshot's
    /// generation), then registers the replica (`syncModel=none` replicas are not). Returns the
    /// replica as registered: its name may differ from the plan's when another took it meanwhile.
    public func export(_ planned: Planned, write: (ReplicaPlan) throws -> ReplicaDefinition) throws -> ReplicaDefinition {
        defer { release(planned) }
        let definition = try write(planned.plan)
        return definition.isRegistered ? try backend.replicas.registerReplica(definition) : definition
    }
}
