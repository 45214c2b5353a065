import OutpostWire

/// Writes one layer's edits into a named version (each backend has one).
public protocol VersionRowWriter {
    func add(_ feature: EditFeature) throws -> EditResult
    func update(_ feature: EditFeature) throws -> EditResult
    func delete(_ key: FeatureKey) throws -> EditResult
}

/// `applyEdits` with `gdbVersion`, the rules once for both backends: layers looked up in the
/// service, attachment edits refused, each edit run through the backend's `attempt` (its
/// failure becomes its result) by the backend's writer for the layer.
public enum VersionEditFrame {
    /// Thrown from inside the backend's transaction when `rollbackOnFailure` and an edit
    /// failed: the transaction rolls back, and `outcome` answers every edit as rolled back.
    public struct RolledBack: Error {
        var results: [LayerEditResults]

        public func outcome(editMoment: Int64) -> EditOutcome {
            var results = results
            for index in results.indices { results[index].markRolledBack() }
            return EditOutcome(layers: results, editMoment: editMoment, generation: nil)
        }
    }

    public static func apply<Writer: VersionRowWriter>(
        _ edits: [LayerEdits], to service: StoredService, options: EditOptions, attempt: (() throws -> EditResult) throws -> EditResult,
        writer: (StoredLayer) -> Writer
    ) throws -> [LayerEditResults] {
        var results: [LayerEditResults] = []
        for layerEdits in edits {
            guard let layer = service.layers.first(where: { $0.definition.id == layerEdits.layerId }) else {
                throw StoreError.layerNotFound(service: service.definition.name, layer: layerEdits.layerId)
            }
            guard layerEdits.attachments == nil else {
                throw ArcGISError(
                    kind: .unsupported, message: "Unable to complete operation.",
                    details: ["Attachment edits in a named version are not supported; edit DEFAULT."])
            }
            let writer = writer(layer)
            var layerResults = LayerEditResults(layerId: layer.definition.id)
            for feature in layerEdits.adds { layerResults.addResults.append(try attempt { try writer.add(feature) }) }
            for feature in layerEdits.updates { layerResults.updateResults.append(try attempt { try writer.update(feature) }) }
            for key in layerEdits.deletes { layerResults.deleteResults.append(try attempt { try writer.delete(key) }) }
            results.append(layerResults)
        }
        if options.rollbackOnFailure, results.contains(where: { $0.all.contains { !$0.success } }) { throw RolledBack(results: results) }
        return results
    }
}
