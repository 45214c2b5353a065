import ArgumentParser
import OutpostGeocoding
import OutpostService
import OutpostSpatiaLite
import OutpostStorage

/// `outpost locator`: locators (`GeocodeServer`s) built from a layer's features
/// (docs/geocoding.md, "Locators").
struct Locator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build, list and remove locators (GeocodeServer) made from a layer of a feature service.",
        subcommands: [Create.self, List.self, Remove.self, Refresh.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a locator from a layer (again: rebuilt from the layer as it is now).",
            discussion: """
                Fields are given as component=FIELD, components: houseNumber, street, locality, postcode, fullAddress, placeName, \
                fromLeft, toLeft, fromRight, toRight (a centre-line's house number ranges). Example: \
                outpost locator create --name Addresses --service City --layer 0 --kind pointAddress \
                --field houseNumber=NUM --field street=STREET --field locality=TOWN
                """)
        @Option(name: .long, help: "The locator's name: rest/services/<name>/GeocodeServer.") var name: String
        @Option(name: .long, help: "The feature service holding the layer.") var service: String
        @Option(name: .long, help: "The layer's id.") var layer: Int
        @Option(name: .long, help: "pointAddress, streetCenterline, place, locality or postal.") var kind: String
        @Option(name: .long, help: "component=FIELD, repeated.") var field: [String] = []
        @OptionGroup var location: StoreLocation

        func run() async throws {
            guard let kind = LocatorEntry.Kind(rawValue: kind) else {
                throw ValidationError("--kind: one of \(LocatorEntry.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let definition = LocatorDefinition(name: name, service: service, layer: layer, kind: kind, fields: try Self.fields(field))
            if let backend = try location.postgres() {
                defer { backend.close() }
                try build(definition, in: backend)
            } else {
                try build(definition, in: try SpatiaLiteBackend(dataDirectory: location.data))
            }
        }

        /// Builds it, saying what it replaced: names are compared without case.
        func build(_ definition: LocatorDefinition, in store: some OutpostBackend) throws {
            if let old = try store.locators.locator(named: definition.name) {
                print(
                    "Replacing locator \(old.name) (\(old.definition.kind.rawValue) of \(old.definition.service) layer \(old.definition.layer), \(old.entryCount) entries)"
                )
            }
            try report(try LocatorBuilder.build(definition, in: store))
        }

        func report(_ locator: StoredLocator) throws {
            print("Built locator \(locator.name): \(locator.entryCount) entries from \(locator.definition.service) layer \(locator.definition.layer)")
            for (reason, count) in locator.refused.sorted(by: { $0.key < $1.key }) { print("  \(count) features refused: \(reason)") }
        }

        static func fields(_ given: [String]) throws -> LocatorDefinition.Fields {
            var fields = LocatorDefinition.Fields()
            for pair in given {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[1].isEmpty else { throw ValidationError("--field \(pair): expected component=FIELD") }
                switch parts[0] {
                case "houseNumber": fields.houseNumber = parts[1]
                case "street": fields.street = parts[1]
                case "locality": fields.locality = parts[1]
                case "postcode": fields.postcode = parts[1]
                case "fullAddress": fields.fullAddress = parts[1]
                case "placeName": fields.placeName = parts[1]
                case "fromLeft": fields.fromLeft = parts[1]
                case "toLeft": fields.toLeft = parts[1]
                case "fromRight": fields.fromRight = parts[1]
                case "toRight": fields.toRight = parts[1]
                default: throw ValidationError("--field \(pair): no component '\(parts[0])'")
                }
            }
            return fields
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the locators.")
        @OptionGroup var location: StoreLocation

        func run() async throws {
            let locators: [StoredLocator]
            if let backend = try location.postgres() {
                defer { backend.close() }
                locators = try backend.locators.locators()
            } else {
                locators = try SpatiaLiteBackend(dataDirectory: location.data).locators.locators()
            }
            for locator in locators {
                print(
                    "\(locator.name)\t\(locator.definition.kind.rawValue)\t\(locator.entryCount) entries\t\(locator.definition.service)/\(locator.definition.layer)"
                )
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a locator (its layer stays).")
        @Argument(help: "The locator's name.") var name: String
        @OptionGroup var location: StoreLocation

        func run() async throws {
            try location.withStore(missing: "there is no locator '\(name)' (outpost locator list)") { try $0.locators.deleteLocator(named: name) }
            print("Removed locator \(name)")
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring a locator in step with its layer's edits now (a running server does so every minute).")
        @Argument(help: "The locator's name.") var name: String
        @OptionGroup var location: StoreLocation

        func run() async throws {
            let outcome = try location.withStore(missing: "there is no locator '\(name)' (outpost locator list)") { store in
                "\(try LocatorRefresh.refresh(named: name, in: store))"
            }
            print("Locator \(name): \(outcome)")
        }
    }
}
