import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The use cases the server and the CLI share, over every contract backend.
@Suite struct UseCaseTests {
    static let ada = Caller(user: ServerUser(name: "ada", role: .editor))
    static let bob = Caller(user: ServerUser(name: "bob", role: .editor))
    static let admin = Caller(user: ServerUser(name: "root", role: .admin))

    @Test(arguments: ContractBackend.all)
    func replicasAreManagedByTheirOwnersAndAdministrators(_ backend: ContractBackend) throws {
        let (store, clock) = try backend.fresh()
        try Self.check(store, clock)
    }

    static func check(_ store: some OutpostBackend, _ clock: ManualClock) throws {
        let administration = ReplicaAdministration(backend: store)
        let adas = try Contract.createReplica(store, name: "a", owner: "ada")
        clock.advance(milliseconds: 10 * 86_400_000)
        let bobs = try Contract.createReplica(store, name: "b", owner: "bob")
        let legacy = try Contract.createReplica(store, name: "before security", owner: "")
        #expect(try administration.replicas(for: ada).map(\.id) == [adas.id])
        #expect(try administration.replicas(for: admin).count == 3 && administration.replicas(for: .unrestricted).count == 3)
        // Idle by the backend's clock: ada's replica has not synced for 10 days.
        #expect(try administration.replicas(idleDays: 5, for: .unrestricted).map(\.id) == [adas.id])
        #expect(throws: ArcGISError.forbidden) { try administration.unregister(service: Contract.service, replicaId: bobs.id, for: ada) }
        #expect(throws: ArcGISError.forbidden) { try administration.unregister(service: Contract.service, replicaId: legacy.id, for: ada) }
        let unknown = GlobalID.make()
        #expect(throws: ArcGISError.replicaNotFound(unknown)) {
            try administration.unregister(service: Contract.service, replicaId: unknown, for: admin)
        }
        #expect(try administration.unregisterAll(service: Contract.service, for: bob) == 1)
        #expect(try administration.replicas(for: .unrestricted).map(\.id).sorted() == [adas.id, legacy.id].sorted())
        try administration.unregister(service: Contract.service, replicaId: legacy.id, for: admin)
        #expect(try administration.unregister(administration.replicas(idleDays: 5, for: .unrestricted)).map(\.id) == [adas.id])
        #expect(try administration.replicas(for: .unrestricted).isEmpty)
    }

    @Test(arguments: ContractBackend.all)
    func aSyncWithRollbackOnFailureAppliesNothingWhenAnEditFails(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        try Self.rollback(store)
    }

    static func rollback(_ store: some OutpostBackend) throws {
        let replica = try Contract.createReplica(store)
        var request = SynchronizeReplicaRequest(replicaId: replica.id)
        request.rollbackOnFailure = true
        let edits = LayerEdits(layerId: 0, adds: [Contract.point("good", globalId: GlobalID.make()), Contract.point("no GlobalID")])
        let plan = try SyncPlanner.plan(request, replica: replica, edits: [edits])
        let sync = SynchronizeReplica(backend: store, plan: plan, fingerprint: [7])
        #expect(throws: ArcGISError.self) {
            _ = try sync.run { _ in
                Issue.record("no answer after a failed upload")
                throw ArcGISError.internalError("")
            }
        }
        // Nothing committed: no row, and nothing for a replica to download (a generation
        // counter would not have moved; PostgreSQL's ticks move with every read, so the
        // contract is what a replica sees).
        #expect(try store.features.count(service: Contract.service, layer: 0) == 0)
        let (unchanged, _) = try Contract.answer(store, try Contract.syncPlan(replica, edits: nil), upload: nil)
        let changes = Contract.changes(unchanged)
        #expect(changes.adds.isEmpty && changes.updates.isEmpty && changes.deletes.isEmpty, "\(unchanged)")
        // Without rollbackOnFailure the good edit commits, and the sync records its generation.
        var lenient = request
        lenient.rollbackOnFailure = false
        let outcome = try SynchronizeReplica(backend: store, plan: try SyncPlanner.plan(lenient, replica: replica, edits: [edits]), fingerprint: [8])
            .run { upload in try Contract.answer(store, plan, upload: upload).1 }
        #expect(outcome.upload?.results[0].addResults.map(\.success) == [true, false])
        #expect(try store.replicas.replica(service: Contract.service, id: replica.id)?.layers[0].serverGen == outcome.answer.generation)
    }

    @Test(arguments: ContractBackend.all)
    func aReplicaIsPlannedForItsCallerUnderAHeldNameThenExportedAndRegistered(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        try Self.create(store)
    }

    static func create(_ store: some OutpostBackend) throws {
        let creation = CreateReplica(backend: store)
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", "crew")]))
        let viewer = Caller(user: ServerUser(name: "val", role: .viewer))
        let first = try creation.plan(request, service: Contract.service, for: viewer)
        #expect(first.plan.definition.syncDirection == .download && first.plan.definition.owner == "val")
        // While the first holds "crew", the same request gets the next free name.
        let second = try creation.plan(request, service: Contract.service, for: ada)
        #expect(first.plan.definition.name == "crew" && second.plan.definition.name == "crew_0")
        creation.release(second)
        var written = false
        let registered = try creation.export(first) { plan in
            written = true
            return try store.sync.exportReplica(
                plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
                phase: { _ in }
            ).0
        }
        #expect(written && registered.name == "crew")
        #expect(try store.replicas.replica(service: Contract.service, id: registered.id)?.owner == "val")
        // The name was let go: a third request takes "crew_0", the first one's name being registered.
        let third = try creation.plan(request, service: Contract.service, for: ada)
        #expect(third.plan.definition.name == "crew_0")
        creation.release(third)
        // Registering existing data: a copy of the registered replica, no export.
        var copy = CreateReplicaRequest()
        copy.layers = [0]
        copy.replicaName = "copy"
        copy.registerExistingData = RegisterExistingData(referenceReplicaId: registered.id)
        let registration = try creation.plan(copy, service: Contract.service, for: ada)
        let copied = try creation.registerExistingData(registration)
        #expect(copied.id != registered.id && copied.layers[0].serverGen == registered.layers[0].serverGen)
        #expect(try store.replicas.registrationFacts(service: Contract.service, referenceId: copied.id).originId == registered.id)
    }

    @Test(arguments: ContractBackend.all)
    func aJobSavesEveryStepByTheClockAndEndsCompletedOrFailed(_ backend: ContractBackend) throws {
        let (store, clock) = try backend.fresh()
        try Self.jobs(store, clock)
    }

    static func jobs(_ store: some OutpostBackend, _ clock: ManualClock) throws {
        func job(_ id: String) -> JobRecord {
            JobRecord(
                id: id, serviceName: Contract.service, kind: .createReplica, replicaId: GlobalID.make(), replicaName: id,
                transportType: .url, responseType: .data, submittedAt: clock.milliseconds(), owner: "ada")
        }
        var seen: [ServerJobStatus] = []
        let done = JobRun(backend: store).run(job("ok")) { phase in
            seen.append(try! store.jobs.job(id: "ok")!.status)
            clock.advance(milliseconds: 1_000)
            phase(.exportingData)
            seen.append(try! store.jobs.job(id: "ok")!.status)
            return "file.gpkg"
        }
        #expect(seen == [.inProgress, .exportingData])
        #expect(try done.status == .completed && done.resultFile == "file.gpkg" && store.jobs.job(id: "ok") == done)
        #expect(done.lastUpdatedTime == clock.milliseconds())
        let failed = JobRun(backend: store).run(job("bad")) { _ in throw StoreError.serviceNotFound("gone") }
        #expect(try failed.status == .failed && failed.error?.code == 404 && store.jobs.job(id: "bad") == failed)
    }
}
