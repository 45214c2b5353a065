import ArgumentParser
import Foundation
import OutpostClient
import OutpostConformance
import OutpostWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `outpost replica …`: take a service offline, sync it, register a copy, unregister — the
/// client library from the command line, against any server that speaks the API.
struct Replica: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Offline replicas: create, sync, register, unregister, status.",
        subcommands: [Create.self, Sync.self, Register.self, Unregister.self, Status.self])

    struct Connection: ParsableArguments {
        @Option(name: .long, help: "A token for the server (sent as token= and X-Esri-Authorization).") var token: String?
        @Option(name: .long, help: "Seconds to ride out network loss before failing.") var retrySeconds = 600
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Generate a replica file (GeoPackage) of a FeatureServer.")

        @Argument(help: "The FeatureServer URL.") var url: String
        @Option(name: .long, help: "The file to create.") var out: String
        @Option(name: .long, help: "xmin,ymin,xmax,ymax[,wkid] (default wkid 4326); omitted: no extent filter.") var extent: String?
        @Option(name: .long, help: "Layer ids, e.g. 0,1 (default: all).") var layers: String?
        @Option(name: .long, help: "A where clause applied to every chosen layer.") var `where`: String?
        @Flag(name: .long, help: "Do not take attachments offline.") var noAttachments = false
        @OptionGroup var connection: Connection

        func run() async throws {
            let task = try makeTask(url, connection)
            let (envelope, wkid) = try parseExtent(extent)
            var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: envelope, spatialReference: SpatialReference(wkid: wkid))
            if let layers {
                let ids = layers.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !ids.isEmpty else { throw ValidationError("--layers: expected ids like 0,1") }
                parameters.layerOptions = parameters.layerOptions.filter { ids.contains($0.layerId) }
                let unknown = Set(ids).subtracting(parameters.layerOptions.map(\.layerId))
                guard unknown.isEmpty else { throw ValidationError("--layers: the service has no layer \(unknown.sorted())") }
            }
            if let clause = `where` {
                for index in parameters.layerOptions.indices {
                    parameters.layerOptions[index].whereClause = clause
                    if parameters.layerOptions[index].queryOption == .all { parameters.layerOptions[index].queryOption = .useFilter }
                }
            }
            if noAttachments {
                parameters.returnAttachments = false
                parameters.attachmentsSyncDirection = .none
            }
            let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: out))
            let geodatabase = try await runJob(job, title: "create")
            defer { geodatabase.close() }
            try printStatus(geodatabase)
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Upload the file's local edits and download the server's changes.")

        @Argument(help: "The replica file.") var file: String
        @Option(name: .long, help: "bidirectional, upload or download.") var direction = "bidirectional"
        @Flag(name: .long, help: "Apply all edits or none (rollbackOnFailure).") var rollbackOnFailure = false
        @OptionGroup var connection: Connection

        func run() async throws {
            guard let syncDirection = SyncDirection(lenient: direction), syncDirection != .snapshot else {
                throw ValidationError("--direction: bidirectional, upload or download")
            }
            let geodatabase = try Geodatabase.open(file)
            defer { geodatabase.close() }
            let task = try makeTask(try geodatabase.info().serviceURL, connection)
            let job = task.makeSyncGeodatabaseJob(
                parameters: SyncGeodatabaseParameters(syncDirection: syncDirection, rollbackOnFailure: rollbackOnFailure),
                geodatabase: geodatabase)
            let result = try await runJob(job, title: "sync")
            print(
                "uploaded \(result.editsUploaded) edits, applied \(result.changesApplied) server changes"
                    + (result.changesDeferred > 0 ? ", kept \(result.changesDeferred) local edits made meanwhile" : ""))
            for failure in result.failedEdits { print("refused: \(failure)") }
            if !result.failedEdits.isEmpty { throw ExitCode(2) }
        }
    }

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a copied replica file as a replica of its own.")

        @Argument(help: "The replica file.") var file: String
        @OptionGroup var connection: Connection

        func run() async throws {
            let geodatabase = try Geodatabase.open(file)
            defer { geodatabase.close() }
            let task = try makeTask(try geodatabase.info().serviceURL, connection)
            let id = try await task.registerSyncEnabledGeodatabase(geodatabase)
            print("registered as replica \(id)")
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unregister the file's replica on the server (the file stays).")

        @Argument(help: "The replica file.") var file: String
        @OptionGroup var connection: Connection

        func run() async throws {
            let geodatabase = try Geodatabase.open(file)
            defer { geodatabase.close() }
            let info = try geodatabase.info()
            try await makeTask(info.serviceURL, connection).unregisterGeodatabase(geodatabase)
            print("unregistered replica \(info.replicaId)")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replica id, generations and pending local edits of a file.")

        @Argument(help: "The replica file.") var file: String

        func run() async throws {
            let geodatabase = try Geodatabase.open(file)
            defer { geodatabase.close() }
            try printStatus(geodatabase)
        }
    }
}

