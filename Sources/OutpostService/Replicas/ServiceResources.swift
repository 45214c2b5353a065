import OutpostStorage
import OutpostSync
import OutpostWire

/// A service's resource and its layers' as served (`FeatureServiceMetadata`), which a replica
/// GeoPackage or a GeoPackage sync delta keeps for the client; JSON replicas keep none.
public struct ServiceResources: Sendable, Equatable {
    public var service: JSONValue
    /// By layer id: the layers of the replica only.
    public var layers: [Int: JSONValue]

    public init(service: JSONValue, layers: [Int: JSONValue]) {
        self.service = service
        self.layers = layers
    }

    /// What a JSON answer keeps: nothing.
    public static let none = ServiceResources(service: .null, layers: [:])

    /// The resources of `service` and of the layers `replica` holds, read from `backend`
    /// (extents and last edit dates as they are now).
    public init(of service: StoredService, for replica: ReplicaDefinition, in backend: some OutpostBackend) throws {
        self.service = FeatureServiceMetadata.serviceJSON(service.definition, fullExtent: try backend.features.fullExtent(of: service))
        var layers: [Int: JSONValue] = [:]
        for layer in service.layers where replica.layer(id: layer.definition.id) != nil {
            let state = FeatureServiceMetadata.LayerState(
                extent: try backend.features.extent(of: layer), lastEditDate: try backend.features.lastEditDate(of: layer))
            layers[layer.definition.id] = FeatureServiceMetadata.layerJSON(layer.definition, service: service.definition, state: state)
        }
        self.layers = layers
    }
}
