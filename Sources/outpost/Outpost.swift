import ArgumentParser
import Foundation
import Hummingbird
import Logging
import OutpostDataTools
import OutpostObjectStorage
import OutpostPostgres
import OutpostServer
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTilePackage
import OutpostWire

@main
struct Outpost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outpost",
        abstract: "A self-hosted ArcGIS Feature Service with offline sync.",
        subcommands: [
            Serve.self, Import.self, Export.self, Replica.self, Replicas.self, Compact.self, Conformance.self, Users.self, WebMap.self, Areas.self,
            OfflineMap.self, MigrateToPostgres.self, Migrate.self, Backup.self, Restore.self, TestTargetCommands.self, Locator.self, Network.self,
        ])
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the data folder over the ArcGIS REST API (seeding demo services into an empty folder).",
        discussion: """
            Every option can also come from the environment (OUTPOST_<OPTION>, e.g. OUTPOST_PORT=9000) or a JSON \
            config file (--config or OUTPOST_CONFIG; keys as the options: {"port": 9000}). The command line wins, \
            then the environment, then the file. See docs/configuration.md.
            """)

    @Option(name: .long, help: "A JSON config file (keys as these options).") var config: String?
    @Option(name: .long, help: "The data folder (default ./outpost-data); with --database, the folder for files every process shares.")
    var data: String?
    @Option(
        name: .long,
        help: "Keep the data in PostgreSQL + PostGIS instead of SpatiaLite: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (docs/postgres.md).")
    var database: String?
    @Option(
        name: .long,
        help:
            "With --database: keep attachments, uploads and result files in this S3-compatible bucket, http[s]://[KEY:SECRET@]HOST[:PORT]/BUCKET[?region=R] (credentials also from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), so processes need no shared folder."
    )
    var objectStore: String?
    @Option(name: .long, help: "The address to listen on (default 127.0.0.1).") var host: String?
    @Option(name: .long, help: "The port to listen on (default 8080).") var port: Int?
    @Option(name: .long, help: "Where the demo data lives (default: ./testdata, or next to the executable).") var testdata: String?
    @Flag(name: .long, inversion: .prefixedNo, help: "Seed demo services into an empty data folder (default on).") var demo: Bool?
    @Option(name: .long, help: "Log level: trace, debug, info (default; one line per request), notice, warning, error, critical.") var logLevel:
        String?
    @Option(name: .long, help: "Log lines as text (default) or json (one object per line).") var logFormat: String?
    @Option(name: .long, help: "Serve HTTPS with this PEM certificate (chain).") var tlsCert: String?
    @Option(name: .long, help: "The PEM private key of --tls-cert.") var tlsKey: String?
    @Flag(name: .long, inversion: .prefixedNo, help: "Serve HTTPS with a self-signed certificate made at start-up (tests and local use).")
    var selfSigned: Bool?
    @Option(name: .long, help: "The largest request body accepted, in megabytes (default 512).") var maxUploadMb: Int?
    @Option(name: .long, help: "Minutes a replica result file stays downloadable after its last download (default 10).") var resultFileIdleMinutes:
        Double?
    @Option(name: .long, help: "Asynchronous replica jobs running at once (default 2).") var maxJobs: Int?
    @Option(name: .long, help: "Asynchronous jobs waiting for a slot before new ones are refused with 429 (default 32).") var maxQueuedJobs: Int?
    @Option(name: .long, help: "Asynchronous jobs one user (or one address, without token security) may have running or waiting (default 4).")
    var maxJobsPerUser: Int?
    @Option(
        name: .long, help: "Seconds a connection may send nothing (while its request is read, or between requests) before it is closed (default 30).")
    var idleTimeoutSeconds: Int?
    @Option(name: .long, help: "The most feature and attachment edits one synchronizeReplica may carry (default \(SyncLimits.standard.maxEdits)).")
    var maxSyncEdits: Int?
    @Option(name: .long, help: "The largest attachment a synchronizeReplica may carry inline, in megabytes (default 64).") var maxSyncAttachmentMb:
        Int?
    @Flag(name: .long, inversion: .prefixedNo, help: "Require a token of a user (`outpost users add`) on every service request (default off).")
    var requireAuth: Bool?
    @Option(name: .long, help: "Minutes a token lives unless the request asks for less (default 60).") var tokenMinutes: Int?
    @Option(name: .long, help: "The most tiles one exportTiles may take (maxExportTilesCount, default 100000).") var maxExportTiles: Int?
    @Option(name: .long, help: "Map areas per web map (maxMapAreaItemsLimit, default 16).") var maxMapAreas: Int?
    @Option(name: .long, help: "MiB of exports and replica files one user may hold before new ones are refused with 429 (default 2048; 0: no quota).")
    var maxResultMbPerUser: Int?
    @Option(
        name: .long, help: "MiB of portal item data and resources one user may hold before more is refused with 413 (default 10240; 0: no quota).")
    var maxItemMbPerUser: Int?
    @Option(
        name: .long,
        help:
            "Web pages that may read the answers (CORS): * (default) or origins, comma-separated, e.g. https://app.example.com,http://localhost:3000."
    )
    var allowedOrigins: String?
    @Option(
        name: .long,
        help:
            "The address clients reach this server at (e.g. https://gis.example.org behind a proxy): every URL Outpost writes names it, whatever Host a request names (default: each request's Host)."
    )
    var publicUrl: String?
    @OptionGroup var oidcOptions: OIDCOptions
    @OptionGroup var testTargetOptions: TestTargetOptions
    @OptionGroup var backupOptions: BackupDirOptions

    /// The effective settings, each from the first layer that has it.
    struct Settings {
        var data, host, logLevel, logFormat, allowedOrigins: String
        var port, maxUploadMb, maxJobs, maxQueuedJobs, maxJobsPerUser, idleTimeoutSeconds, maxSyncEdits, maxSyncAttachmentMb, tokenMinutes,
            maxExportTiles, maxMapAreas, maxResultMbPerUser, maxItemMbPerUser: Int
        var testdata, tlsCert, tlsKey, database, objectStore, publicUrl: String?
        var demo, selfSigned, requireAuth: Bool
        var resultFileIdleMinutes: Double
        var oidc: OIDCSettings?
        var testTarget = TestTargetOptions.Resolved(testTarget: false)
        var backups = BackupDirOptions.Resolved()
        var summary: String
    }

    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Settings {
        var layers = try LayeredSettings(configFile: config, environment: environment)
        let s = Settings(
            data: try layers.string("data", data, default: StoreLocation.defaultData),
            host: try layers.string("host", host, default: "127.0.0.1"),
            logLevel: try layers.string("log-level", logLevel, default: "info"),
            logFormat: try layers.string("log-format", logFormat, default: "text"),
            allowedOrigins: try layers.string("allowed-origins", allowedOrigins, default: "*"),
            port: try layers.int("port", port, default: 8080),
            maxUploadMb: try layers.int("max-upload-mb", maxUploadMb, default: 512),
            maxJobs: try layers.int("max-jobs", maxJobs, default: 2),
            maxQueuedJobs: try layers.int("max-queued-jobs", maxQueuedJobs, default: 32),
            maxJobsPerUser: try layers.int("max-jobs-per-user", maxJobsPerUser, default: 4),
            idleTimeoutSeconds: try layers.int("idle-timeout-seconds", idleTimeoutSeconds, default: 30),
            maxSyncEdits: try layers.int("max-sync-edits", maxSyncEdits, default: SyncLimits.standard.maxEdits),
            maxSyncAttachmentMb: try layers.int(
                "max-sync-attachment-mb", maxSyncAttachmentMb, default: SyncLimits.standard.maxAttachmentBytes / (1024 * 1024)),
            tokenMinutes: try layers.int("token-minutes", tokenMinutes, default: 60),
            maxExportTiles: try layers.int("max-export-tiles", maxExportTiles, default: TileServiceInfo.maxExportTilesCount),
            maxMapAreas: try layers.int("max-map-areas", maxMapAreas, default: MapAreaPlanner.defaultAreaLimit),
            maxResultMbPerUser: try layers.int("max-result-mb-per-user", maxResultMbPerUser, default: 2048),
            maxItemMbPerUser: try layers.int("max-item-mb-per-user", maxItemMbPerUser, default: 10240),
            testdata: try layers.optionalString("testdata", testdata),
            tlsCert: try layers.optionalString("tls-cert", tlsCert),
            tlsKey: try layers.optionalString("tls-key", tlsKey),
            database: try layers.optionalString("database", database),
            objectStore: try layers.optionalString("object-store", objectStore),
            publicUrl: try layers.optionalString("public-url", publicUrl),
            demo: try layers.bool("demo", demo, default: true),
            selfSigned: try layers.bool("self-signed", selfSigned, default: false),
            requireAuth: try layers.bool("require-auth", requireAuth, default: false),
            resultFileIdleMinutes: try layers.double("result-file-idle-minutes", resultFileIdleMinutes, default: 10),
            summary: "")
        var settings = s
        settings.oidc = try oidcOptions.resolve(&layers)
        settings.testTarget = try testTargetOptions.resolve(&layers)
        settings.backups = try backupOptions.resolve(&layers)
        settings.summary = layers.summary
        if settings.objectStore != nil && settings.database == nil {
            throw ValidationError("object-store goes with database: a SpatiaLite data folder keeps its own files.")
        }
        if (settings.tlsCert == nil) != (settings.tlsKey == nil) { throw ValidationError("tls-cert and tls-key go together.") }
        if settings.selfSigned && settings.tlsCert != nil { throw ValidationError("Give self-signed or tls-cert/tls-key, not both.") }
        if !(0...65535).contains(settings.port) { throw ValidationError("port must be between 0 (any free port) and 65535.") }
        if settings.maxUploadMb < 1 { throw ValidationError("max-upload-mb must be at least 1.") }
        if settings.resultFileIdleMinutes <= 0 { throw ValidationError("result-file-idle-minutes must be positive.") }
        if settings.maxJobs < 1 { throw ValidationError("max-jobs must be at least 1.") }
        if settings.maxQueuedJobs < 0 { throw ValidationError("max-queued-jobs must not be negative.") }
        if settings.maxJobsPerUser < 1 { throw ValidationError("max-jobs-per-user must be at least 1.") }
        if settings.idleTimeoutSeconds < 1 { throw ValidationError("idle-timeout-seconds must be at least 1.") }
        if settings.maxSyncEdits < 1 { throw ValidationError("max-sync-edits must be at least 1.") }
        if settings.maxSyncAttachmentMb < 1 { throw ValidationError("max-sync-attachment-mb must be at least 1.") }
        if settings.tokenMinutes < 1 { throw ValidationError("token-minutes must be at least 1.") }
        if settings.maxExportTiles < 1 { throw ValidationError("max-export-tiles must be at least 1.") }
        if settings.maxMapAreas < 1 { throw ValidationError("max-map-areas must be at least 1.") }
        if settings.maxResultMbPerUser < 0 { throw ValidationError("max-result-mb-per-user must not be negative.") }
        if settings.maxItemMbPerUser < 0 { throw ValidationError("max-item-mb-per-user must not be negative.") }
        if let url = settings.publicUrl, ServerOrigin.publicURL(url) == nil {
            throw ValidationError("public-url must be http(s)://host[:port], optionally ending in /arcgis; got '\(url)'.")
        }
        guard CrossOriginPolicy(allowedOrigins: settings.allowedOrigins) != nil else {
            throw ValidationError(
                "allowed-origins must be * or origins such as https://app.example.com, comma-separated; got '\(settings.allowedOrigins)'.")
        }
        guard ["text", "json"].contains(settings.logFormat) else {
            throw ValidationError("log-format must be text or json, got '\(settings.logFormat)'.")
        }
        guard Logger.Level(rawValue: settings.logLevel) != nil else {
            throw ValidationError("log-level '\(settings.logLevel)' is not one of trace, debug, info, notice, warning, error, critical.")
        }
        return settings
    }

    func run() async throws {
        let settings: Settings
        do { settings = try self.settings() } catch let error as ValidationError { throw ValidationError(error.message) }
        var logger =
            settings.logFormat == "json"
            ? Logger(label: "outpost", factory: { JSONLogHandler(label: $0) }) : Logger(label: "outpost", factory: { TextLogHandler(label: $0) })
        logger.logLevel = Logger.Level(rawValue: settings.logLevel) ?? .info
        logger.info("Configuration: \(settings.summary)")
        if !JobThreads.size(runningJobs: settings.maxJobs) { logger.warning("The jobs' threads started before --max-jobs sized them.") }
        // A test target's clock can be moved; every part of the store reads it.
        let target = settings.testTarget.testTarget ? TestTarget(seed: settings.testTarget.seed, seedsIdentifiers: true) : nil
        let clock: any WallClock = target?.clock ?? SystemClock()
        if let database = settings.database {
            let location: PostgresLocation
            do { location = try PostgresLocation(database) } catch { throw ValidationError("database: \(error)") }
            // One connection per request being answered at once, and some for jobs.
            let bucket = try bucket(settings.objectStore, option: "object-store")
            let store = try PostgresBackend(
                location, dataDirectory: settings.data, objectStore: bucket, maximumConnections: 16 + settings.maxJobs, clock: clock)
            defer { store.close() }
            // Processes starting together on an empty database: one seeds, the others then find it seeded.
            if settings.demo { try store.exclusively("outpost demo seed") { try seedDemo(store, settings, logger) } }
            let files = try settings.objectStore.map { try S3Location($0).redactedDescription }.map {
                "files in \($0), this process's own in \(settings.data)"
            }
            try await serve(
                store, describedAs: "\(location.redactedDescription) (PostgreSQL) with \(files ?? "files in \(settings.data)")", settings, logger,
                testTarget: target)
        } else {
            let store = try SpatiaLiteBackend(dataDirectory: settings.data, clock: clock)
            try await serve(store, describedAs: "\(store.path) (\(store.libraryVersions))", settings, logger, testTarget: target)
        }
    }

    /// Seeds the demo services into a new store (`DemoData.seedIfNew`).
    func seedDemo(_ store: some OutpostBackend, _ settings: Settings, _ logger: Logger) throws {
        let started = Date()
        var directory = ""
        let seeded = try DemoData.seedIfNew(
            store, seeding: settings.demo,
            testdataDirectory: try { () throws -> String in
                directory = try locateTestdata(settings.testdata)
                return directory
            }())
        if seeded {
            let names = try store.catalog().services.map(\.definition.name).joined(separator: ", ")
            logger.info("Seeded demo services \(names) from \(directory) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        }
    }

    func serve(
        _ store: some OutpostBackend, describedAs description: String, _ settings: Settings, _ logger: Logger, testTarget: TestTarget? = nil
    ) async throws {
        try seedDemo(store, settings, logger)
        if let folder = settings.testTarget.seedData { try TestTargetSeeding.restore(folder, into: store, logger: logger) }
        let limits = UploadLimits(maxBodyBytes: settings.maxUploadMb * 1024 * 1024)
        var tls: TLSSetup?
        if let tlsCert = settings.tlsCert, let tlsKey = settings.tlsKey { tls = .files(certificate: tlsCert, privateKey: tlsKey) }
        if settings.selfSigned { tls = .selfSigned(hostnames: [settings.host]) }
        let scheme = tls == nil ? "http" : "https"
        var options = ServerOptions(
            limits: limits, resultFileIdleTime: settings.resultFileIdleMinutes * 60, maximumConcurrentJobs: settings.maxJobs,
            scheme: scheme,
            syncLimits: SyncLimits(maxEdits: settings.maxSyncEdits, maxAttachmentBytes: settings.maxSyncAttachmentMb * 1024 * 1024),
            requireAuth: settings.requireAuth, tokenMinutes: settings.tokenMinutes,
            maximumTokenMinutes: max(settings.tokenMinutes, 1440),
            jobLimits: JobLimits(running: settings.maxJobs, queued: settings.maxQueuedJobs, perUser: settings.maxJobsPerUser),
            idleTimeout: TimeInterval(settings.idleTimeoutSeconds), maxExportTiles: settings.maxExportTiles,
            maxMapAreas: settings.maxMapAreas, resultQuotaBytes: Int64(settings.maxResultMbPerUser) << 20,
            itemQuotaBytes: Int64(settings.maxItemMbPerUser) << 20,
            crossOrigin: CrossOriginPolicy(allowedOrigins: settings.allowedOrigins) ?? .anyOrigin,
            publicURL: settings.publicUrl.flatMap(ServerOrigin.publicURL))
        options.oidc = settings.oidc
        options.testTarget = testTarget
        options.backups = BackupDirOptions.backups(settings.backups, data: settings.data, database: settings.database, clock: store.clock)
        let readyFile = settings.testTarget.readyFile
        options.onServerRunning = { port in
            let url = "\(scheme)://\(settings.host):\(port)"
            if testTarget != nil { TestTargetOptions.warn(logger, at: url, seed: testTarget?.seed) }
            guard let readyFile else { return }
            do { try TestTargetOptions.writeReadyFile(readyFile, url: url) } catch {
                logger.error("cannot write the ready file \(readyFile): \(error)")
            }
        }
        if settings.requireAuth, try !store.users.hasUsers {
            logger.warning("require-auth with no users: every service request will be refused; add one with `outpost users add`")
        }
        logger.info("Outpost serving \(description) at \(scheme)://\(settings.host):\(settings.port)/arcgis/rest/services")
        if let tls {
            try await buildTLSApplication(store: store, host: settings.host, port: settings.port, tls: tls, options: options, logger: logger)
                .runService()
        } else {
            try await buildApplication(store: store, host: settings.host, port: settings.port, options: options, logger: logger).runService()
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Import a GeoJSON (.geojson, .json) or GeoPackage (.gpkg) file, or any vector source GDAL reads (File Geodatabase, Shapefile, CSV, KML, GPX, PG:…, through ogr2ogr), as a new feature service; an MBTiles file (.mbtiles) as a tile service."
    )

    @Argument(help: "The file, folder (a .gdb) or GDAL connection string (PG:…) to import.") var file: String
    @Option(name: .long, help: "The new service's name (letters, digits, '_' and '-'), optionally in a folder: Folder/Name.") var service: String
    @Flag(name: .long, help: "Mark the service versioned (per-replica sync with direction control).") var versioned = false
    @Flag(name: .long, help: "Give the imported feature layers attachment tables.") var attachments = false
    @Option(name: .long, help: "The layer name (GeoJSON; default: the file name).") var layerName: String?
    @Option(name: .long, help: "The tile table of a GeoPackage to serve as a tile service (default: its only one, when it holds no features).")
    var table: String?
    @Option(name: .long, help: "A vector tile set's style resources: a folder with styles/root.json, sprites/ and fonts/.")
    var styleResources: String?
    @Option(name: .long, help: "Features per query page.") var maxRecordCount = 2000
    @Option(name: .long, help: "Reproject a GDAL source to this EPSG code (default: keep its spatial reference).") var srs: Int?
    @Option(name: .long, help: "The service's capabilities, comma-separated (default: Create,Delete,Query,Update,Editing,Sync,Uploads).")
    var capabilities: String?
    @OptionGroup var location: StoreLocation

    func run() async throws {
        if let backend = try location.postgres() {
            defer { backend.close() }
            try await run(into: backend)
        } else {
            try await run(into: try SpatiaLiteBackend(dataDirectory: location.data))
        }
    }

    func run(into store: some OutpostBackend) async throws {
        if file.lowercased().hasSuffix(".mbtiles") {
            try addTileSet(store, mbtiles: file)
            return
        }
        // A GeoPackage of tiles only (or a tile table named) is a tile service.
        if file.lowercased().hasSuffix(".gpkg"), try table != nil || GeoPackageTileImport.holdsOnlyTiles(file) {
            try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
            let converted = (store.temporaryDirectory as NSString).appendingPathComponent("import-\(UUID().uuidString).mbtiles")
            defer { try? FileManager.default.removeItem(atPath: converted) }
            do {
                let copied = try GeoPackageTileImport.convert(geopackage: file, table: table, to: converted)
                print("Tiles of \(copied):")
            } catch let failure as GeoPackageTileFailure {
                throw ValidationError(failure.description)
            }
            try addTileSet(store, mbtiles: converted)
            return
        }
        var options = FeatureImportOptions(serviceName: service, isVersioned: versioned, layerName: layerName)
        if let capabilities {
            options.capabilities = capabilities.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        options.hasAttachments = attachments
        options.maxRecordCount = maxRecordCount
        options.srs = srs
        options.scratchDirectory = store.temporaryDirectory
        options.warn = { FileHandle.standardError.write(Data("warning: \($0)\n".utf8)) }
        if isatty(STDOUT_FILENO) != 0 { options.progress = ImportProgressBar.draw }
        let started = Date()
        let imported = try await FeatureImporter(store: store).importFile(at: file, options: options)
        let elapsed = Date().timeIntervalSince(started)
        for layer in imported.layers {
            let count = try store.features.count(service: imported.definition.name, layer: layer.definition.id)
            print("\(imported.definition.name)/FeatureServer/\(layer.definition.id) \(layer.definition.name): \(count) rows")
        }
        print(String(format: "Imported in %.2f s", elapsed))
    }

    private func addTileSet(_ store: some OutpostBackend, mbtiles: String) throws {
        do {
            let set = try store.tiles.addTileSet(mbtiles: mbtiles, name: service, description: nil, styleResources: styleResources)
            print("\(set.name)/\(set.kind.serviceKind): \(set.format) tiles, levels \(set.minZoom) to \(set.maxZoom)")
            if styleResources != nil { print("Style resources kept: styles, sprites and fonts as given") }
        } catch let failure as TileSetFailure {
            throw ValidationError(failure.description)
        }
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
    for candidate in candidates
    where FileManager.default.fileExists(atPath: (candidate as NSString).appendingPathComponent("naturalearth_cities.geojson")) {
        return candidate
    }
    throw ValidationError("Demo data not found; pass --testdata DIR or --no-demo.")
}

/// `outpost users add|list|remove`: who may use a server started with `--require-auth`.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the users of token security (serve --require-auth).",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user. The password is read from OUTPOST_PASSWORD, or from standard input with --password-stdin.")
        @Argument(help: "The user name.") var name: String
        @Option(name: .long, help: "admin, editor or viewer.") var role: String
        @Flag(name: .long, help: "Read the password from standard input (one line).") var passwordStdin = false
        @OptionGroup var location: StoreLocation

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
            let users = try location.users()
            do {
                try users.addUser(name, role: userRole, password: password)
            } catch let failure as UserFailure {
                throw ValidationError(failure.description)
            }
            print("added \(userRole.rawValue) \(name)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users and their roles.")
        @OptionGroup var location: StoreLocation

        func run() async throws {
            for user in try location.users().users() { print("\(user.name)\t\(user.role.rawValue)") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user (and their tokens).")
        @Argument(help: "The user name.") var name: String
        @OptionGroup var location: StoreLocation

        func run() async throws {
            do {
                try location.users().removeUser(name)
            } catch let failure as UserFailure {
                throw ValidationError(failure.description)
            }
            print("removed \(name)")
        }
    }
}
