import Foundation
import OutpostMigration
import OutpostPostgres
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// `outpost migrate-to-postgres` (docs/postgres.md, "Moving a data folder"): registered devices
/// go on syncing without noticing — each is sent exactly what it would have been sent by the
/// SpatiaLite store, and what is edited after the move.
@Suite(.serialized) struct SpatiaLiteToPostgresTests {
    static func point(_ label: String, _ id: String) -> EditFeature {
        EditFeature(attributes: ["label": .string(label), "GlobalID": .string(id)], geometry: ["x": .double(3), "y": .double(4)])
    }

    static func edit(_ backend: some SyncBackend, _ edits: LayerEdits) throws {
        let outcome = try backend.edits.applyEdits(service: "Points", edits: [edits], options: EditOptions(useGlobalIds: true))
        #expect(outcome.layers[0].all.allSatisfy { $0.success })
    }

    static func createReplica(_ backend: some SyncBackend, name: String) throws -> ReplicaDefinition {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", name)]))
        let plan = try ReplicaPlanner.plan(
            request, service: try backend.schema.service(named: "Points").definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: backend.clock.milliseconds())
        let (definition, _) = try backend.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        return try backend.replicas.registerReplica(definition)
    }

    /// What a download would send the replica now: its adds, updates (with labels) and deletes.
    static func changes(_ backend: some SyncBackend, replica id: String) throws -> [String] {
        let replica = try #require(try backend.replicas.replica(service: "Points", id: id))
        let plan = try SyncPlanner.plan(try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", id)])), replica: replica, edits: nil)
        var bytes: [UInt8] = []
        _ = try backend.sync.writeSyncAnswer(plan, upload: nil, write: { bytes += $0 }, attachmentURL: nil)
        let layer = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))["edits"]?.arrayValue?.first
        var lines: [String] = []
        for key in ["adds", "updates"] {
            for feature in layer?["features"]?[key]?.arrayValue ?? [] {
                lines.append("\(key) \(feature["attributes"]?["GlobalID"]?.stringValue ?? "?") \(feature["attributes"]?["label"]?.stringValue ?? "")")
            }
        }
        lines += (layer?["features"]?["deleteIds"]?.arrayValue ?? []).map { "delete \($0.stringValue ?? "?")" }
        return lines.sorted()
    }

    @Test func registeredDevicesAreSentWhatSpatiaLiteWouldHaveSentThem() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "Points"))
        let ids = (0..<6).map { _ in GlobalID.make() }
        try Self.edit(store, LayerEdits(layerId: 0, adds: [Self.point("a", ids[0]), Self.point("b", ids[1]), Self.point("c", ids[2])]))
        let early = try Self.createReplica(store, name: "early")
        try Self.edit(store, LayerEdits(layerId: 0, updates: [Self.point("a2", ids[0])]))
        try Self.edit(store, LayerEdits(layerId: 0, adds: [Self.point("d", ids[3])], deletes: [.globalId(ids[1])]))
        let middle = try Self.createReplica(store, name: "middle")
        try Self.edit(store, LayerEdits(layerId: 0, updates: [Self.point("c2", ids[2])], deletes: [.globalId(ids[3])]))
        let current = try Self.createReplica(store, name: "current")
        let expected = try [early, middle, current].map { try Self.changes(store, replica: $0.id) }
        #expect(expected[0].count == 3 && expected[1].count == 2 && expected[2].isEmpty, "\(expected)")

        let backend = try TestPostgres.makeBackend()
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        #expect(report.services == 1 && report.replicas == 3 && report.buckets == 3 && report.features == 2 && report.tombstones == 2)
        #expect(report.versions == 0, "\(report)")
        for (replica, sent) in zip([early, middle, current], expected) {
            let moved = try Self.changes(backend, replica: replica.id)
            #expect(moved == sent, "\(replica.name)")
        }
        // After the move: ObjectIDs continue, and every device hears of the new edit.
        let added = try backend.edits.applyEdits(
            service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point("e", ids[4])])], options: EditOptions())
        #expect((added.layers[0].addResults.first?.objectId ?? 0) > 4)
        for replica in [early, middle, current] {
            #expect(try Self.changes(backend, replica: replica.id).contains("adds \(ids[4]) e"))
        }
        #expect(throws: SpatiaLiteToPostgres.Failure.self) { try SpatiaLiteToPostgres.migrate(store, to: backend) }
    }

    /// A device's view of layer 0's attachments in a download: "add <gid> <bytes>", "delete <gid>".
    static func attachmentChanges(_ backend: some SyncBackend, service: String, replica id: String) throws -> [String] {
        let replica = try #require(try backend.replicas.replica(service: service, id: id))
        let plan = try SyncPlanner.plan(try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", id)])), replica: replica, edits: nil)
        var bytes: [UInt8] = []
        _ = try backend.sync.writeSyncAnswer(plan, upload: nil, write: { bytes += $0 }, attachmentURL: nil)
        let part = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))["edits"]?[0]?["attachments"]
        var lines = (part?["adds"]?.arrayValue ?? []).map { "add \($0["globalId"]?.stringValue ?? "?") \($0["data"]?.stringValue ?? "")" }
        lines += (part?["updates"]?.arrayValue ?? []).map { "update \($0["globalId"]?.stringValue ?? "?") \($0["data"]?.stringValue ?? "")" }
        lines += (part?["deleteIds"]?.arrayValue ?? []).map { "delete \($0.stringValue ?? "?")" }
        return lines.sorted()
    }

    @Test func attachmentsMoveWithTheirFilesAndDevicesAreSentWhatSpatiaLiteWouldHaveSent() throws {
        let store = try makeTemporaryStore()
        var service = pointLayerService(name: "Notes")
        service.layers[0].hasAttachments = true
        try store.schema.createService(service)
        let (a, b) = (GlobalID.make(), GlobalID.make())
        let notes = (0..<3).map { _ in GlobalID.make() }
        func note(_ id: String, on parent: String, _ text: String) -> AttachmentEdit {
            AttachmentEdit(globalId: id, parentGlobalId: parent, name: "\(text).txt", contentType: "text/plain", source: .data(Array(text.utf8)))
        }
        func edit(_ edits: LayerEdits) throws {
            let outcome = try store.edits.applyEdits(service: "Notes", edits: [edits], options: EditOptions(useGlobalIds: true))
            #expect(outcome.layers[0].all.allSatisfy { $0.success }, "\(outcome)")
        }
        try edit(
            LayerEdits(
                layerId: 0, adds: [Self.point("a", a), Self.point("b", b)], attachments: AttachmentEdits(adds: [note(notes[0], on: a, "one")])))
        let request = try CreateReplicaRequest.parse(
            RequestParameters([
                ("layers", "0"), ("replicaName", "device"), ("returnAttachments", "true"), ("attachmentsSyncDirection", "bidirectional"),
            ]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.schema.service(named: "Notes").definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: store.clock.milliseconds())
        let (exported, _) = try store.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        let replica = try store.replicas.registerReplica(exported)
        // After the device's copy: one note added, one replaced, the first deleted.
        try edit(LayerEdits(layerId: 0, attachments: AttachmentEdits(adds: [note(notes[1], on: b, "two"), note(notes[2], on: a, "three")])))
        try edit(LayerEdits(layerId: 0, attachments: AttachmentEdits(updates: [note(notes[1], on: b, "two, again")], deletes: [notes[0]])))
        let expected = try Self.attachmentChanges(store, service: "Notes", replica: replica.id)
        #expect(expected.count == 3, "\(expected)")

        let backend = try TestPostgres.makeBackend(dataDirectory: store.directory)
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        #expect(report.attachments == 2 && report.tombstones == 1, "\(report)")
        #expect(try Self.attachmentChanges(backend, service: "Notes", replica: replica.id) == expected)
        // The files are read in place, and new attachment ids continue after SQLite's.
        let layer = try backend.schema.service(named: "Notes").layers[0]
        let parents = try backend.features.attachmentInfos(layer: layer, objectIds: [1, 2])
        #expect(parents.flatMap(\.attachments).map(\.name).sorted() == ["three.txt", "two, again.txt"])
        let added = try backend.edits.applyEdits(
            service: "Notes", edits: [LayerEdits(layerId: 0, attachments: AttachmentEdits(adds: [note(GlobalID.make(), on: a, "four")]))],
            options: EditOptions(useGlobalIds: true))
        #expect((added.layers[0].attachmentResults?.adds.first?.objectId ?? 0) > 3, "\(added)")
    }
}
