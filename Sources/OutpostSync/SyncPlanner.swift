import OutpostWire

/// One layer of a sync: which way it goes, the generation the client's data is at, and the
/// client's edits to apply (nil when the direction does not upload).
public struct SyncLayerPlan: Sendable, Equatable {
    public var layerId: Int
    public var direction: SyncDirection
    /// The generation the client last received for this layer: uploads are judged against
    /// it (an unseen change is one made after it) and downloads hold the changes after it.
    public var since: Int64
    public var edits: LayerEdits?

    public init(layerId: Int, direction: SyncDirection, since: Int64, edits: LayerEdits? = nil) {
        self.layerId = layerId
        self.direction = direction
        self.since = since
        self.edits = edits
    }
}

/// A synchronize request resolved against its replica: every decision made, nothing done.
public struct SyncPlan: Sendable, Equatable {
    public var replica: ReplicaDefinition
    public var layers: [SyncLayerPlan]
    public var dataFormat: ReplicaDataFormat
    public var transportType: TransportType
    public var isAsync: Bool
    public var returnIdsForAdds: Bool
    public var rollbackOnFailure: Bool
    public var closeReplica: Bool
    public var returnAttachmentsDataByUrl: Bool
    /// Attachment changes travel down (the replica was created with `bidirectional`).
    public var downloadsAttachments: Bool

    /// Layers whose edits are applied.
    public var uploadingLayers: [SyncLayerPlan] { layers.filter { $0.direction.uploads } }
    /// Whether the answer is a file to download rather than the response body.
    public var deliversByURL: Bool { isAsync || dataFormat == .sqlite || transportType == .url }

    /// The generation(s) the answer hands out. A layer that downloaded gets `current` (the
    /// snapshot its changes were read from); an upload-only layer keeps the generation the
    /// client sent, since it received nothing newer.
    public func answeredGenerations(current: Int64) -> [Int: Int64] {
        Dictionary(uniqueKeysWithValues: layers.map { ($0.layerId, $0.direction.downloads ? current : $0.since) })
    }

    /// `responseType` (§5.5, §5.6): replacement data for snapshot layers, edits for changes
    /// and edit results, both when both, `NoEdits` when there is nothing to return.
    public func responseType(hasEditResults: Bool, hasChanges: Bool) -> ReplicaResponseType {
        let snapshots = layers.contains { $0.direction == .snapshot }
        let incremental = hasEditResults || hasChanges
        switch (snapshots, incremental) {
        case (true, true): return .editsAndData
        case (true, false): return .replacementData
        case (false, true): return .edits
        case (false, false): return .noEdits
        }
    }
}

/// What one sync may carry (`outpost serve --max-sync-edits`, `--max-sync-attachment-mb`): a
/// sync over a limit is refused whole, before anything is applied, so a client splits it.
public struct SyncLimits: Sendable, Equatable {
    /// Feature and attachment edits, over all layers.
    public var maxEdits: Int
    /// The bytes of one attachment carried in the sync itself (base64 `data`, or a row of a
    /// GeoPackage delta); attachments by upload id are bounded by the upload limit.
    public var maxAttachmentBytes: Int

    public init(maxEdits: Int, maxAttachmentBytes: Int) {
        self.maxEdits = maxEdits
        self.maxAttachmentBytes = maxAttachmentBytes
    }

    public static let standard = SyncLimits(maxEdits: 250_000, maxAttachmentBytes: 64 * 1024 * 1024)

    func check(_ edits: [LayerEdits]) throws(ArcGISError) {
        var count = 0
        for layer in edits {
            count += layer.count
            guard let attachments = layer.attachments else { continue }
            count += attachments.adds.count + attachments.updates.count + attachments.deletes.count
            for edit in attachments.adds + attachments.updates {
                if case .data(let bytes)? = edit.source, bytes.count > maxAttachmentBytes {
                    throw .invalidParameter(
                        "edits",
                        "attachment \(edit.globalId) has \(bytes.count) bytes; a sync carries attachments of at most \(maxAttachmentBytes) bytes (send larger ones by uploadId)"
                    )
                }
            }
        }
        if count > maxEdits {
            throw .invalidParameter("edits", "\(count) edits exceed the limit of \(maxEdits) per sync; split them into several syncs")
        }
    }
}