private func makeTask(_ url: String, _ connection: Replica.Connection) throws -> GeodatabaseSyncTask {
    guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https" else {
        throw ValidationError("not an http(s) FeatureServer URL: \(url)")
    }
    return GeodatabaseSyncTask(url: parsed, token: connection.token, retryWindow: .seconds(connection.retrySeconds))
}

private func parseExtent(_ text: String?) throws -> (Envelope?, Int) {
    guard let text else { return (nil, 4326) }
    let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard numbers.count == 4 || numbers.count == 5, numbers.allSatisfy({ $0 != nil }) else {
        throw ValidationError("--extent: xmin,ymin,xmax,ymax[,wkid]")
    }
    let v = numbers.map { $0! }
    guard v[0] < v[2], v[1] < v[3] else { throw ValidationError("--extent: xmin must be below xmax and ymin below ymax") }
    return (Envelope(xmin: v[0], ymin: v[1], xmax: v[2], ymax: v[3]), v.count == 5 ? Int(v[4]) : 4326)
}

private func printStatus(_ geodatabase: Geodatabase) throws {
    let info = try geodatabase.info()
    print("file:       \(geodatabase.path)")
    print("replica:    \(info.replicaId.isEmpty ? "(none: not registered)" : info.replicaId) \"\(info.replicaName)\"")
    print("service:    \(info.serviceURL)")
    print("sync model: \(info.syncModel.rawValue), replica generation \(info.replicaServerGen)")
    for table in try geodatabase.featureTables() {
        print("layer \(table.layerId) \(table.name): \(try geodatabase.count(table)) rows, generation \(table.serverGen)")
    }
    print("pending local edits: \(try geodatabase.localEditCount)")
}

/// `outpost conformance URL`: the sync scenario catalogue (docs/conformance.md) against any
/// FeatureServer; exits 1 when a scenario fails.
struct Conformance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check a FeatureServer's sync against the scenario catalogue (docs/conformance.md).")

    @Argument(help: "The FeatureServer URL.") var url: String
    @Option(name: .long, help: "A token for the server.") var token: String?
    @Option(name: .long, help: "Write a report: .json for JSON, anything else Markdown.") var report: String?
    @Option(name: .long, help: "The layer to test (default: the first layer).") var layer: Int?
    @Option(name: .long, help: "Run only scenarios whose id starts with this (repeatable).") var only: [String] = []

    func run() async throws {
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https" else {
            throw ValidationError("not an http(s) FeatureServer URL: \(url)")
        }
        let runner = ConformanceRunner(connection: ServiceConnection(serviceURL: parsed, token: token, retryWindow: .seconds(30)), layerId: layer)
        let result = try await runner.run(only: only) { entry in
            FileHandle.standardError.write(Data("\(entry.status.rawValue.uppercased()) \(entry.id)\n".utf8))
        }
        print(result.table)
        if let report {
            let data = report.hasSuffix(".json") ? try result.json() : Data(result.markdown.utf8)
            try data.write(to: URL(fileURLWithPath: report))
        }
        if !result.conforms { throw ExitCode(1) }
    }
}
