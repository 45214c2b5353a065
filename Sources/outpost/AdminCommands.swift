import ArgumentParser
import Foundation
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync

/// `outpost replicas list|unregister`: find and remove replicas nobody syncs any more.
struct Replicas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List registered replicas, or unregister the idle ones (orphans of lost devices).",
        subcommands: [List.self, Unregister.self])

    struct Selection: ParsableArguments {
        @OptionGroup var location: StoreLocation
        @Option(name: .long, help: "Only this service.") var service: String?
        @Option(name: .long, help: "Only replicas with no sync for more than this many days.") var idleDays: Double?

        func validate() throws {
            if let idleDays, idleDays < 0 { throw ValidationError("--idle-days must not be negative.") }
        }

        /// The selected replicas (by service, then name) and how to unregister them.
        struct Selected {
            var replicas: [ReplicaDefinition]
            var unregister: ([ReplicaDefinition]) throws -> [ReplicaDefinition]
        }

        func selected() throws -> Selected {
            if let backend = try location.postgres() { return try selecting(ReplicaAdministration(backend: backend)) }
            return try selecting(ReplicaAdministration(backend: try SpatiaLiteBackend(dataDirectory: location.data)))
        }

        private func selecting<Backend>(_ administration: ReplicaAdministration<Backend>) throws -> Selected {
            let replicas = try administration.replicas(service: service, idleDays: idleDays, for: .unrestricted)
            return Selected(replicas: replicas.sorted { ($0.serviceName, $0.name) < ($1.serviceName, $1.name) }) {
                try administration.unregister($0)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered replicas: service, id, name, owner, last activity.")
        @OptionGroup var selection: Selection

        func run() async throws {
            let formatter = ISO8601DateFormatter()
            print("service\treplicaID\tname\towner\tlastActivity")
            for replica in try selection.selected().replicas {
                let last = Date(timeIntervalSince1970: Double(ReplicaHousekeeping.lastActivity(of: replica)) / 1000)
                print("\(replica.serviceName)\t\(replica.id)\t\(replica.name)\t\(replica.owner)\t\(formatter.string(from: last))")
            }
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unregister the replicas selected by --idle-days (required).")
        @OptionGroup var selection: Selection
        @Flag(name: .long, help: "Only print what would be unregistered.") var dryRun = false

        func validate() throws {
            if selection.idleDays == nil {
                throw ValidationError("Give --idle-days N: unregistering every replica is `unRegisterReplica` with replicaID=*.")
            }
        }

        func run() async throws {
            let selected = try selection.selected()
            let done = dryRun ? selected.replicas : try selected.unregister(selected.replicas)
            for replica in done {
                print("\(dryRun ? "would unregister" : "unregistered") \(replica.serviceName) \(replica.id) \(replica.name)")
            }
            print("\(done.count) replica(s) \(dryRun ? "would be " : "")unregistered")
        }
    }
}

/// `outpost compact`: purge change tracking no registered replica needs.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Purge change-tracking rows (tombstones, retry receipts) no registered replica still needs.")
    @OptionGroup var location: StoreLocation

    func run() async throws {
        let report =
            if let backend = try location.postgres() {
                try ReplicaAdministration(backend: backend).compact()
            } else {
                try ReplicaAdministration(backend: try SpatiaLiteBackend(dataDirectory: location.data)).compact()
            }
        print("removed \(report.tombstones) tombstone(s) and \(report.receipts) retry receipt(s)")
    }
}
