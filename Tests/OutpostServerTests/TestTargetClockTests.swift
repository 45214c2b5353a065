import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The clock routes of a test target (docs/testing-your-app.md, "Clock"): advance, set and
/// reset; bad values refused, changing nothing; and what moves with the clock, on both
/// backends: a token expires, an idle result file is swept.
@Suite struct TestTargetClockTests {
    /// A demo store on `backend` reading `clock`.
    static func store(_ backend: String, clock: SettableClock) throws -> any OutpostBackend {
        guard backend == "PostgreSQL" else { return try makeDemoStore(label: "clock", clock: clock) }
        let store = try TestPostgres.makeBackend(clock: clock)
        try DemoData.seed(store, testdataDirectory: TestFolders.testdata)
        return store
    }

    /// A server with a test target whose clock the store reads, its housekeeping registered as
    /// `serve` registers it.
    static func withTarget(
        _ backend: String = "SpatiaLite", requireAuth: Bool = false,
        _ body: @Sendable (any TestClientProtocol, any OutpostBackend, ServerOptions) async throws -> Void
    ) async throws {
        let target = TestTarget()
        let store = try store(backend, clock: target.clock)
        var options = ServerOptions(requireAuth: requireAuth)
        options.testTarget = target
        options.resultFileIdleTime = 600
        _ = backgroundServices(store: store, options: options, logger: .outpostDefault)
        let served = options
        try await Application(router: buildRouter(store: store, options: served)).test(.router) { client in
            try await body(client, store, served)
        }
    }

