import Foundation
import GRDB
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

extension SpatiaLiteSync {
    /// Writes a sync's answer as a download delta (`dataFormat=sqlite`): a GeoPackage shaped
    /// like the replica file, holding the changed rows, the list of changes, the upload's
    /// edit results and the new generations (`docs/replica-format.md`, Deltas). The same
    /// changes as the JSON answer, read the same way (`LayerChangeReader`) in one read
    /// transaction. `path` must not exist; the caller publishes it when this returns.
    public func writeSyncDelta(
        _ plan: SyncPlan, upload: SyncUploadOutcome?, to path: String, serviceURL: String,
        serviceJSON: JSONValue, layerJSON: [Int: JSONValue]
    ) throws -> SyncAnswerSummary {
        try readAnswer(plan, upload: upload) { answer, db in
            let (replica, service, directory, resultsByLayer) = (answer.replica, answer.service, answer.directory, answer.resultsByLayer)
            let (generation, generations) = (answer.generation, answer.generations)
            // The file records the generations the device will hold once it applied the delta.
            var answered = replica
            for index in answered.layers.indices {
                if let gen = generations[answered.layers[index].layerId] { answered.layers[index].serverGen = gen }
            }
            answered.replicaServerGen = answered.layers.map(\.serverGen).min() ?? replica.replicaServerGen
            let systems = try Self.geoPackageSpatialReferences([replica.spatialReference.epsg, 4326], db: db)
            let writer = try ReplicaFileWriter(
                path: path, replica: answered, serviceURL: serviceURL, serviceJSON: serviceJSON,
                spatialReferences: systems, delta: ReplicaDeltaHeader(kind: .download, generation: generation))
            var changes = 0
            var replacementRows = 0
            var hasEditResults = false
            do {
                for layerPlan in plan.layers {
                    guard let replicaLayer = answered.layer(id: layerPlan.layerId) else { continue }
                    let snapshot = layerPlan.direction == .snapshot
                    let selection = try Self.selection(for: replicaLayer, of: replica, service: service, useIndex: snapshot, db: db)
                    let definition = selection.layer.definition
                    let withAttachments = definition.hasAttachments && replica.attachmentsSyncDirection != .none
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
                    let downloadsAttachments = withAttachments && plan.downloadsAttachments
                    if snapshot {
                        try layerWriter.insertAll { insert in
                            try Self.forEachFeature(selection, spatialReference: replica.spatialReference, db: db, insert)
                        }
                        if downloadsAttachments {
                            try Self.forEachAttachment(selection, directory: directory, db: db) { try $0.write(to: layerWriter) }
                        }
                        replacementRows += layerWriter.featureCount + layerWriter.attachmentCount
                    } else if layerPlan.direction.downloads {
                        var reader = LayerChangeReader(selection: selection, since: layerPlan.since, replica: replica)
                        for pass in [DownloadChange.add, .update] {
                            try layerWriter.insertAll(logging: pass == .add ? .insert : .update) { insert in
                                try reader.forEachRow(pass, db: db) { values, geometry in try insert(values, geometry) }
                            }
                        }
                        let deleted = try reader.deletes(db: db)
                        try layerWriter.logDeletes(.feature, deleted)
                        changes += layerWriter.featureCount + deleted.count
                        if downloadsAttachments {
                            for pass in [DownloadChange.add, .update] {
                                try reader.forEachAttachment(pass, directory: directory, db: db) {
                                    try $0.write(to: layerWriter, logging: pass == .add ? .insert : .update)
                                }
                            }
                            let deletedAttachments = try reader.deletedAttachments(db: db)
                            try layerWriter.logDeletes(.attachment, deletedAttachments)
                            changes += layerWriter.attachmentCount + deletedAttachments.count
                        }
                    }
                    try layerWriter.finish()
                }
                let responseType = plan.responseType(hasEditResults: hasEditResults, hasChanges: changes > 0)
                try writer.setDeltaResponseType(responseType.rawValue)
                try writer.finish()
                return SyncAnswerSummary(
                    generation: generation, responseType: responseType, changes: changes,
                    replacementRows: replacementRows, generations: generations)
            } catch {
                writer.abandon()
                throw error
            }
        }
    }
}
