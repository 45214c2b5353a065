import ArgumentParser
import Foundation
import OutpostStorage
import OutpostStore
import OutpostSync

/// `outpost replicas list|unregister`: find and remove replicas nobody syncs any more.
struct Replicas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List registered replicas, or unregister the idle ones (orphans of lost devices).",
        subcommands: [List.self, Unregister.self])

    struct Selection: ParsableArguments {
        @Option(name: .long, help: "The data folder.") var data = "./outpost-data"
        @Option(name: .long, help: "Only this service.") var service: String?
        @Option(name: .long, help: "Only replicas with no sync for more than this many days.") var idleDays: Double?

        func validate() throws {
            if let idleDays, idleDays < 0 { throw ValidationError("--idle-days must not be negative.") }
        }

        func replicas(_ store: FeatureStore) throws -> [ReplicaDefinition] {
            var replicas = try service.map { try store.replicas.replicas(service: $0) } ?? store.replicas.allReplicas()
            if let idleDays {
                replicas = ReplicaHousekeeping.idle(replicas, days: idleDays, now: Int64(Date().timeIntervalSince1970 * 1000))
            }
            return replicas.sorted { ($0.serviceName, $0.name) < ($1.serviceName, $1.name) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered replicas: service, id, name, owner, last activity.")
        @OptionGroup var selection: Selection

        func run() async throws {
            let store = try FeatureStore(dataDirectory: selection.data)
            let formatter = ISO8601DateFormatter()
            print("service\treplicaID\tname\towner\tlastActivity")
            for replica in try selection.replicas(store) {
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
            if selection.idleDays == nil { throw ValidationError("Give --idle-days N: unregistering every replica is `unRegisterReplica` with replicaID=*.") }
        }

        func run() async throws {
            let store = try FeatureStore(dataDirectory: selection.data)
            var count = 0
            for replica in try selection.replicas(store) {
                if dryRun {
                    print("would unregister \(replica.serviceName) \(replica.id) \(replica.name)")
                    count += 1
                } else if try store.replicas.unregisterReplica(service: replica.serviceName, id: replica.id) {
                    print("unregistered \(replica.serviceName) \(replica.id) \(replica.name)")
                    count += 1
                }
            }
            print("\(count) replica(s) \(dryRun ? "would be " : "")unregistered")
        }
    }
}

/// `outpost compact`: purge change tracking no registered replica needs.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Purge change-tracking rows (tombstones, retry receipts) no registered replica still needs.")
    @Option(name: .long, help: "The data folder.") var data = "./outpost-data"

    func run() async throws {
        let store = try FeatureStore(dataDirectory: data)
        let report = try store.maintenance.compact()
        print("removed \(report.tombstones) tombstone(s) and \(report.receipts) retry receipt(s)")
    }
}
