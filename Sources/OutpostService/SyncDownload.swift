import OutpostStorage
import OutpostSync
import OutpostWire

/// The download half of a sync (§5.6), written once for every backend over its
/// `ChangeFeedRead`: per syncing layer the upload's edit results and the server's changes
/// since the layer's generation (adds, updates, then deletes; attachments the same way when
/// the layer answers them), then full data for snapshot layers, handed to a
/// `ChangeFeedReceiver` (the JSON answer: `ReplicaJSONWriter`; the GeoPackage delta:
/// `SyncDeltaWriter`). The backend reads; the engine decides the order and what is counted.
enum SyncDownload {
    /// Reads the answer of `plan` from `feed` into `receiver`.
    static func read(
        _ plan: SyncPlan, upload: SyncUploadOutcome?, from feed: any ChangeFeedRead, into receiver: some ChangeFeedReceiver
    ) throws -> SyncAnswerSummary {
        let replica = plan.replica
        let resultsByLayer = upload?.resultsByLayer ?? [:]
        let generations = plan.answeredGenerations(current: feed.generation)
        var changes = 0
        var replacementRows = 0
        var hasEditResults = false
        try receiver.beginAnswer(replica, deliversByURL: plan.deliversByURL, generations: replica.generations(answered: generations))
        for layerPlan in plan.layers where layerPlan.direction != .snapshot {
            guard let replicaLayer = replica.layer(id: layerPlan.layerId) else { continue }
            let layer = try feed.layer(of: replicaLayer)
            let results = resultsByLayer[layerPlan.layerId]
            if let results, !results.all.isEmpty { hasEditResults = true }
            let withAttachments = layer.hasAttachments && replica.attachmentsSyncDirection != .none
            let answersAttachments = withAttachments || results?.attachmentResults != nil
            try receiver.beginChanges(layer, results: results, answersAttachments: answersAttachments)
            var layerChanges: (any LayerChangeFeed)?
            if layerPlan.direction.downloads {
                let feedChanges = try feed.changes(of: replicaLayer, since: layerPlan.since)
                layerChanges = feedChanges
                for pass in [DownloadChange.add, .update] {
                    try feedChanges.forEachChangedFeature(pass) { feature in
                        try receiver.changedFeature(pass, feature, of: layer)
                        changes += 1
                    }
                }
                let deleted = try feedChanges.deletedFeatures()
                try receiver.deletedFeatures(deleted.map(\.globalId))
                changes += deleted.count
            } else {
                try receiver.deletedFeatures([])
            }
            if answersAttachments {
                if let layerChanges, withAttachments && plan.downloadsAttachments {
                    for pass in [DownloadChange.add, .update] {
                        try layerChanges.forEachChangedAttachment(pass) { attachment in
                            try receiver.changedAttachment(pass, attachment, of: layer)
                            changes += 1
                        }
                    }
                    let deleted = try layerChanges.deletedAttachments()
                    try receiver.deletedAttachments(deleted.map(\.globalId))
                    changes += deleted.count
                } else {
                    try receiver.deletedAttachments([])
                }
            }
            try receiver.endChanges()
        }
        let snapshots = plan.layers.filter { $0.direction == .snapshot }
        if !snapshots.isEmpty {
            try receiver.beginSnapshots()
            for layerPlan in snapshots {
                guard let replicaLayer = replica.layer(id: layerPlan.layerId) else { continue }
                let layer = try feed.layer(of: replicaLayer)
                let withAttachments = layer.hasAttachments && plan.downloadsAttachments
                try receiver.beginLayer(layer, spatialReference: replica.spatialReference, withAttachments: withAttachments)
                try feed.forEachFeature(of: replicaLayer) { feature in
                    try receiver.feature(feature, of: layer)
                    replacementRows += 1
                }
                if withAttachments {
                    try feed.forEachAttachment(of: replicaLayer) { attachment in
                        try receiver.attachment(attachment, of: layer)
                        replacementRows += 1
                    }
                }
                try receiver.endLayer()
            }
            try receiver.endSnapshots()
        }
        let responseType = plan.responseType(hasEditResults: hasEditResults, hasChanges: changes > 0)
        try receiver.finishAnswer(responseType: responseType)
        return SyncAnswerSummary(
            generation: feed.generation, responseType: responseType, changes: changes, replacementRows: replacementRows,
            generations: generations)
    }
}

extension ChangeFeedRead {
    /// The layer a replica layer names.
    func layer(of replicaLayer: ReplicaLayer) throws -> LayerDefinition {
        guard let layer = service.layers.first(where: { $0.definition.id == replicaLayer.layerId }) else {
            throw StoreError.layerNotFound(service: service.definition.name, layer: replicaLayer.layerId)
        }
        return layer.definition
    }
}

extension SyncStore {
    /// A sync's answer as ArcGIS JSON, handed to `write` in pieces (`ReplicaJSONWriter`).
    public func writeSyncAnswer(
        _ plan: SyncPlan, upload: SyncUploadOutcome?, write: @escaping ([UInt8]) throws -> Void,
        attachmentURL: ((Int, Int64, Int64) -> String)?
    ) throws -> SyncAnswerSummary {
        let writer = ReplicaJSONWriter(write: write, attachmentURL: attachmentURL, returnIdsForAdds: plan.returnIdsForAdds)
        return try readChangeFeed(plan.replica) { feed in try SyncDownload.read(plan, upload: upload, from: feed, into: writer) }
    }

    /// A sync's answer as a download delta (`dataFormat=sqlite`, docs/replica-format.md,
    /// Deltas): a GeoPackage shaped like the replica file holding the changed rows, the list of
    /// changes, the upload's edit results and the new generations. `path` must not exist; the
    /// caller publishes it when this returns.
    public func writeSyncDelta(
        _ plan: SyncPlan, upload: SyncUploadOutcome?, to path: String, serviceURL: String, serviceJSON: JSONValue,
        layerJSON: [Int: JSONValue]
    ) throws -> SyncAnswerSummary {
        try readChangeFeed(plan.replica) { feed in
            try SyncDownload.writeDelta(
                plan, upload: upload, from: feed, to: path, serviceURL: serviceURL, serviceJSON: serviceJSON, layerJSON: layerJSON)
        }
    }
}
