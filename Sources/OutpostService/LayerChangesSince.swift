import OutpostGeocoding
import OutpostStorage
import OutpostSync
import OutpostWire

/// A layer's changes since a change-tracking generation, in one consistent read of the sync
/// engine's change feed (docs/geocoding.md, "Refresh"): what a locator or a network built from
/// the layer follows. Features come in Web Mercator, as the builders read them.
struct LayerChangesSince {
    /// The generation the read was at: every change up to it is here.
    var generation: Int64
    /// Features added or updated since, each once.
    var changed: [LayerPages.Feature] = []
    var deleted: [DeletedRecord] = []

    /// Changes beyond which a whole build is cheaper than following them one by one.
    static let maximumChanges = 50_000

    /// The read of the layer as an unregistered replica of it alone, unfiltered.
    static func probe(service: String, layer: Int, since generation: Int64) -> ReplicaDefinition {
        ReplicaDefinition(
            id: "", name: "refresh", serviceName: service, syncModel: .none, spatialReference: SpatialReference(wkid: WebMercator.wkid),
            layers: [ReplicaLayer(layerId: layer, queryOption: .useFilter, useGeometry: false, serverGen: generation)])
    }

    /// The store's generation now.
    static func generation(service: String, layer: Int, in store: some OutpostBackend) throws -> Int64 {
        try store.sync.readChangeFeed(probe(service: service, layer: layer, since: 0)) { $0.generation }
    }

    /// The changes since `generation`; nil when there are more than `limit` (then build anew).
    static func read(
        service: String, layer: Int, since generation: Int64, limit: Int = maximumChanges, in store: some OutpostBackend
    ) throws
        -> LayerChangesSince?
    {
        let replica = probe(service: service, layer: layer, since: generation)
        do {
            return try collect(replica, layer: layer, since: generation, limit: limit, in: store)
        } catch is TooMany {
            return nil
        }
    }

    private static func collect(
        _ replica: ReplicaDefinition, layer: Int, since generation: Int64, limit: Int, in store: some OutpostBackend
    ) throws
        -> LayerChangesSince?
    {
        try store.sync.readChangeFeed(replica) { read -> LayerChangesSince? in
            let service = replica.serviceName
            guard let stored = read.service.layers.first(where: { $0.definition.id == layer }), let replicaLayer = replica.layers.first else {
                throw StoreError.layerNotFound(service: service, layer: layer)
            }
            let columns = Dictionary(
                stored.definition.fields.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
            var changes = LayerChangesSince(generation: read.generation)
            let feed = try read.changes(of: replicaLayer, since: generation)
            for pass in [DownloadChange.add, .update] {
                try feed.forEachChangedFeature(pass) { record in
                    guard changes.changed.count < limit else { throw TooMany() }
                    changes.changed.append(LayerPages.Feature(columns: columns, attributes: record.attributes, geometry: record.geometry))
                }
            }
            changes.deleted = try feed.deletedFeatures()
            return changes.changed.count + changes.deleted.count <= limit ? changes : nil
        }
    }

    /// Whether any feature of the layer changed since `generation`.
    static func hasChanged(service: String, layer: Int, since generation: Int64, in store: some OutpostBackend) throws -> Bool {
        guard let changes = try read(service: service, layer: layer, since: generation, limit: 1, in: store) else { return true }
        return !changes.changed.isEmpty || !changes.deleted.isEmpty
    }

    struct TooMany: Error {}

    /// Whether a read failed because the layer is gone (its service deleted, or the layer).
    static func isGone(_ error: StoreError) -> Bool {
        switch error {
        case .serviceNotFound, .layerNotFound: true
        default: false
        }
    }
}
