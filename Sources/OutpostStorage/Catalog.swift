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
}
