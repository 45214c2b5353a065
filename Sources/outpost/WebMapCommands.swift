import ArgumentParser
import Foundation
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire

/// `outpost webmap add FILE.json --title T [--owner U] [--offline] [--access A]`: a web map
/// item in the portal, its JSON kept as given.
struct WebMap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webmap", abstract: "Manage the portal's web maps.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a web map from its JSON file; prints the new item's id.")
        @Argument(help: "The web map JSON (operationalLayers, baseMap, …).") var file: String
        @Option(name: .long, help: "The item's title.") var title: String
        @Option(name: .long, help: "The owner (a user name; default: the server itself).") var owner = ServiceItems.owner
        @Flag(name: .long, help: "Mark the map as one that may be taken offline (the Offline type keyword).") var offline = false
        @Option(name: .long, help: "private, org or public.") var access = "private"
        @OptionGroup var location: StoreLocation

        func run() async throws {
            if let backend = try location.postgres() {
                defer { backend.close() }
                try add(to: backend)
            } else {
                try add(to: try SpatiaLiteBackend(dataDirectory: location.data))
            }
        }

        func add(to store: some OutpostBackend) throws {
            guard let itemAccess = ItemAccess(rawValue: access) else { throw ValidationError("--access: private, org or public") }
            guard let bytes = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
            if owner != ServiceItems.owner, try store.users.user(named: owner) == nil {
                throw ValidationError("no user \(owner) (outpost users add)")
            }
            do {
                let item = try PortalContent(backend: store).addWebMap(
                    String(decoding: bytes, as: UTF8.self), title: title, owner: owner, offline: offline, access: itemAccess,
                    caller: .unrestricted)
                print(item.id)
            } catch let failure as PortalFailure {
                throw ValidationError(failure.arcGISError.details.first ?? failure.arcGISError.message)
            }
        }
    }
}
