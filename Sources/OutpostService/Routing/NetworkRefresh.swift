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
        if let since = network.generation {
            let changed: Bool
            do {
                changed = try LayerChangesSince.hasChanged(service: definition.service, layer: definition.layer, since: since, in: store)
            } catch let error as StoreError {
                // The layer is gone: a layer that comes back under its name is built anew.
                if LayerChangesSince.isGone(error) { try forgetGeneration(network, in: store) }
                throw error
            }
            if !changed { return false }
        }
        try NetworkBuilder.build(definition, in: store)
        return true
    }

    /// Marks the network to be built anew at its next refresh (its layer went, or the change
    /// tracking was compacted), keeping its graph until then.
    public static func forgetGeneration(_ network: StoredNetwork, in store: some OutpostBackend) throws {
        guard let graph = try store.networks.graph(ofNetwork: network.name) else { return }
        var forgotten = network
        forgotten.generation = nil
        try store.networks.saveNetwork(forgotten, graph: graph)
    }
}
