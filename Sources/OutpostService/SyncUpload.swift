import OutpostStorage
import OutpostSync
import OutpostWire

extension SyncStore {
    /// Applies the client's edits of a sync (§5.5) in one transaction stamped with one
    /// generation and the replica's id, deciding each edit with `SyncRules.upload` (last in
    /// wins); written once for every backend over its `SyncUploadTransaction` (`SyncUpload`).
    ///
    /// Every server change an edit overwrites that the replica had not seen is copied to the
    /// conflict log first. `fingerprint` identifies the upload (its layers, generations and
    /// edit bytes): when it equals the last upload applied for this replica, nothing is
    /// applied and that upload's results are returned, so a retried sync applies nothing
    /// twice. With `rollbackOnFailure`, a failing edit rolls everything back and the results
    /// say which edits failed. `editor` (the syncing user; nil, the operator or a test, writes
    /// NULL) goes to editor-tracking fields.
    public func applySyncUpload(_ plan: SyncPlan, fingerprint: [UInt8], editor: String? = nil) throws -> SyncUploadOutcome {
        let upload = SyncUpload(plan: plan, fingerprint: fingerprint)
        do {
            return try runSyncUpload(plan, editor: editor) { transaction in try upload.run(in: transaction) }
        } catch let replayed as SyncUpload.Replayed {
            return SyncUploadOutcome(results: replayed.results, generation: nil, replayed: true, conflictsRecorded: 0)
        } catch let rolledBack as SyncUpload.RolledBack {
            var results = rolledBack.results
            for index in results.indices { results[index].markRolledBack() }
            return SyncUploadOutcome(results: results, generation: nil, replayed: false, conflictsRecorded: 0)
        }
    }
}

/// The sync upload engine: the receipt, the layer loop and every edit's decision, over a
/// backend's `SyncUploadTransaction` and `SyncUploadRecords`, which read and write.
struct SyncUpload {
    let plan: SyncPlan
    let fingerprint: [UInt8]

    var replicaId: String { plan.replica.id }

    /// A retry: the first upload's results, and nothing of this transaction kept.
    struct Replayed: Error { var results: [LayerEditResults] }
    /// An edit failed under `rollbackOnFailure`: nothing of this transaction kept.
    struct RolledBack: Error { var results: [LayerEditResults] }

    func run(in transaction: any SyncUploadTransaction) throws -> SyncUploadOutcome {
        if let results = try transaction.receipt(fingerprint: fingerprint) { throw Replayed(results: results) }
        var results: [LayerEditResults] = []
        for (layerPlan, layer) in zip(plan.uploadedLayers, transaction.layers) {
            guard let edits = layerPlan.edits else { continue }
            let records = try transaction.records(of: layer, for: layerPlan) { Self.globalIds(in: edits, layer: layer) }
            results.append(try apply(edits, to: records, in: transaction))
        }
        if plan.rollbackOnFailure && results.contains(where: { $0.all.contains { !$0.success } }) {
            throw RolledBack(results: results)
        }
        let generation = try transaction.saveReceipt(fingerprint: fingerprint, results: results)
        // Every edit failed: no data changed, so the outcome names no generation (the receipt
        // still answers a retry).
        guard results.contains(where: { $0.all.contains(where: \.success) }) else {
            return SyncUploadOutcome(results: results, generation: nil, replayed: false, conflictsRecorded: 0)
        }
        return SyncUploadOutcome(
            results: results, generation: generation, replayed: false, conflictsRecorded: try transaction.conflictsRecorded(generation: generation))
    }

    private func apply(
        _ edits: LayerEdits, to records: some SyncUploadRecords, in transaction: any SyncUploadTransaction
    ) throws -> LayerEditResults {
        var results = LayerEditResults(layerId: records.layer.definition.id)
        for feature in edits.adds {
            results.addResults.append(try transaction.attempt { try upload(.add, feature: feature, key: nil, to: records) })
        }
        for feature in edits.updates {
            results.updateResults.append(try transaction.attempt { try upload(.update, feature: feature, key: nil, to: records) })
        }
        for key in edits.deletes {
            results.deleteResults.append(try transaction.attempt { try upload(.delete, feature: nil, key: key, to: records) })
        }
        try records.endFeatures()
        if let attachments = edits.attachments { results.attachmentResults = try apply(attachments, to: records, in: transaction) }
        return results
    }

    // MARK: Features

