import OutpostWire
import Testing

@testable import OutpostSync

private let replicaId = "{AAAAAAAA-0000-4000-8000-000000000001}"

private func replica(
    _ model: SyncModel, direction: SyncDirection = .bidirectional,
    attachments: AttachmentsSyncDirection = .none
) -> ReplicaDefinition {
    ReplicaDefinition(
        id: replicaId, name: "r", serviceName: "Demo", syncModel: model, syncDirection: direction,
        attachmentsSyncDirection: attachments, returnAttachments: attachments == .bidirectional,
        layers: [ReplicaLayer(layerId: 0, serverGen: 7), ReplicaLayer(layerId: 2, serverGen: 9)], replicaServerGen: 7)
}

private func request(_ pairs: [(String, String)]) throws -> SynchronizeReplicaRequest {
    try SynchronizeReplicaRequest.parse(RequestParameters([("replicaID", replicaId)] + pairs))
}

private func plan(_ pairs: [(String, String)], _ definition: ReplicaDefinition) throws -> SyncPlan {
    let parsed = try request(pairs)
    var edits: [LayerEdits]?
    if case .inline(let inline, _)? = parsed.upload { edits = inline }
    return try SyncPlanner.plan(parsed, replica: definition, edits: edits)
}

private func rejects(_ pairs: [(String, String)], _ definition: ReplicaDefinition, parameter: String) {
    #expect {
        try plan(pairs, definition)
    } throws: { error in
        (error as? ArcGISError)?.details.first?.contains(parameter) == true || (error as? ArcGISError)?.message.contains(parameter) == true
    }
}

