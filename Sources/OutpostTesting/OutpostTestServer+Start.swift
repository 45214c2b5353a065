import Foundation
import Hummingbird
import Logging
import OutpostClient
import OutpostDataTools
import OutpostPostgres
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import ServiceLifecycle

extension OutpostTestServer {
    /// Starts a test target on a free loopback port (`--port 0`).
    ///
    /// - `seed`: fault probabilities drawn from it; with `reproducibleIdentifiers`, GlobalIDs,
    ///   replica, job and item ids too (process-wide: one such server at a time in a process).
    /// - `demo`: the demo services seeded (from `testdata`, `OUTPOST_TESTDATA`, or this
    ///   package's own `testdata` folder).
    /// - `requireAuth`: token security; the control API is then called as an admin the server
    ///   is started with (`adminName`), and `addUser`/`token(for:)` make the app's users.
    /// - `configure`: any other `ServerOptions` (token minutes, job limits, …).
    public static func start(
        seed: UInt64? = nil, demo: Bool = true, backend: Backend = .spatiaLite, requireAuth: Bool = false,
        reproducibleIdentifiers: Bool = false, testdata: String? = nil, logLevel: Logger.Level = .warning,
        configure: @Sendable (inout ServerOptions) -> Void = { _ in }
    ) async throws -> OutpostTestServer {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("outpost-test-server-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let target = TestTarget(seed: seed, seedsIdentifiers: reproducibleIdentifiers)
            switch backend {
            case .spatiaLite:
                let store = try SpatiaLiteBackend(dataDirectory: directory, clock: target.clock)
                return try await start(
                    store, directory: directory, target: target, demo: demo, requireAuth: requireAuth, testdata: testdata, logLevel: logLevel,
                    configure: configure, close: {})
            case .postgres(let url):
                let store = try PostgresBackend(try PostgresLocation(url), dataDirectory: directory, maximumConnections: 12, clock: target.clock)
                do {
                    return try await start(
                        store, directory: directory, target: target, demo: demo, requireAuth: requireAuth, testdata: testdata, logLevel: logLevel,
                        configure: configure, close: { store.close() })
                } catch {
                    // A start that failed (a seed, a snapshot) leaves no connection open behind it.
                    store.close()
                    throw error
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    private static func start<Store: OutpostBackend>(
        _ store: Store, directory: String, target: TestTarget, demo: Bool, requireAuth: Bool, testdata: String?,
        logLevel: Logger.Level, configure: (inout ServerOptions) -> Void, close: @escaping @Sendable () -> Void
    ) async throws -> OutpostTestServer {
        var logger = Logger(label: "outpost-test-server")
        logger.logLevel = logLevel
        try DemoData.seedIfNew(store, seeding: demo, testdataDirectory: try locateTestdata(testdata))
        // Test users hash their passwords quickly: a test signs in many times.
        let addUser: @Sendable (String, UserRole, String) throws -> Void = { name, role, password in
            try store.users.addUser(name, role: role, password: password, rounds: 1_000)
        }
        let admin = "outpost-test-admin"
        let adminPassword = UUID().uuidString
        if requireAuth { try addUser(admin, .admin, adminPassword) }

        var options = ServerOptions(requireAuth: requireAuth)
        configure(&options)
        options.testTarget = target
        let (ports, portReached) = AsyncStream.makeStream(of: Int.self)
        options.onServerRunning = { port in portReached.yield(port) }
        let application = buildApplication(store: store, host: "127.0.0.1", port: 0, options: options, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portReached.finish() }
            try await group.run()
        }
        let running = RunningServer(group: group, task: task, addUser: addUser, closeStore: close)
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            await running.stop()
            try await task.value
            throw ClientError.network("the test server stopped before it listened")
        }
        let url = URL(string: "http://127.0.0.1:\(port)/arcgis")!
        let control = ControlConnection(root: URL(string: "http://127.0.0.1:\(port)/_outpost")!, admin: requireAuth ? (admin, adminPassword) : nil)
        return OutpostTestServer(url: url, port: port, dataDirectory: directory, adminName: admin, control: control, running: running)
    }

    /// The demo's test data: given, `OUTPOST_TESTDATA`, or this package's `testdata` folder.
    static func locateTestdata(_ given: String?) throws -> String {
        var candidates = [given, ProcessInfo.processInfo.environment["OUTPOST_TESTDATA"]].compactMap { $0 }
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { source.deleteLastPathComponent() }
        candidates.append(source.appendingPathComponent("testdata").path)
        for candidate in candidates
        where FileManager.default.fileExists(atPath: (candidate as NSString).appendingPathComponent("naturalearth_cities.geojson")) {
            return candidate
        }
        throw ClientError.unsupported(
            "the demo's test data was not found (looked in \(candidates.joined(separator: ", "))); pass testdata: or demo: false")
    }
}
