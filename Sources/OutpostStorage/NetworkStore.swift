import Foundation

/// Where a route network comes from: one line layer of a feature service and which of its
/// fields say a line's name, one-way, speed, cost and restriction (docs/routing.md, "Networks").
public struct NetworkDefinition: Hashable, Sendable, Codable {
    public struct Fields: Hashable, Sendable, Codable {
        /// The street name directions call a line by.
        public var name: String?
        /// `FT` / `TF` / `N` (or yes, -1, no): see `OneWayValue`.
        public var oneway: String?
        /// Kilometres per hour.
        public var speed: String?
        /// Any non-negative number: the `Cost` impedance.
        public var cost: String?
        /// True-ish values keep a line out of routes that obey `Restricted`.
        public var restricted: String?

        public init(name: String? = nil, oneway: String? = nil, speed: String? = nil, cost: String? = nil, restricted: String? = nil) {
            self.name = name
            self.oneway = oneway
            self.speed = speed
            self.cost = cost
            self.restricted = restricted
        }

        public var named: [(component: String, field: String)] {
            let all: [(String, String?)] = [("name", name), ("oneway", oneway), ("speed", speed), ("cost", cost), ("restricted", restricted)]
            return all.compactMap { component, field in field.map { (component, $0) } }
        }
    }

    /// The network's name, as a service's: its URL is `rest/services/<name>/NAServer`.
    public var name: String
    public var service: String
    public var layer: Int
    public var fields: Fields
    /// The speed of a line without one, km/h.
    public var defaultSpeed: Double

    public init(name: String, service: String, layer: Int, fields: Fields, defaultSpeed: Double = 50) {
        self.name = name
        self.service = service
        self.layer = layer
        self.fields = fields
        self.defaultSpeed = defaultSpeed
    }
}

/// A built network: its definition and what the build found.
public struct StoredNetwork: Hashable, Sendable, Codable {
    public var definition: NetworkDefinition
    public var edgeCount: Int
    public var junctionCount: Int
    /// Lines that made no edge, by reason, for an administrator.
    public var refused: [String: Int]
    /// Its extent in WGS84: xmin, ymin, xmax, ymax.
    public var extent: [Double]
    /// When it was built, in milliseconds since 1970.
    public var builtAt: Int64
    /// A fresh identifier per build: a graph a process loaded under another is stale (two
    /// builds may fall in one millisecond).
    public var buildId: String
    /// The store's change-tracking generation it was built at (`NetworkRefresh`); nil for a
    /// network built before it was recorded.
    public var generation: Int64?

    public init(
        definition: NetworkDefinition, edgeCount: Int, junctionCount: Int, refused: [String: Int], extent: [Double], builtAt: Int64,
        buildId: String = UUID().uuidString, generation: Int64? = nil
    ) {
        self.generation = generation
        self.definition = definition
        self.edgeCount = edgeCount
        self.junctionCount = junctionCount
        self.refused = refused
        self.extent = extent
        self.builtAt = builtAt
        self.buildId = buildId
    }

    public var name: String { definition.name }
    public var hasCost: Bool { definition.fields.cost != nil }

    public var json: String { (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? "{}" }

    public static func decode(_ json: String) throws -> StoredNetwork {
        try JSONDecoder().decode(StoredNetwork.self, from: Data(json.utf8))
    }
}

/// Route networks (`NAServer`): each kept whole, as `RoadNetwork`'s stored form, beside its
/// definition. A server loads a network's graph once and keeps it while `buildId` stands.
/// Names are compared without regard to case, as service names are in URLs.
public protocol NetworkStore: Sendable {
    func networks() throws -> [StoredNetwork]
    func network(named name: String) throws -> StoredNetwork?
    /// The network's stored graph; nil when there is no such network.
    func graph(ofNetwork name: String) throws -> Data?
    /// Keeps the network and its graph in place of any it had, in one transaction.
    func saveNetwork(_ network: StoredNetwork, graph: Data) throws
    /// `StoreError.serviceNotFound` when there is none.
    func deleteNetwork(named name: String) throws
}
