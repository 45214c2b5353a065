import Foundation
import OutpostClient
import OutpostStorage
import OutpostWire

/// An Outpost test target in the test's own process (docs/testing-your-app.md, "In your Swift
/// tests: OutpostTesting"): a server on a free loopback port over a temporary data folder, demo
/// data seeded, the control API (`/_outpost`) as typed calls. Plain async API: Swift Testing
/// and XCTest alike.
///
///     let server = try await OutpostTestServer.start(seed: 42)
///     defer { Task { await server.stop() } }
///     try await server.faults.inject(FaultRule(operation: "synchronizeReplica", error: .init(code: 500), count: 1))
public final class OutpostTestServer: Sendable {
    /// Where the store lives.
    public enum Backend: Sendable, Equatable {
        /// A SpatiaLite data folder (the temporary folder).
        case spatiaLite
        /// A PostgreSQL database (`postgres://user@host:port/db`); its files in the temporary folder.
        case postgres(String)
    }

    /// `http://127.0.0.1:PORT/arcgis`: where an ArcGIS client starts (`url/rest/services/…`, `url/sharing/rest`).
    public let url: URL
    public let port: Int
    /// The temporary data folder, removed by `stop()`.
    public let dataDirectory: String
    /// The admin whose token the control API is called with (token security only).
    public let adminName: String

    public var faults: Faults { Faults(control: control) }
    public var jobs: Jobs { Jobs(control: control) }
    public var clock: Clock { Clock(control: control) }
    public var journal: Journal { Journal(control: control) }
    public var snapshots: Snapshots { Snapshots(control: control) }

    let control: ControlConnection
    let running: RunningServer

    init(url: URL, port: Int, dataDirectory: String, adminName: String, control: ControlConnection, running: RunningServer) {
        self.url = url
        self.port = port
        self.dataDirectory = dataDirectory
        self.adminName = adminName
        self.control = control
        self.running = running
    }

    /// The URL of a FeatureServer (`Demo`, or `Folder/Name`).
    public func featureServer(_ service: String = "Demo") -> URL {
        url.appendingPathComponent("rest/services/\(service)/FeatureServer")
    }

    /// The portal's root (`…/arcgis`), as `MapAreaClient(base:)` takes it.
    public var portalBase: URL { url }

    /// Puts the whole state back as it was when the server started (`POST /_outpost/reset`).
    public func reset() async throws { _ = try await control.post("reset") }

    /// Adds a user of token security (fast password hashing: test users only).
    public func addUser(name: String, role: UserRole = .editor, password: String) throws {
        try running.addUser(name, role, password)
    }

    /// A token for `name` (`generateToken`, as an app signs in); `minutes` of life by the server's clock.
    public func token(for name: String, password: String, minutes: Int = 60) async throws -> String {
        let tokens = ServiceConnection(serviceURL: url.appendingPathComponent("tokens"), retryWindow: .seconds(5))
        let answer = try await tokens.postForm(
            tokens.url("generateToken"),
            [("username", name), ("password", password), ("client", "requestip"), ("expiration", String(minutes))])
        guard let token = answer["token"]?.stringValue else { throw ClientError.invalidResponse("generateToken answered no token") }
        return token
    }

    /// Stops the server (graceful shutdown: requests in flight are answered) and removes the data folder.
    public func stop() async {
        await running.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }
}
