import ArgumentParser
import OutpostService
import OutpostSpatiaLite
import OutpostStorage

/// `outpost network`: route networks (`NAServer`s) built from a line layer
/// (docs/routing.md, "Networks").
struct Network: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build, list and remove route networks (NAServer) made from a line layer of a feature service.",
        subcommands: [Create.self, List.self, Remove.self, Refresh.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a network from a line layer (again: rebuilt from the layer as it is now).",
            discussion: """
                Fields are given as attribute=FIELD, attributes: name (the street name directions use), oneway (FT, TF, N or B; \
                yes, -1, no), speed (km/h), cost (the Cost impedance), restricted (true-ish keeps a line out of routes). Example: \
                outpost network create --name Roads --service City --layer 1 --field name=STREET --field oneway=ONEWAY --field speed=KMH
                """)
        @Option(name: .long, help: "The network's name: rest/services/<name>/NAServer.") var name: String
        @Option(name: .long, help: "The feature service holding the line layer.") var service: String
        @Option(name: .long, help: "The layer's id.") var layer: Int
        @Option(name: .long, help: "attribute=FIELD, repeated.") var field: [String] = []
        @Option(name: .long, help: "The speed of a line without one, km/h.") var defaultSpeed: Double = 50
        @OptionGroup var location: StoreLocation

        func run() async throws {
            let definition = NetworkDefinition(name: name, service: service, layer: layer, fields: try Self.fields(field), defaultSpeed: defaultSpeed)
            if let backend = try location.postgres() {
                defer { backend.close() }
                try build(definition, in: backend)
            } else {
                try build(definition, in: try SpatiaLiteBackend(dataDirectory: location.data))
            }
        }

        /// Builds it, saying what it replaced: names are compared without case.
        func build(_ definition: NetworkDefinition, in store: some OutpostBackend) throws {
            if let old = try store.networks.network(named: definition.name) {
                print("Replacing network \(old.name) (\(old.definition.service) layer \(old.definition.layer), \(old.edgeCount) edges)")
            }
            let network = try NetworkBuilder.build(definition, in: store)
            print(
                "Built network \(network.name): \(network.edgeCount) edges, \(network.junctionCount) junctions from \(network.definition.service) layer \(network.definition.layer)"
            )
            for (reason, count) in network.refused.sorted(by: { $0.key < $1.key }) { print("  \(count) lines refused: \(reason)") }
        }

        static func fields(_ given: [String]) throws -> NetworkDefinition.Fields {
            var fields = NetworkDefinition.Fields()
            for pair in given {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[1].isEmpty else { throw ValidationError("--field \(pair): expected attribute=FIELD") }
                switch parts[0] {
                case "name": fields.name = parts[1]
                case "oneway": fields.oneway = parts[1]
                case "speed": fields.speed = parts[1]
                case "cost": fields.cost = parts[1]
                case "restricted": fields.restricted = parts[1]
                default: throw ValidationError("--field \(pair): no attribute '\(parts[0])'")
                }
            }
            return fields
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the networks.")
        @OptionGroup var location: StoreLocation

        func run() async throws {
            let networks: [StoredNetwork]
            if let backend = try location.postgres() {
                defer { backend.close() }
                networks = try backend.networks.networks()
            } else {
                networks = try SpatiaLiteBackend(dataDirectory: location.data).networks.networks()
            }
            for network in networks {
                print("\(network.name)\t\(network.edgeCount) edges\t\(network.definition.service)/\(network.definition.layer)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a network (its layer stays).")
        @Argument(help: "The network's name.") var name: String
        @OptionGroup var location: StoreLocation

        func run() async throws {
            try location.withStore(missing: "there is no network '\(name)' (outpost network list)") { try $0.networks.deleteNetwork(named: name) }
            print("Removed network \(name)")
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring a network in step with its layer's edits now (a running server does so every minute).")
        @Argument(help: "The network's name.") var name: String
        @OptionGroup var location: StoreLocation

        func run() async throws {
            let outcome = try location.withStore(missing: "there is no network '\(name)' (outpost network list)") { store in
                try NetworkRefresh.refresh(named: name, in: store) ? "rebuilt" : "current"
            }
            print("Network \(name): \(outcome)")
        }
    }
}
