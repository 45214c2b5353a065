import Foundation
import OutpostStorage

/// Route networks in `outpost_networks`: the definition as JSON and the graph as `bytea`.
public struct PostgresNetworks: NetworkStore {
    let pool: PostgresPool

    public func networks() throws -> [StoredNetwork] {
        try pool.query("SELECT definition FROM outpost_networks ORDER BY name").rows.compactMap { $0.string(0) }.map(StoredNetwork.decode)
    }

    public func network(named name: String) throws -> StoredNetwork? {
        try pool.query("SELECT definition FROM outpost_networks WHERE lower(name) = lower(\(name))").first?.string(0).map(StoredNetwork.decode)
    }

    public func graph(ofNetwork name: String) throws -> Data? {
        try pool.query("SELECT graph FROM outpost_networks WHERE lower(name) = lower(\(name))").first?.bytes(0).map { Data($0) }
    }

    public func saveNetwork(_ network: StoredNetwork, graph: Data) throws {
        try pool.transaction { connection in
            try connection.query("DELETE FROM outpost_networks WHERE lower(name) = lower(\(network.name))")
            try connection.query(
                "INSERT INTO outpost_networks(name, definition, graph, built_at) VALUES (\(network.name), \(network.json), \([UInt8](graph)), \(network.builtAt))"
            )
        }
    }

    public func deleteNetwork(named name: String) throws {
        let deleted = try pool.query("DELETE FROM outpost_networks WHERE lower(name) = lower(\(name)) RETURNING name")
        guard deleted.first != nil else { throw StoreError.serviceNotFound(name) }
    }
}
