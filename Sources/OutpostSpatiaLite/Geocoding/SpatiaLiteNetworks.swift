import Foundation
import GRDB
import OutpostStorage

/// Route networks in `outpost_networks`: the definition as JSON and the graph as a blob.
public struct SpatiaLiteNetworks: NetworkStore, StoreRepository {
    public let database: StoreDatabase

    public func networks() throws -> [StoredNetwork] {
        try pool.read { db in
            try String.fetchAll(db, sql: "SELECT definition FROM outpost_networks ORDER BY name").map(StoredNetwork.decode)
        }
    }

    public func network(named name: String) throws -> StoredNetwork? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT definition FROM outpost_networks WHERE name = ? COLLATE NOCASE", arguments: [name])
                .map(StoredNetwork.decode)
        }
    }

    public func graph(ofNetwork name: String) throws -> Data? {
        try pool.read { db in try Data.fetchOne(db, sql: "SELECT graph FROM outpost_networks WHERE name = ? COLLATE NOCASE", arguments: [name]) }
    }

    public func saveNetwork(_ network: StoredNetwork, graph: Data) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_networks WHERE name = ? COLLATE NOCASE", arguments: [network.name])
            try db.execute(
                sql: "INSERT INTO outpost_networks(name, definition, graph, built_at) VALUES (?, ?, ?, ?)",
                arguments: [network.name, network.json, graph, network.builtAt])
        }
    }

    public func deleteNetwork(named name: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_networks WHERE name = ? COLLATE NOCASE", arguments: [name])
            guard db.changesCount > 0 else { throw StoreError.serviceNotFound(name) }
        }
    }
}