@Suite struct SyncPlannerTests {
    @Test func perLayerListsLayersWithTheirOwnGenerationAndDirection() throws {
        let p = try plan(
            [
                ("syncLayers", #"[{"id":2,"serverGen":5,"syncDirection":"download"},{"id":0,"serverGen":6}]"#),
                ("syncDirection", "upload"),
            ], replica(.perLayer))
        #expect(p.layers == [SyncLayerPlan(layerId: 2, direction: .download, since: 5), SyncLayerPlan(layerId: 0, direction: .upload, since: 6)])
        #expect(p.answeredGenerations(current: 20) == [2: 20, 0: 6])
    }

    @Test func thePythonClientsPerReplicaStringSyncsEveryLayer() throws {
        // On a per-layer replica: every layer from its registered generation (or replicaServerGen).
        let p = try plan([("syncLayers", "perReplica"), ("syncDirection", "snapshot")], replica(.perLayer))
        #expect(p.layers.map(\.since) == [7, 9] && p.layers.allSatisfy { $0.direction == .snapshot })
        let q = try plan([("syncLayers", "perReplica"), ("replicaServerGen", "4")], replica(.perLayer))
        #expect(q.layers.map(\.since) == [4, 4] && q.layers.allSatisfy { $0.direction == .bidirectional })
        // On a per-replica replica syncLayers is ignored whatever it holds.
        let r = try plan([("syncLayers", "anything at all"), ("replicaServerGen", "3")], replica(.perReplica))
        #expect(r.layers.map(\.since) == [3, 3])
    }

    @Test func requestsThatCannotBeCarriedOutNameTheirParameter() {
        rejects([("syncLayers", "all")], replica(.perLayer), parameter: "syncLayers")
        rejects([("syncLayers", #"[{"id":1,"serverGen":1}]"#)], replica(.perLayer), parameter: "syncLayers")
        rejects([("syncLayers", #"[{"id":0}]"#)], replica(.perLayer), parameter: "syncLayers")
        rejects([("syncLayers", "[]")], replica(.perLayer), parameter: "syncLayers")
        rejects([("edits", #"[{"id":1,"features":{"adds":[]}}]"#)], replica(.perLayer), parameter: "edits")
        rejects(
            [("edits", #"[{"id":0,"features":{"deleteIds":["{CCCCCCCC-0000-4000-8000-000000000003}"]}}]"#)],
            replica(.perLayer, direction: .download), parameter: "download-only")
        rejects([("syncDirection", "download")], replica(.perLayer, direction: .upload), parameter: "upload-only")
        rejects(
            [("edits", #"[{"id":0,"attachments":{"deleteIds":["{CCCCCCCC-0000-4000-8000-000000000003}"]}}]"#)],
            replica(.perLayer), parameter: "attachmentsSyncDirection")
        #expect(throws: ArcGISError.self) { try request([("edits", "[]"), ("editsUploadID", "i1")]) }
        #expect(throws: ArcGISError.self) { try request([("editsUploadID", "i1")]) }
        #expect(throws: ArcGISError.self) { try request([("replicaServerGen", "-1")]) }
        #expect(throws: ArcGISError.self) { try request([("syncLayers", #"[{"id":0},{"id":0}]"#)]) }
    }

    @Test func aReplicaHoldingAGenerationTheServerNeverGaveItIsToldTheServerWasRestored() throws {
        // The registry says layer 0 last got 7 and layer 2 got 9: up to those, any generation is one it was given.
        _ = try plan([("syncLayers", #"[{"id":0,"serverGen":7},{"id":2,"serverGen":9}]"#)], replica(.perLayer))
        for pairs in [
            [("syncLayers", #"[{"id":0,"serverGen":8}]"#)],
            [("syncLayers", #"[{"id":2,"serverGen":12,"syncDirection":"upload"}]"#)],
            [("syncLayers", "perReplica"), ("replicaServerGen", "10")],
        ] {
            #expect {
                try plan(pairs, replica(.perLayer))
            } throws: { error in
                let error = try #require(error as? ArcGISError)
                return error.code == 409 && error.message == ArcGISError.replicaAheadMessage && error.details[0].contains("restored from a backup")
            }
        }
        #expect(throws: ArcGISError.self) { try plan([("replicaServerGen", "8")], replica(.perReplica)) }
        _ = try plan([("replicaServerGen", "7")], replica(.perReplica))
    }

    @Test func theReplicaDirectionBoundsEverySync() throws {
        // An upload-only replica uploads when asked bidirectional; a download-only one downloads.
        let up = try plan([("syncLayers", #"[{"id":0,"serverGen":7}]"#)], replica(.perLayer, direction: .upload))
        #expect(up.layers.first?.direction == .upload)
        let down = try plan([("syncLayers", #"[{"id":0,"serverGen":7}]"#)], replica(.perLayer, direction: .download))
        #expect(down.layers.first?.direction == .download)
        // Edits sent with a download or snapshot sync are ignored (§5.5).
        let ignored = try plan(
            [
                ("syncLayers", #"[{"id":0,"serverGen":7,"syncDirection":"download"}]"#),
                ("edits", #"[{"id":0,"features":{"deleteIds":["{CCCCCCCC-0000-4000-8000-000000000003}"]}}]"#),
            ],
            replica(.perLayer))
        #expect(ignored.layers.first?.edits == nil && ignored.uploadingLayers.isEmpty)
    }

    @Test func syncEditsParseTheSyncShapeAndTheApplyEditsShape() throws {
        let sync = try SynchronizeReplicaRequest.parseEdits(
            try JSONParser.parse(
                #"""
                [{"id":0,"features":{"adds":[{"attributes":{"GlobalID":"{CCCCCCCC-0000-4000-8000-000000000003}"}}],"deleteIds":["{cccccccc-0000-4000-8000-000000000004}"]},
                  "attachments":{"adds":[{"globalId":"{CCCCCCCC-0000-4000-8000-000000000005}","parentGlobalId":"{CCCCCCCC-0000-4000-8000-000000000003}","url":"https://h/arcgis/rest/services/Demo/FeatureServer/uploads/i1234"}],"deleteIds":["{CCCCCCCC-0000-4000-8000-000000000006}"]}}]
                """#), parameter: "edits")
        #expect(sync.first?.adds.count == 1 && sync.first?.deletes == [.globalId("{CCCCCCCC-0000-4000-8000-000000000004}")])
        #expect(sync.first?.attachments?.adds.first?.source == .uploadId("i1234"))
        #expect(sync.first?.attachments?.deletes == ["{CCCCCCCC-0000-4000-8000-000000000006}"])
        let flat = try SynchronizeReplicaRequest.parseEdits(try JSONParser.parse(#"[{"id":2,"updates":[{"attributes":{}}]}]"#), parameter: "edits")
        #expect(flat.first?.updates.count == 1)
    }

    /// §5.5: the response type from the layers' directions and what there is to return.
    @Test(arguments: [
        ([SyncDirection.bidirectional], false, false, ReplicaResponseType.noEdits),
        ([.bidirectional], true, false, .edits),
        ([.download], false, true, .edits),
        ([.upload], true, false, .edits),
        ([.snapshot], false, false, .replacementData),
        ([.snapshot, .download], false, true, .editsAndData),
        ([.snapshot, .download], false, false, .replacementData),
    ])
    func responseTypes(directions: [SyncDirection], results: Bool, changes: Bool, expected: ReplicaResponseType) {
        var p = SyncPlan(
            replica: replica(.perLayer), layers: [], dataFormat: .json, transportType: .embedded, isAsync: false,
            returnIdsForAdds: false, rollbackOnFailure: false, closeReplica: false, returnAttachmentsDataByUrl: true,
            downloadsAttachments: false)
        p.layers = directions.enumerated().map { SyncLayerPlan(layerId: $0.offset, direction: $0.element, since: 1) }
        #expect(p.responseType(hasEditResults: results, hasChanges: changes) == expected)
    }

    @Test func aSyncOverItsLimitsIsRefusedWhole() throws {
        let adds = (0..<3).map { #"{"attributes":{"GlobalID":"{00000000-0000-4000-8000-00000000000\#($0)}"}}"# }.joined(separator: ",")
        let pairs = [("edits", #"[{"id":2,"features":{"adds":[\#(adds)]}}]"#)]
        let parsed = try request(pairs)
        guard case .inline(let edits, _)? = parsed.upload else {
            Issue.record("no inline edits")
            return
        }
        let small = SyncLimits(maxEdits: 2, maxAttachmentBytes: 4)
        #expect(throws: ArcGISError.self) { try SyncPlanner.plan(parsed, replica: replica(.perLayer), edits: edits, limits: small) }
        _ = try SyncPlanner.plan(parsed, replica: replica(.perLayer), edits: edits, limits: SyncLimits(maxEdits: 3, maxAttachmentBytes: 4))
        let attachment = try request([
            (
                "edits",
                #"[{"id":2,"attachments":{"adds":[{"globalId":"{00000000-0000-4000-8000-000000000009}","parentGlobalId":"{00000000-0000-4000-8000-000000000001}","data":"AAAAAAA="}]}}]"#
            )
        ])
        guard case .inline(let attachmentEdits, _)? = attachment.upload else {
            Issue.record("no inline edits")
            return
        }
        let definition = replica(.perLayer, attachments: .bidirectional)
        #expect(throws: ArcGISError.self) { try SyncPlanner.plan(attachment, replica: definition, edits: attachmentEdits, limits: small) }
        _ = try SyncPlanner.plan(attachment, replica: definition, edits: attachmentEdits, limits: SyncLimits(maxEdits: 3, maxAttachmentBytes: 5))
    }
}
