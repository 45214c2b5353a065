import Foundation
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

extension SyncDownload {
    /// Writes the answer of `plan` from `feed` as a download delta at `path` (docs/replica-format.md,
    /// Deltas): the same changes as the JSON answer, read the same way, in the plan's layer
    /// order; each layer's rows through the writer's bulk insert. On failure the file is removed.
    static func writeDelta(
        _ plan: SyncPlan, upload: SyncUploadOutcome?, from feed: any ChangeFeedRead, to path: String, serviceURL: String,
        serviceJSON: JSONValue, layerJSON: [Int: JSONValue]
    ) throws -> SyncAnswerSummary {
        let replica = plan.replica
        let resultsByLayer = upload?.resultsByLayer ?? [:]
        let generation = feed.generation
        let generations = plan.answeredGenerations(current: generation)
        // The file records the generations the device will hold once it applied the delta.
        var answered = replica
        for index in answered.layers.indices {
            if let gen = generations[answered.layers[index].layerId] { answered.layers[index].serverGen = gen }
        }
        answered.replicaServerGen = answered.layers.map(\.serverGen).min() ?? replica.replicaServerGen
        let systems = try feed.spatialReferenceDefinitions([replica.spatialReference.epsg, 4326])
        let writer = try ReplicaFileWriter(
            path: path, replica: answered, serviceURL: serviceURL, serviceJSON: serviceJSON, spatialReferences: systems,
            delta: ReplicaDeltaHeader(kind: .download, generation: generation))
        var changes = 0
        var replacementRows = 0
        var hasEditResults = false
        do {
            for layerPlan in plan.layers {
                guard let replicaLayer = answered.layer(id: layerPlan.layerId) else { continue }
                let snapshot = layerPlan.direction == .snapshot
                let definition = try feed.layer(of: replicaLayer)
                let withAttachments = definition.hasAttachments && replica.attachmentsSyncDirection != .none
                let downloadsAttachments = withAttachments && plan.downloadsAttachments
                let layerWriter = try writer.beginLayer(
                    ReplicaFileLayer(
                        definition: definition, layerJSON: layerJSON[definition.id] ?? .null, replicaLayer: replicaLayer,
                        withAttachments: withAttachments))
                try writer.recordDeltaLayer(layerId: definition.id, sinceGen: layerPlan.since, replacesRows: snapshot)
                if let results = resultsByLayer[layerPlan.layerId] {
                    if !results.all.isEmpty { hasEditResults = true }
                    var rows = DeltaEditResult.rows(results)
                    // As in the JSON answer: add results name the OBJECTID only when asked to.
                    if !plan.returnIdsForAdds {
                        for index in rows.indices where rows[index].item == .feature && rows[index].operation == .insert {
                            rows[index].result.objectId = nil
                        }
                    }
                    try writer.recordEditResults(rows)
                }
                if snapshot {
                    try layerWriter.insertAllRecords { insert in
                        try feed.forEachFeature(of: replicaLayer) { try insert($0.attributes, $0.geometry) }
                    }
                    if downloadsAttachments {
                        try feed.forEachAttachment(of: replicaLayer) { try $0.write(to: layerWriter) }
                    }
                    replacementRows += layerWriter.featureCount + layerWriter.attachmentCount
                } else if layerPlan.direction.downloads {
                    let layerChanges = try feed.changes(of: replicaLayer, since: layerPlan.since)
                    for pass in [DownloadChange.add, .update] {
                        try layerWriter.insertAllRecords(logging: pass == .add ? .insert : .update) { insert in
                            try layerChanges.forEachChangedFeature(pass) { try insert($0.attributes, $0.geometry) }
                        }
                    }
                    let deleted = try layerChanges.deletedFeatures()
                    try layerWriter.logDeletes(.feature, deleted.map { ($0.globalId, $0.objectId) })
                    changes += layerWriter.featureCount + deleted.count
                    if downloadsAttachments {
                        for pass in [DownloadChange.add, .update] {
                            try layerChanges.forEachChangedAttachment(pass) {
                                try $0.write(to: layerWriter, logging: pass == .add ? .insert : .update)
                            }
                        }
                        let deletedAttachments = try layerChanges.deletedAttachments()
                        try layerWriter.logDeletes(.attachment, deletedAttachments.map { ($0.globalId, $0.objectId) })
                        changes += layerWriter.attachmentCount + deletedAttachments.count
                    }
                }
                try layerWriter.finish()
            }
            let responseType = plan.responseType(hasEditResults: hasEditResults, hasChanges: changes > 0)
            try writer.setDeltaResponseType(responseType.rawValue)
            try writer.finish()
            return SyncAnswerSummary(
                generation: generation, responseType: responseType, changes: changes, replacementRows: replacementRows,
                generations: generations)
        } catch {
            writer.abandon()
            throw error
        }
    }
}

extension AttachmentRecord {
    /// Writes the attachment into a replica file or delta being written, its bytes read now.
    func write(to writer: ReplicaLayerWriter, logging operation: DeltaOperation? = nil) throws {
        try writer.insertAttachment(
            attachmentId: id, globalId: globalId, parentGlobalId: parentGlobalId, name: name, contentType: contentType, keywords: keywords,
            data: try content.data(), logging: operation)
    }
}