/// Resolves a `synchronizeReplica` request against the replica it names (§5, §9): which
/// layers sync, in which direction, from which generation, with which edits. Every
/// rejection names its parameter and happens before anything is applied.
public enum SyncPlanner {
    /// `currentGeneration`: the server's newest; a client claiming a newer one holds data from
    /// elsewhere, and the sync is refused before anything is applied.
    public static func plan(
        _ request: SynchronizeReplicaRequest, replica: ReplicaDefinition, edits: [LayerEdits]?,
        currentGeneration: Int64 = .max, limits: SyncLimits = .standard,
        serviceHasAttachments: (Int) -> Bool = { _ in true }
    ) throws(ArcGISError) -> SyncPlan {
        try limits.check(edits ?? [])
        let topDirection = request.syncDirection ?? .bidirectional
        var layers: [SyncLayerPlan] = []
        switch (replica.syncModel, request.syncLayers) {
        case (.none, _):
            throw .invalidParameter("replicaID", "replica \(replica.id) was created with syncModel=none and cannot sync")
        case (.perReplica, _), (.perLayer, .absent), (.perLayer, .notALayerList):
            // Per replica: every layer, one direction, one generation (syncLayers is ignored,
            // whatever it holds). Per layer without a usable list: the same, each layer from
            // `replicaServerGen` when sent, else from the generation the server last gave it.
            if replica.syncModel == .perLayer, case .notALayerList(let text) = request.syncLayers,
                text.lowercased() != "perreplica"
            {
                throw .invalidParameter("syncLayers", "expected a JSON array of {\"id\", \"serverGen\", \"syncDirection\"}")
            }
            for layer in replica.layers {
                let since = request.replicaServerGen ?? (replica.syncModel == .perReplica ? replica.replicaServerGen : layer.serverGen)
                layers.append(SyncLayerPlan(layerId: layer.layerId, direction: topDirection, since: since))
            }
        case (.perLayer, .layers(let entries)):
            guard !entries.isEmpty else { throw .invalidParameter("syncLayers", "name at least one layer") }
            for entry in entries {
                guard replica.layer(id: entry.layerId) != nil else {
                    throw .invalidParameter("syncLayers", "layer \(entry.layerId) is not in replica \(replica.id)")
                }
                let direction = entry.syncDirection ?? topDirection
                let since: Int64
                if let gen = entry.serverGen {
                    since = gen
                } else if direction == .snapshot || direction == .upload {
                    since = request.replicaServerGen ?? replica.layer(id: entry.layerId)!.serverGen
                } else {
                    throw .invalidParameter("syncLayers", "layer \(entry.layerId) syncs \(direction.rawValue) and needs its serverGen")
                }
                layers.append(SyncLayerPlan(layerId: entry.layerId, direction: direction, since: since))
            }
        }

        // A generation the server never gave this replica: the replica synced with this server
        // after the backup it was restored from (docs/sync-semantics.md, "After a restore").
        for layer in layers {
            let given = replica.syncModel == .perReplica ? replica.replicaServerGen : replica.layer(id: layer.layerId)?.serverGen ?? 0
            if layer.since > given { throw .replicaAheadOfServer(replica.id, layer: layer.layerId, holds: layer.since, given: given) }
        }

        for layer in layers where layer.direction.downloads && layer.direction != .snapshot && layer.since > currentGeneration {
            throw .invalidParameter(
                "syncLayers",
                "layer \(layer.layerId): generation \(layer.since) is newer than the server's (\(currentGeneration)); was the replica made by another server?"
            )
        }

        // The replica's own direction bounds every sync (§9.5).
        for index in layers.indices {
            let direction = layers[index].direction
            switch replica.syncDirection {
            case .upload where direction != .upload:
                guard direction == .bidirectional else {
                    throw .invalidParameter("syncDirection", "replica \(replica.id) is upload-only; it cannot \(direction.rawValue)")
                }
                layers[index].direction = .upload
            case .download where direction.uploads:
                layers[index].direction = .download
            default:
                break
            }
        }

        if let edits {
            for layerEdits in edits {
                guard let index = layers.firstIndex(where: { $0.layerId == layerEdits.layerId }) else {
                    throw .invalidParameter(
                        "edits", "layer \(layerEdits.layerId) is not synced by this request (not in the replica or not in syncLayers)")
                }
                if replica.syncDirection == .download && (layerEdits.count > 0 || layerEdits.attachments?.isEmpty == false) {
                    throw .invalidParameter("edits", "replica \(replica.id) is download-only and takes no edits")
                }
                // Download and snapshot syncs ignore the edits sent with them (§5.5).
                guard layers[index].direction.uploads else { continue }
                if let attachments = layerEdits.attachments, !attachments.isEmpty {
                    guard replica.attachmentsSyncDirection != .none else {
                        throw .invalidParameter("edits", "replica \(replica.id) does not sync attachments (attachmentsSyncDirection=none)")
                    }
                    guard serviceHasAttachments(layerEdits.layerId) else {
                        throw .invalidParameter("edits", "layer \(layerEdits.layerId) has no attachments")
                    }
                }
                layers[index].edits = layerEdits
            }
        }

        return SyncPlan(
            replica: replica, layers: layers, dataFormat: request.dataFormat, transportType: request.transportType,
            isAsync: request.isAsync, returnIdsForAdds: request.returnIdsForAdds,
            rollbackOnFailure: request.rollbackOnFailure, closeReplica: request.closeReplica,
            returnAttachmentsDataByUrl: request.returnAttachmentsDataByUrl,
            downloadsAttachments: replica.attachmentsSyncDirection == .bidirectional)
    }
}

extension ArcGISError {
    /// The answer to a replica holding a generation this server never gave it (it synced with
    /// the server after the backup the server was restored from). Code 409; clients recognise
    /// the message (docs/sync-semantics.md, "After a restore").
    public static let replicaAheadMessage = "Replica is ahead of the server."

    public static func replicaAheadOfServer(_ replica: String, layer: Int, holds: Int64, given: Int64) -> ArcGISError {
        ArcGISError(
            kind: .conflict, message: replicaAheadMessage,
            details: [
                "Replica \(replica) holds generation \(holds) of layer \(layer), but this server has given it only \(given): "
                    + "the server was restored from a backup taken before the replica's last sync. Nothing was applied. "
                    + "Register the replica's data again (createReplica with registerExistingData) and upload its edits."
            ])
    }
}
