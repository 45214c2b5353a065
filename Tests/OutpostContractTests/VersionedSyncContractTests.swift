import OutpostGeometry
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// A replica of a versioned service at store level (docs/sync-semantics.md, Versioned data):
/// it syncs through a version of its own, and its updates are reconciled field by field
/// against the feature as the replica last saw it.
@Suite struct VersionedSyncContractTests {
    @Test(arguments: ContractBackend.all)
    func aReplicasUpdatesMergeFieldByFieldAgainstWhatItSawAndTheMergedRowsComeBack(_ backend: ContractBackend) throws {
        let (store, clock) = try backend.fresh()
        var definition = pointLayerService(name: "Parcels")
        definition.isVersioned = true
        definition.layers[0].fields.append(FieldDefinition(name: "owner", type: .string, length: 20))
        _ = try store.schema.createService(definition)
        let (contested, moved) = (GlobalID.make(), GlobalID.make())
        func feature(_ id: String, _ attributes: JSONObject, x: Double? = nil) -> EditFeature {
            var all = attributes
            all["GlobalID"] = .string(id)
            return EditFeature(attributes: all, geometry: x.map { ["x": .double($0), "y": .double($0)] })
        }
        func edit(_ edits: LayerEdits) throws {
            let outcome = try store.edits.applyEdits(service: "Parcels", edits: [edits], options: EditOptions(useGlobalIds: true))
            #expect(outcome.layers.allSatisfy { $0.all.allSatisfy(\.success) })
        }
        try edit(
            LayerEdits(
                layerId: 0,
                adds: [
                    feature(contested, ["label": "a", "value": 1, "owner": "x"], x: 1),
                    feature(moved, ["label": "q", "value": 5, "owner": "y"], x: 1),
                ]))

        let request = try CreateReplicaRequest.parse(
            RequestParameters([("layers", "0"), ("replicaName", "surveyor"), ("syncModel", "perReplica")]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.service(named: "Parcels").definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: clock.milliseconds())
        let (exported, _) = try store.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        let replica = try store.replicas.registerReplica(exported)
        // The replica syncs through a version of its own, a child of DEFAULT.
        let versions = try store.versions.versions(service: "Parcels")
        #expect(versions.map(\.name) == [DataVersion.defaultName, "outpost.surveyor_\(replica.id.filter(\.isHexDigit).prefix(8).lowercased())"])
        #expect(versions.last?.replicaId == replica.id && versions.last?.parent == DataVersion.defaultName)

        // Meanwhile DEFAULT changes `value` and `owner` of one feature and moves the other.
        try edit(LayerEdits(layerId: 0, updates: [feature(contested, ["value": 2, "owner": "default"]), feature(moved, [:], x: 3)]))
        // The replica sends whole rows: `value` and the geometry as it saw them.
        let upload = LayerEdits(
            layerId: 0,
            updates: [
                feature(contested, ["label": "b", "value": 1, "owner": "replica"], x: 1),
                feature(moved, ["label": "r", "value": 5, "owner": "y"], x: 1),
            ])
        let sync = try SyncPlanner.plan(
            try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id), ("syncDirection", "bidirectional")])),
            replica: replica, edits: [upload])
        let outcome = try store.sync.applySyncUpload(sync, fingerprint: [7])
        #expect(outcome.results[0].updateResults.allSatisfy { $0.success })
        // Only `owner` was changed on both sides: one conflict, the replica's value wins.
        #expect(outcome.conflictsRecorded == 1)

        var query = LayerQuery()
        query.outFields = ["GlobalID", "label", "value", "owner"]
        query.returnGeometry = true
        guard case .features(let page) = try store.features.query(query, service: "Parcels", layer: 0) else {
            Issue.record("no features")
            return
        }
        let rows = Dictionary(
            uniqueKeysWithValues: page.features.map { feature in
                let values = Dictionary(uniqueKeysWithValues: zip(page.fields.map(\.name), feature.attributes))
                return (values["GlobalID"]?.stringValue ?? "", (values, feature.geometry))
            })
        #expect(rows[contested]?.0["label"] == "b" && rows[contested]?.0["value"] == 2 && rows[contested]?.0["owner"] == "replica")
        #expect(rows[moved]?.0["label"] == "r")
        #expect(rows[moved]?.1 == .point(Point(x: 3, y: 3)), "DEFAULT's move holds: the replica did not change the geometry")

        let conflicts = try store.conflicts.conflicts(service: "Parcels", replicaId: replica.id)
        #expect(conflicts.count == 1 && conflicts.first?.globalId == contested, "\(conflicts)")
        #expect(conflicts.first?.fields == [["field": "owner", "base": "x", "default": "default", "replica": "replica"]])
        #expect(conflicts.first?.feature?["attributes"]?["owner"] == "default", "the overwritten row is kept")

        // Both merged rows hold values the replica has not seen: they come back to it.
        let (answer, _) = try Contract.answer(store, sync, upload: outcome)
        #expect(Contract.changes(answer).updates == [contested, moved], "\(answer)")

        #expect(try store.replicas.unregisterReplica(service: "Parcels", id: replica.id))
        #expect(try store.versions.versions(service: "Parcels").map(\.name) == [DataVersion.defaultName])
    }
}
