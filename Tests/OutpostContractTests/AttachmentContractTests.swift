import Foundation
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The attachment half of the store contract (docs/sync-semantics.md "Attachments",
/// docs/postgres.md): the same edits give the same answers on every backend, bytes live in
/// the data folder and nothing is left behind by a failed, replaced or deleted attachment.
@Suite struct AttachmentContractTests {
    static let service = "Notes"

    /// A backend holding `Notes`: one point layer with attachments.
    static func fresh(_ backend: ContractBackend) throws -> any OutpostBackend {
        let (store, _) = try backend.fresh()
        var service = pointLayerService(name: service)
        service.layers[0].hasAttachments = true
        _ = try store.schema.createService(service)
        return store
    }

    static func addPoint(_ store: some OutpostBackend, _ label: String) throws -> (objectId: Int64, globalId: String) {
        let outcome = try store.edits.applyEdits(
            service: service, edits: [LayerEdits(layerId: 0, adds: [Contract.point(label)])], options: EditOptions())
        let result = outcome.layers[0].addResults[0]
        return (try #require(result.objectId), try #require(result.globalId))
    }

    /// A file the store takes over, as the server spools a request part.
    static func spooled(_ text: String) throws -> AttachmentInput {
        let path = TestFolders.file("spooled-\(UUID().uuidString)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return AttachmentInput(name: "../note.txt", contentType: "text/plain", keywords: "field", sourcePath: path, size: text.utf8.count)
    }

    static func text(_ store: some OutpostBackend, objectId: Int64, attachmentId: Int64) throws -> String? {
        let layer = try store.service(named: service).layers[0]
        guard let found = try store.features.attachmentContent(layer: layer, objectId: objectId, attachmentId: attachmentId) else { return nil }
        switch found.content {
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .file(let path): return try String(contentsOfFile: path, encoding: .utf8)
        }
    }

    /// The files under the data folder's `attachments/`.
    static func attachmentFiles(_ store: some OutpostBackend) -> Set<String> {
        let folder = (store.directory as NSString).appendingPathComponent("attachments")
        return Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    @Test(arguments: ContractBackend.all)
    func attachmentsAreAddedReplacedAndDeletedWithTheirFiles(_ backend: ContractBackend) throws {
        let store = try Self.fresh(backend)
        let city = try Self.addPoint(store, "a")
        let baseline = Self.attachmentFiles(store)
        let added = try store.edits.addAttachment(service: Self.service, layer: 0, parentObjectId: city.objectId, input: try Self.spooled("first"))
        let id = try #require(added.objectId, "\(added)")
        #expect(added.success)
        let layer = try store.service(named: Self.service).layers[0]
        let infos = try store.features.attachmentInfos(layer: layer, objectIds: [city.objectId])
        #expect(infos.first?.attachments.map(\.name) == ["note.txt"], "the name is sanitized")
        #expect(infos.first?.attachments.first?.size == 5)
        #expect(infos.first?.attachments.first?.keywords == "field")
        #expect(try Self.text(store, objectId: city.objectId, attachmentId: id) == "first")
        #expect(Self.attachmentFiles(store).count == baseline.count + 1)

        let updated = try store.edits.updateAttachment(
            service: Self.service, layer: 0, parentObjectId: city.objectId, attachmentId: id, input: try Self.spooled("second!"))
        #expect(updated.success && updated.objectId == id)
        #expect(try Self.text(store, objectId: city.objectId, attachmentId: id) == "second!")
        #expect(Self.attachmentFiles(store).count == baseline.count + 1, "the replaced file is gone")

        // Not this feature's attachment, a missing parent, a layer without attachments: refused, nothing kept.
        let other = try Self.addPoint(store, "b")
        #expect(try Self.text(store, objectId: other.objectId, attachmentId: id) == nil)
        let wrong = try store.edits.deleteAttachments(
            service: Self.service, layer: 0, parentObjectId: other.objectId, attachmentIds: [id], rollbackOnFailure: true)
        #expect(wrong.map(\.error?.code) == [1019])
        let orphan = try store.edits.addAttachment(service: Self.service, layer: 0, parentObjectId: 9_999, input: try Self.spooled("x"))
        #expect(orphan.error?.code == 1019)
        #expect(throws: ArcGISError.self) {
            try store.edits.addAttachment(service: Contract.service, layer: 0, parentObjectId: 1, input: try Self.spooled("x"))
        }
        #expect(Self.attachmentFiles(store).count == baseline.count + 1, "no file left by a refused edit")

        let deleted = try store.edits.deleteAttachments(
            service: Self.service, layer: 0, parentObjectId: city.objectId, attachmentIds: [id, 12_345], rollbackOnFailure: false)
        #expect(deleted.map(\.success) == [true, false])
        #expect(try store.features.attachmentInfos(layer: layer, objectIds: [city.objectId]).first?.attachments.isEmpty == true)
        #expect(Self.attachmentFiles(store) == baseline)
    }

    @Test(arguments: ContractBackend.all)
    func applyEditsTakesInlineBytesAndRollsBackWithoutLeavingFiles(_ backend: ContractBackend) throws {
        let store = try Self.fresh(backend)
        let city = try Self.addPoint(store, "a")
        let baseline = Self.attachmentFiles(store)
        let note = GlobalID.make()
        func edits(_ attachments: AttachmentEdits, adds: [EditFeature] = []) -> [LayerEdits] {
            [LayerEdits(layerId: 0, adds: adds, attachments: attachments)]
        }
        // One good add beside one naming no parent, all or nothing: nothing is written.
        let refused = try store.edits.applyEdits(
            service: Self.service,
            edits: edits(
                AttachmentEdits(adds: [
                    AttachmentEdit(
                        globalId: note, parentGlobalId: city.globalId, name: "a.txt", contentType: "text/plain", source: .data(Array("hi".utf8))),
                    AttachmentEdit(globalId: GlobalID.make(), parentGlobalId: GlobalID.make(), name: "b.txt", contentType: nil, source: .data([1])),
                ])), options: EditOptions(rollbackOnFailure: true, useGlobalIds: true))
        #expect(refused.layers[0].attachmentResults?.adds.map(\.error?.code) == [1003, 1019])
        #expect(Self.attachmentFiles(store) == baseline)
        // A feature and its attachment in one request.
        let feature = GlobalID.make()
        let outcome = try store.edits.applyEdits(
            service: Self.service,
            edits: edits(
                AttachmentEdits(adds: [
                    AttachmentEdit(globalId: note, parentGlobalId: feature, name: "a.txt", contentType: "text/plain", source: .data(Array("hi".utf8)))
                ]),
                adds: [Contract.point("c", globalId: feature)]),
            options: EditOptions(rollbackOnFailure: true, useGlobalIds: true))
        let added = try #require(outcome.layers[0].attachmentResults?.adds.first)
        #expect(added.success && added.globalId == note, "\(outcome)")
        let parent = try #require(outcome.layers[0].addResults.first?.objectId)
        #expect(try Self.text(store, objectId: parent, attachmentId: try #require(added.objectId)) == "hi")
        // The same GlobalID again is a duplicate; deleting the feature takes its attachment and its file.
        let again = try store.edits.applyEdits(
            service: Self.service,
            edits: edits(
                AttachmentEdits(adds: [AttachmentEdit(globalId: note, parentGlobalId: feature, name: nil, contentType: nil, source: .data([2]))])),
            options: EditOptions(rollbackOnFailure: false, useGlobalIds: true))
        #expect(again.layers[0].attachmentResults?.adds.first?.success == false)
        _ = try store.edits.applyEdits(
            service: Self.service, edits: [LayerEdits(layerId: 0, deletes: [.globalId(feature)])], options: EditOptions(useGlobalIds: true))
        #expect(Self.attachmentFiles(store) == baseline)
    }

    /// A replica of `Notes` syncing attachments both ways, registered.
    static func replica(_ store: some OutpostBackend, name: String = "device") throws -> ReplicaDefinition {
        let request = try CreateReplicaRequest.parse(
            RequestParameters([
                ("layers", "0"), ("replicaName", name), ("returnAttachments", "true"), ("attachmentsSyncDirection", "bidirectional"),
            ]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.service(named: service).definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: store.clock.milliseconds())
        let (definition, _) = try store.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        return try store.replicas.registerReplica(definition)
    }

    /// Uploads `edits` (if any) and answers the sync; the replica then holds what it was sent.
    static func sync(
        _ store: some OutpostBackend, _ replica: inout ReplicaDefinition, _ edits: AttachmentEdits? = nil, fingerprint: String = UUID().uuidString
    ) throws -> (JSONValue, SyncUploadOutcome?) {
        try sync(store, &replica, layerEdits: edits.map { LayerEdits(layerId: 0, attachments: $0) }, fingerprint: fingerprint)
    }

    /// The same with feature edits beside the attachment edits.
    static func sync(
        _ store: some OutpostBackend, _ replica: inout ReplicaDefinition, layerEdits edits: LayerEdits?, fingerprint: String = UUID().uuidString
    ) throws -> (JSONValue, SyncUploadOutcome?) {
        let request = try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)]))
        let plan = try SyncPlanner.plan(request, replica: replica, edits: edits.map { [$0] })
        let upload = try edits.map { _ in try store.sync.applySyncUpload(plan, fingerprint: Array(fingerprint.utf8)) }
        var bytes: [UInt8] = []
        let summary = try store.sync.writeSyncAnswer(plan, upload: upload, write: { bytes += $0 }, attachmentURL: nil)
        try store.sync.recordSync(plan, generations: summary.generations, close: false)
        replica = try #require(try store.replicas.replica(service: service, id: replica.id))
        return (try JSONParser.parse(String(decoding: bytes, as: UTF8.self)), upload)
    }

    static func attachmentChanges(_ answer: JSONValue) -> (adds: [String], updates: [String], deletes: [String]) {
        let part = answer["edits"]?[0]?["attachments"]
        func ids(_ key: String) -> [String] { part?[key]?.arrayValue?.compactMap { $0["globalId"]?.stringValue } ?? [] }
        return (ids("adds"), ids("updates"), part?["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    @Test(arguments: ContractBackend.all)
    func attachmentsTravelBothWaysWithTheirFeatures(_ backend: ContractBackend) throws {
        let store = try Self.fresh(backend)
        let city = try Self.addPoint(store, "a")
        var replica = try Self.replica(store)
        // Online: a note added reaches the device as an add, with its bytes.
        let online = try store.edits.addAttachment(service: Self.service, layer: 0, parentObjectId: city.objectId, input: try Self.spooled("online"))
        let (first, _) = try Self.sync(store, &replica)
        #expect(Self.attachmentChanges(first).adds == [try #require(online.globalId)], "\(first)")
        #expect(first["edits"]?[0]?["attachments"]?["adds"]?[0]?["data"]?.stringValue == Data("online".utf8).base64EncodedString())
        // From the device: an add, then the same upload again, which applies nothing twice.
        let photo = GlobalID.make()
        let upload = AttachmentEdits(adds: [
            AttachmentEdit(globalId: photo, parentGlobalId: city.globalId, name: "photo.jpg", contentType: "image/jpeg", source: .data([0xFF, 0xD8]))
        ])
        let (second, applied) = try Self.sync(store, &replica, upload, fingerprint: "photo")
        #expect(applied?.results.first?.attachmentResults?.adds.first?.success == true, "\(String(describing: applied))")
        #expect(Self.attachmentChanges(second).adds.isEmpty, "the device's own add is not sent back")
        let retried = try store.sync.applySyncUpload(
            try SyncPlanner.plan(
                try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replica.id)])), replica: replica,
                edits: [LayerEdits(layerId: 0, attachments: upload)]), fingerprint: Array("photo".utf8))
        #expect(retried.replayed)
        let layer = try store.service(named: Self.service).layers[0]
        #expect(try store.features.attachmentInfos(layer: layer, objectIds: [city.objectId]).first?.attachments.count == 2)
        // Online, the feature is deleted: the device is sent the feature's delete and both attachments'.
        _ = try store.edits.applyEdits(
            service: Self.service, edits: [LayerEdits(layerId: 0, deletes: [.objectId(city.objectId)])], options: EditOptions())
        let (third, _) = try Self.sync(store, &replica)
        #expect(Set(Self.attachmentChanges(third).deletes) == [online.globalId!, photo], "\(third)")
        #expect(Self.attachmentFiles(store).isEmpty)
        // A device deleting an attachment already gone succeeds (deleted on both sides).
        let (_, gone) = try Self.sync(store, &replica, AttachmentEdits(deletes: [photo]))
        #expect(gone?.results.first?.attachmentResults?.deletes.first?.success == true)
    }

    /// A device adding an attachment again after the server deleted it re-creates the same
    /// record: a replica that had it receives an update, not an add, and no delete. One upload
    /// carries a new feature and its attachment (on PostgreSQL the feature's insert is held for
    /// the pipeline, and must be sent before the attachment looks for its parent).
    @Test(arguments: ContractBackend.all)
    func aReAddedAttachmentIsTheSameRecordAndASyncCarriesAFeatureWithItsAttachment(_ backend: ContractBackend) throws {
        let store = try Self.fresh(backend)
        let city = try Self.addPoint(store, "a")
        let kept = try store.edits.addAttachment(service: Self.service, layer: 0, parentObjectId: city.objectId, input: try Self.spooled("kept"))
        let keptId = try #require(kept.globalId)
        var device = try Self.replica(store, name: "device")
        var other = try Self.replica(store, name: "other")
        let removed = try store.edits.deleteAttachments(
            service: Self.service, layer: 0, parentObjectId: city.objectId, attachmentIds: [try #require(kept.objectId)], rollbackOnFailure: true)
        #expect(removed.first?.success == true)
        let (feature, photo) = (GlobalID.make(), GlobalID.make())
        let upload = LayerEdits(
            layerId: 0, adds: [Contract.point("new", globalId: feature)],
            attachments: AttachmentEdits(adds: [
                AttachmentEdit(
                    globalId: keptId, parentGlobalId: city.globalId, name: "kept.txt", contentType: "text/plain", source: .data(Array("again".utf8))),
                AttachmentEdit(globalId: photo, parentGlobalId: feature, name: "photo.jpg", contentType: "image/jpeg", source: .data([0xFF, 0xD8])),
            ]))
        let (_, applied) = try Self.sync(store, &device, layerEdits: upload)
        let results = try #require(applied?.results.first)
        #expect(results.addResults.map(\.success) == [true] && results.attachmentResults?.adds.map(\.success) == [true, true], "\(results)")
        let (answer, _) = try Self.sync(store, &other)
        let changes = Self.attachmentChanges(answer)
        #expect(changes.updates == [keptId] && changes.adds == [photo] && changes.deletes.isEmpty, "\(changes)")
    }

    @Test(arguments: ContractBackend.all)
    func aGeoPackageReplicaCarriesTheAttachmentsOfItsFeatures(_ backend: ContractBackend) throws {
        let store = try Self.fresh(backend)
        let city = try Self.addPoint(store, "a")
        _ = try store.edits.addAttachment(service: Self.service, layer: 0, parentObjectId: city.objectId, input: try Self.spooled("packed"))
        let request = try CreateReplicaRequest.parse(
            RequestParameters([("layers", "0"), ("replicaName", "gpkg"), ("returnAttachments", "true"), ("dataFormat", "sqlite")]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.service(named: Self.service).definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: store.clock.milliseconds())
        let path = TestFolders.file("notes-\(UUID().uuidString).gpkg")
        let (_, counts) = try store.sync.exportReplica(
            plan, to: .geoPackage(path: path), serviceURL: "", serviceJSON: .null, layerJSON: [:], phase: { _ in })
        #expect(counts.features == 1 && counts.attachments == 1)
        let names = try ReplicaFileReading.attachments(path)
        #expect(names.map(\.name) == ["note.txt"] && names.map(\.data) == [Data("packed".utf8)])
    }
}
