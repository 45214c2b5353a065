import OutpostPostgres
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The bulk path of a sync upload on PostgreSQL (docs/postgres.md, "Sync"): records read up
/// front and writes sent in pipelines, and what happens when the database refuses one.
@Suite struct PostgresUploadTests {
    static func point(_ label: String, _ globalId: String, wkid: Int = 4326) -> EditFeature {
        EditFeature(
            attributes: ["label": .string(label), "GlobalID": .string(globalId)],
            geometry: ["x": .double(3), "y": .double(4), "spatialReference": ["wkid": .int(Int64(wkid))]])
    }

    static func edit(_ backend: PostgresBackend, _ edits: LayerEdits) throws {
        let outcome = try backend.edits.applyEdits(service: "Points", edits: [edits], options: EditOptions(useGlobalIds: true))
        #expect(outcome.layers[0].all.allSatisfy { $0.success })
    }

    /// The GlobalIDs a download now would send `replica` as deletes.
    static func deletesSent(_ backend: PostgresBackend, to replica: ReplicaDefinition) throws -> [String] {
        let current = try #require(try backend.replicas.replica(service: "Points", id: replica.id))
        let plan = try SyncPlanner.plan(
            try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)])), replica: current, edits: nil)
        var bytes: [UInt8] = []
        _ = try backend.sync.writeSyncAnswer(plan, upload: nil, write: { bytes += $0 }, attachmentURL: nil)
        let layer = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))["edits"]?.arrayValue?.first
        return layer?["features"]?["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func replica(_ backend: PostgresBackend, name: String = "device") throws -> ReplicaDefinition {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", name)]))
        let plan = try ReplicaPlanner.plan(
            request, service: try backend.service(named: "Points").definition, replicaId: GlobalID.make(), owner: "", takenNames: [],
            now: backend.clock.milliseconds())
        let (definition, _) = try backend.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        return try backend.replicas.registerReplica(definition)
    }

    static func upload(
        _ backend: PostgresBackend, _ replica: ReplicaDefinition, _ edits: LayerEdits, rollback: Bool = false
    ) throws
        -> SyncUploadOutcome
    {
        var parameters = [("replicaID", replica.id)]
        if rollback { parameters.append(("rollbackOnFailure", "true")) }
        let plan = try SyncPlanner.plan(try SynchronizeReplicaRequest.parse(RequestParameters(parameters)), replica: replica, edits: [edits])
        return try backend.sync.applySyncUpload(plan, fingerprint: Credentials.randomBytes(8))
    }

    @Test func aWriteTheDatabaseRefusesFailsAloneAndTheOthersCommit() throws {
        let backend = try TestPostgres.makeBackend()
        _ = try backend.schema.createService(pointLayerService(name: "Points"))
        let replica = try Self.replica(backend)
        // PostGIS cannot project from a spatial reference it does not know: only the INSERT,
        // sent in a pipeline, finds out.
        let ids = (0..<3).map { _ in GlobalID.make() }
        let edits = LayerEdits(layerId: 0, adds: [Self.point("a", ids[0]), Self.point("b", ids[1], wkid: 990_001), Self.point("c", ids[2])])
        let outcome = try Self.upload(backend, replica, edits)
        #expect(outcome.results[0].addResults.map(\.success) == [true, false, true])
        #expect(outcome.generation != nil)
        #expect(try backend.features.count(service: "Points", layer: 0) == 2)
        // With rollbackOnFailure nothing of it stays.
        let again = (0..<2).map { _ in GlobalID.make() }
        let refused = try Self.upload(
            backend, replica, LayerEdits(layerId: 0, adds: [Self.point("d", again[0]), Self.point("e", again[1], wkid: 990_001)]), rollback: true)
        #expect(refused.generation == nil && refused.results[0].addResults.allSatisfy { !$0.success })
        #expect(try backend.features.count(service: "Points", layer: 0) == 2)
    }

    @Test func oneGlobalIDTwiceInAnUploadIsDecidedAgainstWhatTheFirstDid() throws {
        let backend = try TestPostgres.makeBackend()
        _ = try backend.schema.createService(pointLayerService(name: "Points"))
        let replica = try Self.replica(backend)
        let twice = GlobalID.make()
        let gone = GlobalID.make()
        let edits = LayerEdits(
            layerId: 0, adds: [Self.point("first", twice), Self.point("second", twice), Self.point("short-lived", gone)],
            updates: [EditFeature(attributes: ["GlobalID": .string(twice), "label": .string("updated")])], deletes: [.globalId(gone)])
        let outcome = try Self.upload(backend, replica, edits)
        #expect(outcome.results[0].all.allSatisfy { $0.success }, "\(outcome.results)")
        let addIds = outcome.results[0].addResults.map(\.objectId)
        // The second add of the same GlobalID is the one already applied: the same ObjectID.
        #expect(addIds[0] != nil && addIds[0] == addIds[1] && addIds[2] != addIds[0])
        #expect(try backend.features.count(service: "Points", layer: 0) == 1)
        let answer = try backend.features.query(
            try LayerQuery.parse(RequestParameters([("where", "1=1"), ("outFields", "label")])), service: "Points", layer: 0)
        guard case .features(let page) = answer else {
            Issue.record("not features: \(answer)")
            return
        }
        let label = try #require(page.fields.firstIndex { $0.name == "label" })
        #expect(page.features.map { $0.attributes[label].stringValue } == ["updated"])
    }
}
