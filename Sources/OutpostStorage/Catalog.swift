import OutpostWire

/// A service as stored.
public struct StoredService: Sendable, Equatable {
    public var definition: ServiceDefinition
    public var layers: [StoredLayer]

    public init(definition: ServiceDefinition, layers: [StoredLayer]) {
        self.definition = definition
        self.layers = layers
    }
}

/// All services, read from the catalog tables.
public struct Catalog: Sendable, Equatable {
    public var services: [StoredService]

    public init(services: [StoredService]) {
        self.services = services
    }

    public func service(named name: String) -> StoredService? {
        let key = ServiceDefinition.normalizedName(name)
        return services.first { ServiceDefinition.normalizedName($0.definition.name) == key }
    }

    /// The service by name, or `StoreError.serviceNotFound`: the one lookup every repository uses.
    public func existingService(named name: String) throws(StoreError) -> StoredService {
        guard let service = service(named: name) else { throw .serviceNotFound(name) }
        return service
    }

    /// A layer of a service by id, or the `StoreError` that says which is missing.
    public func existingLayer(service name: String, id: Int) throws(StoreError) -> StoredLayer {
        let service = try existingService(named: name)
        guard let layer = service.layers.first(where: { $0.definition.id == id }) else {
            throw .layerNotFound(service: name, layer: id)
        }
        return layer
    }
}