    static func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ fields: [(String, String)] = [], token: String? = nil
    ) async throws -> JSONValue {
        var headers: HTTPFields = method == .post ? formHeaders : [:]
        if let token { headers[HTTPField.Name("X-Esri-Authorization")!] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: method == .post ? form([("f", "json")] + fields) : nil) {
            (try? JSONParser.parse(String(buffer: $0.body))) ?? .null
        }
    }

    static func systemNow() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func clock(_ client: any TestClientProtocol, token: String? = nil) async throws -> (now: Int64, offset: Int64) {
        let answer = try await send(client, .get, "/_outpost/clock?f=json", token: token)
        return (answer["now"]?.int64Value ?? -1, answer["offset"]?.int64Value ?? -1)
    }

    @Test func advanceSetAndReset() async throws {
        try await Self.withTarget { client, _, _ in
            // Bounds measured around each request, never a fixed allowance: a loaded machine is slow.
            let asked = Self.systemNow()
            let start = try await Self.clock(client)
            #expect(start.offset == 0 && (asked - 5...Self.systemNow() + 5).contains(start.now), "\(start)")
            let advanced = try await Self.send(client, .post, "/_outpost/clock/advance", [("hours", "25")])
            #expect(advanced["offset"]?.int64Value ?? 0 >= 90_000_000 - 10 && advanced["housekeeping"]?.arrayValue != nil, "\(advanced)")
            #expect(try await Self.clock(client).now - start.now >= 90_000_000)
            for (unit, milliseconds) in [("milliseconds", 1500), ("seconds", 2), ("minutes", 3), ("days", 1)] as [(String, Int64)] {
                let before = try await Self.clock(client).offset
                let after = try await Self.send(client, .post, "/_outpost/clock/advance", [(unit, "\(milliseconds)")])
                let step = unit == "milliseconds" ? 1500 : milliseconds * ["seconds": 1000, "minutes": 60_000, "days": 86_400_000][unit]!
                #expect((after["offset"]?.int64Value ?? 0) - before == step, "\(unit): \(after)")
            }
            var setAt = Self.systemNow()
            let set = try await Self.send(client, .post, "/_outpost/clock/set", [("time", "2027-01-31T12:00:00Z")])
            #expect((1_801_396_800_000 - 5...1_801_396_800_000 + Self.systemNow() - setAt + 5).contains(set["now"]?.int64Value ?? 0), "\(set)")
            setAt = Self.systemNow()
            let setInMilliseconds = try await Self.send(client, .post, "/_outpost/clock/set", [("time", "1500000000000")])
            #expect(
                (1_500_000_000_000 - 5...1_500_000_000_000 + Self.systemNow() - setAt + 5).contains(setInMilliseconds["now"]?.int64Value ?? 0),
                "a time in the past: \(setInMilliseconds)")
            let reset = try await Self.send(client, .post, "/_outpost/clock/reset")
            #expect(reset["offset"] == 0, "\(reset)")
            let resetAsked = Self.systemNow()
            let afterReset = try await Self.clock(client).now
            #expect((resetAsked - 5...Self.systemNow() + 5).contains(afterReset))
        }
    }

    @Test func badValuesAreRefusedAndChangeNothing() async throws {
        try await Self.withTarget { client, _, _ in
            _ = try await Self.send(client, .post, "/_outpost/clock/advance", [("minutes", "5")])
            let refused: [(String, [(String, String)])] = [
                ("clock/advance", []), ("clock/advance", [("hours", "1"), ("days", "1")]), ("clock/advance", [("hours", "-1")]),
                ("clock/advance", [("hours", "0")]), ("clock/advance", [("hours", "soon")]), ("clock/advance", [("days", "4000")]),
                ("clock/advance", [("hours", "nan")]), ("clock/set", []), ("clock/set", [("time", "yesterday")]),
                ("clock/set", [("time", "-5")]), ("clock/set", [("time", "999999999999999999")]), ("clock/set", [("time", "2027-01-31")]),
                // An ISO date is held to the milliseconds' range: 1970 to 9999.
                ("clock/set", [("time", "1969-12-31T23:59:59Z")]), ("clock/set", [("time", "0001-01-01T00:00:00Z")]),
                ("clock/set", [("time", "-0001-01-01T00:00:00Z")]), ("clock/set", [("time", "99999-01-01T00:00:00Z")]),
            ]
            for (path, fields) in refused {
                let before = try await Self.clock(client).offset
                let answer = try await Self.send(client, .post, "/_outpost/\(path)", fields)
                #expect(answer["error"]?["code"] == 400 && answer["error"]?["message"] != nil, "\(path) \(fields): \(answer)")
                #expect(try await Self.clock(client).offset == before, "\(path) \(fields) moved the clock")
            }
            // The range's ends, as dates, are taken.
            for (text, milliseconds) in [("1970-01-01T00:00:00Z", Int64(0)), ("9999-12-31T23:59:59Z", Int64(253_402_300_799_000))] {
                let set = try await Self.send(client, .post, "/_outpost/clock/set", [("time", text)])
                #expect((milliseconds..<milliseconds + 5_000).contains(set["now"]?.int64Value ?? -1), "\(text): \(set)")
            }
            _ = try await Self.send(client, .post, "/_outpost/clock/reset")
            // A change's GET is refused as ArcGIS refuses it, and moves nothing.
            let get = try await Self.send(client, .get, "/_outpost/clock/advance?hours=1&f=json")
            #expect(get["error"]?["code"] == 405, "\(get)")
        }
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aTokenExpiresWhenTheClockPassesIt(_ backend: String) async throws {
        try await Self.withTarget(backend, requireAuth: true) { client, store, _ in
            try store.users.addUser("ada", role: .admin, password: "ada-password", rounds: 1000)
            try store.users.addUser("eve", role: .editor, password: "eve-password", rounds: 1000)
            // At most the server's longest token life (a longer one would be refused as minted in another time).
            let admin = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 60 * 24).token
            let (eve, expires) = try store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 60)
            let query = "/arcgis/rest/services/Demo/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"
            #expect(try await Self.send(client, .get, query, token: eve)["count"] != nil)
            // Set relative to the token's end: the clock goes on with the wall clock, however slow the run.
            let advanced = try await Self.send(client, .post, "/_outpost/clock/set", [("time", String(expires - 60_000))], token: admin)
            #expect(advanced["offset"] != nil, "\(advanced)")
            #expect(try await Self.send(client, .get, query, token: eve)["count"] != nil, "still valid a minute before it ends")
            _ = try await Self.send(client, .post, "/_outpost/clock/set", [("time", String(expires + 60_000))], token: admin)
            let expired = try await Self.send(client, .get, query, token: eve)
            #expect(expired["error"]?["code"] == 498, "\(expired)")
            // Back to the wall clock: the token is valid again (the clock decides, nothing was deleted).
            _ = try await Self.send(client, .post, "/_outpost/clock/reset", token: admin)
            #expect(try await Self.send(client, .get, query, token: eve)["count"] != nil)
        }
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aTokenMintedWhileTheClockIsFarAheadIsRefusedOnceItIsBack(_ backend: String) async throws {
        try await Self.withTarget(backend, requireAuth: true) { client, store, _ in
            try store.users.addUser("ada", role: .admin, password: "ada-password", rounds: 1000)
            let admin = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 60).token
            let query = "/arcgis/rest/services/Demo/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"
            _ = try await Self.send(client, .post, "/_outpost/clock/set", [("time", "253402300799000")], token: admin)
            let future = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 60).token
            #expect(try await Self.send(client, .get, query, token: future)["count"] != nil, "valid in its own time")
            _ = try await Self.send(client, .post, "/_outpost/clock/reset", token: future)
            let refused = try await Self.send(client, .get, query, token: future)
            #expect(refused["error"]?["code"] == 498, "a year-9999 token outlives any token's life: \(refused)")
            // Tokens that had expired by year 9999 may have been swept meanwhile: one issued now works.
            let fresh = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 60).token
            #expect(try await Self.send(client, .get, query, token: fresh)["count"] != nil, "a token of now still works")
        }
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aReplicaIsAsOldAsTheClockSays(_ backend: String) async throws {
        try await Self.withTarget(backend) { client, _, _ in
            let demo = "/arcgis/rest/services/Demo/FeatureServer"
            _ = try await Self.send(client, .post, "/_outpost/clock/set", [("time", "2030-06-01T00:00:00Z")])
            let created = try await Self.send(
                client, .post, "\(demo)/createReplica",
                [("replicaName", "aged"), ("layers", "0"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer")])
            let id = try #require(created["replicaID"]?.stringValue, "\(created)" as Comment)
            _ = try await Self.send(client, .post, "/_outpost/clock/advance", [("days", "3")])
            let synced = try await Self.send(client, .post, "\(demo)/synchronizeReplica", [("replicaID", id), ("syncDirection", "download")])
            #expect(synced["error"] == nil, "\(synced)")
            let info = try await Self.send(client, .get, "\(demo)/replicas/\(id)?f=json")
            // Created at the set time, last synchronized three simulated days later (the set clock
            // runs on in real time: a quarter of an hour allows a loaded machine's pauses).
            #expect(abs((info["creationDate"]?.int64Value ?? 0) - 1_906_502_400_000) < 900_000, "\(info)")
            #expect(abs((info["lastSyncDate"]?.int64Value ?? 0) - 1_906_502_400_000 - 3 * 86_400_000) < 900_000, "\(info)")
        }
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aResultFileIsGoneAfterItsIdleTime(_ backend: String) async throws {
        try await Self.withTarget(backend) { client, store, options in
            let files = ResultFiles(of: store, idleTime: options.resultFileIdleTime)
            // Set relative to the publication: the clock goes on with the wall clock, however slow the run.
            let published = store.clock.milliseconds()
            let name = ResultFiles.newName(extension: "json")
            try Data("{}".utf8).write(to: URL(fileURLWithPath: try files.temporaryPath(for: name)))
            try files.publish(name)
            let path = try files.file(name)
            #expect(files.exists(name) && FileManager.default.fileExists(atPath: path))
            _ = try await Self.send(client, .post, "/_outpost/clock/set", [("time", String(published + 9 * 60_000))])
            #expect(files.exists(name) && FileManager.default.fileExists(atPath: path), "not idle yet")
            _ = try await Self.send(client, .post, "/_outpost/clock/set", [("time", String(published + 11 * 60_000))])
            // Expired by the clock, and swept by the housekeeping the move ran: no file left.
            #expect(!files.exists(name))
            #expect(!FileManager.default.fileExists(atPath: path), "the sweep ran when the clock moved")
        }
    }
}