    /// One feature edit: its GlobalID's record, the rules' decision, the conflict log, then
    /// the action. `retried`: decided again after another writer inserted the GlobalID.
    private func upload<Records: SyncUploadRecords>(
        _ operation: UploadOperation, feature: EditFeature?, key: FeatureKey?, to records: Records, retried: Bool = false
    ) throws -> EditResult {
        let globalId = try Self.globalId(of: feature, key: key, layer: records.layer)
        let held = try records.read(globalId, .feature)
        let record = held.record
        let decision = SyncRules.upload(operation, onto: record, since: records.since, replicaId: replicaId)
        // Versioned data: an update of a feature DEFAULT changed meanwhile is reconciled field
        // by field; only fields both sides changed are conflicts.
        var reconciled: (feature: EditFeature, conflicts: JSONValue?)?
        if records.layer.isVersioned, decision.overwritesUnseenChange, case .update(let objectId) = decision.action {
            reconciled = try reconcile(feature!, objectId: objectId, globalId: globalId, in: records)
        }
        if let reconciled {
            if let fields = reconciled.conflicts { try records.recordConflict(operation, over: held, globalId: globalId, fields: fields) }
        } else if decision.overwritesUnseenChange {
            try records.recordConflict(operation, over: held, globalId: globalId, fields: nil)
        }
        switch decision.action {
        case .insert:
            do {
                return try records.insert(feature!, globalId: globalId, over: held)
            } catch is GlobalIDInsertedMeanwhile {
                // Another writer inserted this GlobalID since it was read: decide again on its row, once.
                guard !retried else { throw SyncEditFailure(error: .duplicateGlobalID(globalId), globalId: globalId) }
                return try upload(operation, feature: feature, key: key, to: records, retried: true)
            }
        case .update(let objectId):
            if let reconciled, reconciled.feature.attributes.count <= 1, reconciled.feature.geometry == nil {
                // The replica changed nothing DEFAULT does not already hold.
                return EditResult(objectId: objectId, globalId: globalId)
            }
            // An add that collides with a live feature updates the feature it collides on.
            let result = try records.update(reconciled?.feature ?? feature!, of: held, globalId: globalId)
            if reconciled != nil {
                // A merge: DEFAULT's row now holds fields the replica has not seen. Written by
                // "merge:<replica>", it is not the replica's own write, so it comes back to it.
                try records.setLastWriter(VersionReconcile.mergeWriter(replicaId), of: objectId)
            }
            return result
        case .resurrect:
            let result = try records.insert(feature!, globalId: globalId, over: held)
            if let recreation = SyncRules.recreation(replacing: record) {
                try records.recreate(recreation, of: .feature, replacing: held, id: result.objectId, globalId: globalId)
            }
            return result
        case .delete:
            return try records.delete(held, globalId: globalId)
        case .alreadyApplied(let objectId):
            var reported = objectId
            if reported == nil, case .tombstone(let deletedObjectId, _, _, _) = record { reported = deletedObjectId }
            return EditResult(objectId: reported, globalId: globalId)
        }
    }

    /// The part of an update the replica changed, against the feature at its generation
    /// (`VersionReconcile`), and the conflict log's `fields` for the fields DEFAULT changed
    /// too (`{"field", "base", "default", "replica"}` each); nil when there are none.
    private func reconcile(
        _ feature: EditFeature, objectId: Int64, globalId: String, in records: some SyncUploadRecords
    ) throws -> (feature: EditFeature, conflicts: JSONValue?) {
        let layer = records.layer
        let update = VersionedUpdate(feature, layer: layer.definition)
        guard !update.fields.isEmpty || (layer.isSpatial && feature.geometry != nil) else { return (feature, nil) }
        let states = try records.fieldStates(update, of: feature, objectId: objectId, globalId: globalId)
        let outcome = VersionReconcile.reconcile(base: states.base, current: states.current, edit: states.edit)
        let reduced = update.reduced(feature, writing: outcome.write, globalIdField: layer.definition.globalIdField, globalId: globalId)
        guard !outcome.conflicts.isEmpty else { return (reduced, nil) }
        let fields: [JSONValue] = outcome.conflicts.map { field in
            [
                "field": .string(field), "base": states.json(field, in: .base), "default": states.json(field, in: .current),
                "replica": states.json(field, in: .edit),
            ]
        }
        return (reduced, .array(fields))
    }

    // MARK: GlobalIDs

    /// The GlobalID an edit names: a delete's key, or the feature's GlobalID field.
    static func globalId(of feature: EditFeature?, key: FeatureKey?, layer: StoredLayer) throws -> String {
        switch key {
        case .globalId(let id)?: return id
        case .objectId(let id)?: throw SyncEditFailure(error: .invalid("Sync deletes name GlobalIDs, not object id \(id)."))
        case nil: break
        }
        let field = layer.definition.globalIdField
        guard let text = feature?.attributes.value(forCaseInsensitiveKey: field)?.stringValue, let id = GlobalID.normalize(text) else {
            throw SyncEditFailure(error: .invalid("Every synced feature needs its \(field) (a GUID)."))
        }
        return id
    }

    /// Every GlobalID a layer's feature edits name (an edit without one is left out: it fails
    /// on its own).
    static func globalIds(in edits: LayerEdits, layer: StoredLayer) -> [String] {
        var ids: [String] = []
        for feature in edits.adds + edits.updates {
            if let id = try? globalId(of: feature, key: nil, layer: layer) { ids.append(id) }
        }
        for key in edits.deletes { if case .globalId(let id) = key { ids.append(id) } }
        return ids
    }
}
