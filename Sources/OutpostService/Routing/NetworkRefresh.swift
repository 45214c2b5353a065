import OutpostStorage

/// Keeps a network in step with its layer (docs/routing.md, "Refresh"): a network is one
/// graph, so when any line of its layer changed since the generation it was built at (the
/// change tracking says), it is built anew; a process's cached graph goes with the build id.
public enum NetworkRefresh {
    /// Whether the network was built anew.
    @discardableResult
    public static func refresh(named name: String, in store: some OutpostBackend) throws -> Bool {
        guard let network = try store.networks.network(named: name) else { throw StoreError.serviceNotFound(name) }
        let definition = network.definition
        if let since = network.generation,
            try !LayerChangesSince.hasChanged(service: definition.service, layer: definition.layer, since: since, in: store)
        {
            return false
        }
        try NetworkBuilder.build(definition, in: store)
        return true
    }
}
