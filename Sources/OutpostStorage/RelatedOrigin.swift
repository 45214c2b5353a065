import OutpostSync
import OutpostWire

/// Where a replica layer with `queryOption=none` and `includeRelated` takes its rows from
/// (docs/sync-semantics.md, layer queries): the rows whose `keyField` matches `originKey` of
/// the selected rows of an origin layer the replica also takes. A backend writes it in its
/// own dialect: a membership test of the key among the origin's selected keys.
public struct RelatedOrigin: Sendable {
    /// The origin layer and its layer in the replica (whose filter selects its rows).
    public var layer: StoredLayer
    public var replicaLayer: ReplicaLayer
    /// The destination's key field, and the origin's field it refers to.
    public var keyField: String
    public var originKey: String
}

extension StoredService {
    /// The origins `replicaLayer`'s rows are related to: every relationship where its layer is
    /// the destination and the origin layer is in the replica with rows of its own (a `none`
    /// origin selects nothing to relate to). Empty unless the layer asks for `includeRelated`.
    public func relatedOrigins(of layer: StoredLayer, as replicaLayer: ReplicaLayer, in replica: ReplicaDefinition) -> [RelatedOrigin] {
        guard replicaLayer.includeRelated else { return [] }
        return layer.definition.relationships.filter { $0.role == .destination }.compactMap { relationship in
            guard let origin = layers.first(where: { $0.definition.id == relationship.relatedTableId }),
                let originReplicaLayer = replica.layer(id: origin.definition.id), originReplicaLayer.queryOption != .none,
                let originKey = origin.definition.relationships.first(where: {
                    $0.relatedTableId == layer.definition.id && $0.role == .origin
                })?.keyField
            else { return nil }
            return RelatedOrigin(layer: origin, replicaLayer: originReplicaLayer, keyField: relationship.keyField, originKey: originKey)
        }
    }
}
