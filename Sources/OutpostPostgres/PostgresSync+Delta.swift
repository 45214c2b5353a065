import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync {
    /// Writes a sync's answer as a download delta (`dataFormat=sqlite`, docs/replica-format.md,
    /// Deltas): the same changes as the JSON answer, read the same way in one REPEATABLE READ
    /// transaction whose snapshot is the tick handed out. `path` must not exist.
    public func writeSyncDelta(
        _ plan: SyncPlan, upload: SyncUploadOutcome?, to path: String, serviceURL: String, serviceJSON: JSONValue, layerJSON: [Int: JSONValue]
    ) throws -> SyncAnswerSummary {
        let replica = plan.replica
        let service = try held.load().existingService(named: replica.serviceName)
        let resultsByLayer = upload?.resultsByLayer ?? [:]
        return try pool.transaction(.repeatableRead) { connection in
            let generation = try GenerationTicks.take(replica: replica.id, on: connection).tick
            let generations = plan.answeredGenerations(current: generation)
            // The file records the generations the device holds once it applied the delta.
            var answered = replica
            for index in answered.layers.indices {
                if let gen = generations[answered.layers[index].layerId] { answered.layers[index].serverGen = gen }
            }
            answered.replicaServerGen = answered.layers.map(\.serverGen).min() ?? replica.replicaServerGen
            let systems = try Self.geoPackageSpatialReferences([replica.spatialReference.epsg, 4326], connection: connection)
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
                    let selection = try Self.selection(for: replicaLayer, of: replica, service: service, connection: connection)
                    let definition = selection.layer.definition
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
                        try layerWriter.insertAll { insert in
                            try Self.forEachFeature(selection, spatialReference: replica.spatialReference, connection: connection) { record in
                                try insert(Self.databaseValues(record, layer: definition), record.geometry)
                            }
                        }
                        if downloadsAttachments {
                            try Self.forEachAttachment(selection, files: edits.files, connection: connection) { try $0.write(to: layerWriter) }
                        }
                        replacementRows += layerWriter.featureCount + layerWriter.attachmentCount
                    } else if layerPlan.direction.downloads {
                        let since = try Self.snapshot(ofGeneration: layerPlan.since, connection: connection)
                        let reader = try PostgresChangeReader(selection: selection, since: since, replica: replica, connection: connection)
                        for pass in [DownloadChange.add, .update] {
                            try layerWriter.insertAll(logging: pass == .add ? .insert : .update) { insert in
                                try reader.forEachRow(pass, connection: connection) { record in
                                    try insert(Self.databaseValues(record, layer: definition), record.geometry)
                                }
                            }
                        }
                        let deleted = try reader.deletes(connection: connection)
                        try layerWriter.logDeletes(.feature, deleted)
                        changes += layerWriter.featureCount + deleted.count
                        if downloadsAttachments {
                            for pass in [DownloadChange.add, .update] {
                                try reader.forEachAttachment(pass, files: edits.files, connection: connection) {
                                    try $0.write(to: layerWriter, logging: pass == .add ? .insert : .update)
                                }
                            }
                            let deletedAttachments = try reader.deletedAttachments(connection: connection)
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
                    generation: generation, responseType: responseType, changes: changes, replacementRows: replacementRows, generations: generations)
            } catch {
                writer.abandon()
                throw error
            }
        }
    }
}

extension PostgresSync: SyncStore {}
