import Foundation
import OutpostClient
import OutpostTestSupport
import OutpostTesting
import OutpostWire
import Testing

/// `OutpostTestServer` itself: a server on a free port over a temporary folder, removed at stop.
@Suite struct TestServerTests {
    @Test func startsOnAFreePortServesTheDemoAndRemovesItsFolder() async throws {
        let server = try await OutpostTestServer.start(seed: 42)
        #expect(server.port > 0 && server.url.absoluteString == "http://127.0.0.1:\(server.port)/arcgis")
        let demo = ServiceConnection(serviceURL: server.featureServer())
        let info = try await demo.getJSON(demo.url(""))
        #expect(info["layers"]?.arrayValue?.isEmpty == false, "\(info)")
        let before = try await server.clock.reading()
        let after = try await server.clock.advance(by: .hours(25))
        #expect(after.offsetMilliseconds - before.offsetMilliseconds == 25 * 3_600_000)
        #expect(FileManager.default.fileExists(atPath: server.dataDirectory))
        await server.stop()
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory))
        await #expect(throws: (any Error).self) {
            _ = try await ServiceConnection(serviceURL: server.featureServer(), retryWindow: .zero).getJSON(demo.url(""))
        }
    }

    /// Someone adds a tree online; its GlobalID.
    static func addTree(_ service: ServiceConnection, _ species: String) async throws -> String {
        let answer = try await service.postForm(
            service.url("2/applyEdits"),
            [("adds", #"[{"attributes":{"species":"\#(species)"},"geometry":{"x":13.23,"y":52.43,"spatialReference":{"wkid":4326}}}]"#)])
        return try #require(answer["addResults"]?[0]?["globalId"]?.stringValue, "\(answer)")
    }

    /// Snapshots put the state back; `reset()` back to the start; the journal sees the requests.
    static func snapshotsAndReset(_ server: OutpostTestServer) async throws {
        let service = ServiceConnection(serviceURL: server.featureServer())
        try await server.snapshots.save("before")
        let tree = try await Self.addTree(service, "Snapshot oak")
        #expect(try await Recipe.serverTree(service, tree) != nil)
        try await server.snapshots.restore("before")
        #expect(try await Recipe.serverTree(service, tree) == nil, "restored to before the tree")
        let again = try await Self.addTree(service, "Reset oak")
        try await server.reset()
        #expect(try await Recipe.serverTree(service, again) == nil, "reset to the start")
        #expect(try await server.snapshots.list().map(\.name).contains("before"))
        let verified = try await server.journal.verify(.init(operation: "applyEdits", method: "POST"), .atLeast(2))
        #expect(verified.success && verified.matched >= 2, "\(verified)")
    }

    @Test func snapshotsAndResetPutTheStateBack() async throws {
        let server = try await OutpostTestServer.start(seed: 7)
        try await Self.snapshotsAndReset(server)
        await server.stop()
    }

    /// Under token security the control API is called as the server's admin, signing in again
    /// once a moved clock has expired that token; the app's users are made and signed in.
    @Test func underTokenSecurityTheControlAPIOutlivesItsToken() async throws {
        let server = try await OutpostTestServer.start(requireAuth: true)
        let anonymous = ServiceConnection(serviceURL: server.featureServer(), retryWindow: .zero)
        await #expect(throws: ClientError.self) { _ = try await anonymous.getJSON(anonymous.url("")) }
        try server.addUser(name: "field", role: .editor, password: "field-worker-password-1")
        let token = try await server.token(for: "field", password: "field-worker-password-1")
        let signedIn = ServiceConnection(serviceURL: server.featureServer(), token: token)
        #expect(try await signedIn.getJSON(signedIn.url(""))["layers"] != nil)
        try await server.clock.advance(by: .days(2))
        #expect(try await server.faults.list().isEmpty, "the admin signed in again")
        await #expect(throws: ClientError.self) { _ = try await signedIn.getJSON(signedIn.url("")) }
        await server.stop()
    }

    /// The same over PostgreSQL (`OUTPOST_TEST_POSTGRES`): a database of its own.
    @Test func runsOverPostgreSQL() async throws {
        let location = try TestPostgres.makeDatabase(label: "testing")
        let url = "postgres://\(location.username)@\(location.host):\(location.port)/\(location.database)"
        let server = try await OutpostTestServer.start(seed: 42, backend: .postgres(url))
        try await Self.snapshotsAndReset(server)
        #expect(try await server.clock.advance(by: .days(1)).offsetMilliseconds >= 86_400_000)
        await server.stop()
    }
}
