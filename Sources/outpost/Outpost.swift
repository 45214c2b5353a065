import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OutpostServer
import OutpostStore
import OutpostSync

@main
struct Outpost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outpost",
        abstract: "A self-hosted ArcGIS Feature Service with offline sync.",
        subcommands: [Serve.self, Import.self, Replica.self, Replicas.self, Compact.self, Conformance.self, Users.self])
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the data folder over the ArcGIS REST API (seeding demo services into an empty folder).")

    @Option(name: .long, help: "The data folder.") var data = "./outpost-data"
    @Option(name: .long, help: "The address to listen on.") var host = "127.0.0.1"
    @Option(name: .long, help: "The port to listen on.") var port = 8080
    @Option(name: .long, help: "Where the demo data lives (default: ./testdata, or next to the executable).") var testdata: String?
    @Flag(name: .long, help: "Do not seed demo services into an empty data folder.") var noDemo = false
    @Option(name: .long, help: "Log level (trace, debug, info, notice, warning, error, critical).") var logLevel = "info"
    @Option(name: .long, help: "Serve HTTPS with this PEM certificate (chain).") var tlsCert: String?
    @Option(name: .long, help: "The PEM private key of --tls-cert.") var tlsKey: String?
    @Flag(name: .long, help: "Serve HTTPS with a self-signed certificate made at start-up (tests and local use).") var selfSigned = false
    @Option(name: .long, help: "The largest request body accepted, in megabytes.") var maxUploadMb = 512
    @Option(name: .long, help: "Minutes a replica result file stays downloadable after its last download.") var resultFileIdleMinutes = 10.0
    @Option(name: .long, help: "Asynchronous replica jobs running at once.") var maxJobs = 2
    @Option(name: .long, help: "The most feature and attachment edits one synchronizeReplica may carry.") var maxSyncEdits = SyncLimits.standard.maxEdits
    @Option(name: .long, help: "The largest attachment a synchronizeReplica may carry inline, in megabytes.")
    var maxSyncAttachmentMb = SyncLimits.standard.maxAttachmentBytes / (1024 * 1024)
    @Flag(name: .long, help: "Require a token of a user (`outpost users add`) on every service request.") var requireAuth = false
    @Option(name: .long, help: "Minutes a token lives unless the request asks for less.") var tokenMinutes = 60

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together.") }
        if selfSigned && tlsCert != nil { throw ValidationError("Give --self-signed or --tls-cert/--tls-key, not both.") }
        if maxUploadMb < 1 { throw ValidationError("--max-upload-mb must be at least 1.") }
        if resultFileIdleMinutes <= 0 { throw ValidationError("--result-file-idle-minutes must be positive.") }
        if maxJobs < 1 { throw ValidationError("--max-jobs must be at least 1.") }
        if maxSyncEdits < 1 { throw ValidationError("--max-sync-edits must be at least 1.") }
        if maxSyncAttachmentMb < 1 { throw ValidationError("--max-sync-attachment-mb must be at least 1.") }
        if tokenMinutes < 1 { throw ValidationError("--token-minutes must be at least 1.") }
    }

    func run() async throws {
        var logger = Logger(label: "outpost")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let store = try FeatureStore(dataDirectory: data)
        if !noDemo, store.catalog.services.isEmpty {
            let directory = try locateTestdata(testdata)
            let started = Date()
            try DemoData.seed(store, testdataDirectory: directory)
            logger.info("Seeded demo services \(DemoData.serviceNames.joined(separator: ", ")) from \(directory) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        }
        let limits = UploadLimits(maxBodyBytes: maxUploadMb * 1024 * 1024)
        var tls: TLSSetup?
        if let tlsCert, let tlsKey { tls = .files(certificate: tlsCert, privateKey: tlsKey) }
        if selfSigned { tls = .selfSigned(hostnames: [host]) }
        let scheme = tls == nil ? "http" : "https"
        let options = ServerOptions(limits: limits, resultFileIdleTime: resultFileIdleMinutes * 60, maximumConcurrentJobs: maxJobs, scheme: scheme,
                                    syncLimits: SyncLimits(maxEdits: maxSyncEdits, maxAttachmentBytes: maxSyncAttachmentMb * 1024 * 1024),
                                    requireAuth: requireAuth, tokenMinutes: tokenMinutes, maximumTokenMinutes: max(tokenMinutes, 1440))
        if requireAuth, try !store.hasUsers {
            logger.warning("--require-auth with no users: every service request will be refused; add one with `outpost users add`")
        }
        logger.info("Outpost serving \(store.path) (\(store.libraryVersions)) at \(scheme)://\(host):\(port)/arcgis/rest/services")
        if let tls {
            try await buildTLSApplication(store: store, host: host, port: port, tls: tls, options: options, logger: logger).runService()
        } else {
            try await buildApplication(store: store, host: host, port: port, options: options, logger: logger).runService()
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a GeoJSON (.geojson, .json) or GeoPackage (.gpkg) file as a new service.")

    @Argument(help: "The file to import.") var file: String
    @Option(name: .long, help: "The new service's name (letters, digits, '_' and '-').") var service: String
    @Flag(name: .long, help: "Mark the service versioned (per-replica sync with direction control).") var versioned = false
    @Flag(name: .long, help: "Give the imported feature layers attachment tables.") var attachments = false
    @Option(name: .long, help: "The layer name (GeoJSON; default: the file name).") var layerName: String?
    @Option(name: .long, help: "Features per query page.") var maxRecordCount = 2000
    @Option(name: .long, help: "The service's capabilities, comma-separated (default: Create,Delete,Query,Update,Editing,Sync,Uploads).")
    var capabilities: String?
    @Option(name: .long, help: "The data folder.") var data = "./outpost-data"

    func run() async throws {
        let store = try FeatureStore(dataDirectory: data)
        var options = FeatureImporter.Options(serviceName: service, isVersioned: versioned, layerName: layerName)
        if let capabilities {
            options.capabilities = capabilities.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        options.hasAttachments = attachments
        options.maxRecordCount = maxRecordCount
        let started = Date()
        let imported = try FeatureImporter(store: store).importFile(at: file, options: options)
        let elapsed = Date().timeIntervalSince(started)
        for layer in imported.layers {
            let count = try store.count(service: imported.definition.name, layer: layer.definition.id)
            print("\(imported.definition.name)/FeatureServer/\(layer.definition.id) \(layer.definition.name): \(count) rows")
        }
        print(String(format: "Imported in %.2f s", elapsed))
    }
}

func locateTestdata(_ explicit: String?) throws -> String {
    var candidates: [String] = []
    if let explicit { candidates.append(explicit) }
    candidates.append("testdata")
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    for _ in 0..<5 {
        candidates.append(directory.appendingPathComponent("testdata").path)
        directory = directory.deletingLastPathComponent()
    }
    for candidate in candidates where FileManager.default.fileExists(atPath: (candidate as NSString).appendingPathComponent("naturalearth_cities.geojson")) {
        return candidate
    }
    throw ValidationError("Demo data not found; pass --testdata DIR or --no-demo.")
}

/// `outpost users add|list|remove`: who may use a server started with `--require-auth`.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage the users of token security (serve --require-auth).",
                                                    subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user. The password is read from OUTPOST_PASSWORD, or from standard input with --password-stdin.")
        @Argument(help: "The user name.") var name: String
        @Option(name: .long, help: "admin, editor or viewer.") var role: String
        @Flag(name: .long, help: "Read the password from standard input (one line).") var passwordStdin = false
        @Option(name: .long, help: "The data folder.") var data = "./outpost-data"

        func run() async throws {
            guard let userRole = UserRole(rawValue: role.lowercased()) else { throw ValidationError("--role: admin, editor or viewer") }
            let password: String?
            if passwordStdin {
                password = readLine(strippingNewline: true)
            } else {
                password = ProcessInfo.processInfo.environment["OUTPOST_PASSWORD"]
            }
            guard let password, !password.isEmpty else {
                throw ValidationError("no password: set OUTPOST_PASSWORD or pass --password-stdin")
            }
            let store = try FeatureStore(dataDirectory: data)
            do {
                try store.addUser(name, role: userRole, password: password)
            } catch let failure as FeatureStore.UserFailure {
                throw ValidationError(failure.description)
            }
            print("added \(userRole.rawValue) \(name)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users and their roles.")
        @Option(name: .long, help: "The data folder.") var data = "./outpost-data"

        func run() async throws {
            for user in try FeatureStore(dataDirectory: data).users() { print("\(user.name)\t\(user.role.rawValue)") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user (and their tokens).")
        @Argument(help: "The user name.") var name: String
        @Option(name: .long, help: "The data folder.") var data = "./outpost-data"

        func run() async throws {
            do {
                try FeatureStore(dataDirectory: data).removeUser(name)
            } catch let failure as FeatureStore.UserFailure {
                throw ValidationError(failure.description)
            }
            print("removed \(name)")
        }
    }
}

