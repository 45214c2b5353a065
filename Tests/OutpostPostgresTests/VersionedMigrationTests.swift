import OutpostMigration
import OutpostPostgres
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// `outpost migrate-to-postgres` with a versioned service (docs/postgres.md, "Moving a data
/// folder"): the versions keep their names and GUIDs, a named version its unposted rows, and
/// a replica's next update is reconciled against the feature as it saw it before the move.
@Suite struct VersionedMigrationTests {
    static func feature(_ id: String, _ attributes: JSONObject) -> EditFeature {
        var all = attributes
        all["GlobalID"] = .string(id)
        return EditFeature(attributes: all, geometry: ["x": .double(1), "y": .double(1)])
    }

    /// Layer 0's rows by GlobalID (label, value, owner), from DEFAULT or a version.
    static func rows(_ backend: some OutpostBackend, version: String? = nil) throws -> [String: [String: JSONValue]] {
        var query = LayerQuery()
        query.outFields = ["GlobalID", "label", "value", "owner"]
        let answer =
            try version.map { try backend.versions.query(query, service: "Parcels", layer: 0, version: $0) }
            ?? backend.features.query(query, service: "Parcels", layer: 0)
        guard case .features(let page) = answer else { return [:] }
        return Dictionary(
            uniqueKeysWithValues: page.features.map { feature in
                let values = Dictionary(uniqueKeysWithValues: zip(page.fields.map(\.name), feature.attributes))
                return (values["GlobalID"]?.stringValue ?? "", values.filter { ["label", "value", "owner"].contains($0.key) })
            })
    }

    @Test func aVersionedServiceMovesWithItsHistoryAndVersionsAndItsReplicaMergesAsBefore() throws {
        let store = try makeTemporaryStore()
        var definition = pointLayerService(name: "Parcels")
        definition.isVersioned = true
        definition.layers[0].fields.append(FieldDefinition(name: "owner", type: .string, length: 20))
        try store.schema.createService(definition)
        let (contested, added) = (GlobalID.make(), GlobalID.make())
        func edit(_ edits: LayerEdits) throws {
            let outcome = try store.edits.applyEdits(service: "Parcels", edits: [edits], options: EditOptions(useGlobalIds: true))
            #expect(outcome.layers[0].all.allSatisfy { $0.success })
        }
        try edit(LayerEdits(layerId: 0, adds: [Self.feature(contested, ["label": "a", "value": 1, "owner": "x"])]))
        let request = try CreateReplicaRequest.parse(
            RequestParameters([("layers", "0"), ("replicaName", "surveyor"), ("syncModel", "perReplica")]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.schema.service(named: "Parcels").definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: store.clock.milliseconds())
        let (exported, _) = try store.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        let replica = try store.replicas.registerReplica(exported)
        // After the replica's generation DEFAULT changes `value` and `owner` (the history keeps
        // the row the replica saw); then a named version changes `label` and adds a feature.
        try edit(LayerEdits(layerId: 0, updates: [Self.feature(contested, ["value": 2, "owner": "default"])]))
        let version = try store.versions.createVersion(service: "Parcels", name: "survey", description: "a survey", access: "public")
        let versionEdits = try store.versions.applyVersionEdits(
            service: "Parcels", version: version.name,
            edits: [LayerEdits(layerId: 0, adds: [Self.feature(added, ["label": "new"])], updates: [Self.feature(contested, ["label": "survey"])])],
            options: EditOptions(useGlobalIds: true), context: EditContext())
        #expect(versionEdits.layers[0].all.allSatisfy { $0.success })
        let before = try store.versions.versions(service: "Parcels")
        let seenBefore = try Self.rows(store, version: version.name)

        let backend = try TestPostgres.makeBackend()
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        #expect(report.versions == 3 && report.versionRows == 2 && report.historyRows == 1, "\(report)")
        let after = try backend.versions.versions(service: "Parcels")
        #expect(
            after.map { [$0.name, $0.guid, $0.parent, $0.replicaId, $0.description] }
                == before.map { [$0.name, $0.guid, $0.parent, $0.replicaId, $0.description] })
        #expect(try Self.rows(backend, version: version.name) == seenBefore)

        // The replica sends its whole row: `value` as it saw it merges, `owner` conflicts.
        let moved = try #require(try backend.replicas.replica(service: "Parcels", id: replica.id))
        let sync = try SyncPlanner.plan(
            try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)])), replica: moved,
            edits: [LayerEdits(layerId: 0, updates: [Self.feature(contested, ["label": "b", "value": 1, "owner": "replica"])])])
        let outcome = try backend.sync.applySyncUpload(sync, fingerprint: [1])
        #expect(outcome.conflictsRecorded == 1)
        #expect(try Self.rows(backend)[contested] == ["label": "b", "value": 2, "owner": "replica"])
        // The named version posts against its base: `label` changed by the replica since is a conflict it wins.
        let post = try backend.versions.reconcileAndPost(service: "Parcels", version: version.name)
        #expect(post.posted == 2 && post.conflicts == 1, "\(post)")
        #expect(try Self.rows(backend)[contested]?["label"] == "survey" && Self.rows(backend)[added]?["label"] == "new")
    }
}
