import Foundation
import HTTPTypes
import Hummingbird
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The user directory is a database (on PostgreSQL a query per token check): the token check
/// of every request, sign-in and the token exchange ask it on the blocking pool, never on the
/// cooperative threads every request shares (issue 45). An async test runs on those threads,
/// so a call made where it is asked for shows here.
@Suite struct TokenCheckThreadTests {
    @Test func tokenChecksAndSignInsAskTheUserDirectoryOnTheBlockingPool() async throws {
        let store = try makeDemoStore(label: "token-threads")
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        try store.users.addUser("ada", role: .editor, password: "ada-password", rounds: 1000)
        // An hour: the whole suite runs at once, and this test may wait minutes for its turn.
        let token = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 60).token
        let records = WatchedRecords(backend: store, users: WatchedUsers(inner: store.users))
        let authenticator = Authenticator(store: records, required: true, defaultMinutes: 60, maximumMinutes: 60)

        // The token of a request's head, then one in its body.
        let headed = Request(
            head: HTTPRequest(
                method: .get, scheme: "http", authority: "localhost", path: "/arcgis/rest/services",
                headerFields: [
                    .authorization: "Bearer \(token)"
                ]),
            body: RequestBody(buffer: ByteBuffer()))
        let admitted = try await authenticator.admission(headed, query: RequestParameters(), role: .viewer)
        #expect(admitted.user?.name == "ada")
        let bare = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/arcgis/rest/services"),
            body: RequestBody(buffer: ByteBuffer()))
        var pending = try await authenticator.admission(bare, query: RequestParameters(), role: .viewer)
        try await pending.field("token", token)
        #expect(pending.user?.name == "ada")
        // Sign-in (the password, then a token issued) and the token exchange.
        let signIn = RequestParameters([("username", "ada"), ("password", "ada-password"), ("f", "json")])
        _ = try await authenticator.generateToken(signIn, address: "127.0.0.1", server: nil, scheme: "http")
        let exchange = RequestParameters([("token", token), ("serverUrl", "http://localhost"), ("f", "json")])
        _ = try await authenticator.generateToken(
            exchange, address: "127.0.0.1", server: ServerAddress(scheme: "http", authority: "localhost"), scheme: "http")

        let calls = records.users.calls.value
        #expect(Set(calls.map(\.call)) == ["check", "verify", "issueToken", "expiry"])
        #expect(calls.filter { !$0.onBlockingPool }.isEmpty, "asked on a cooperative thread: \(calls.filter { !$0.onBlockingPool })")
    }
}

/// A backend's records with its users watched.
struct WatchedRecords<Backend: ServerRecords>: ServerRecords {
    let backend: Backend
    let users: WatchedUsers
    var oauth: Backend.OAuth { backend.oauth }
    var jobs: Backend.Jobs { backend.jobs }
    var resultFiles: Backend.ResultFiles { backend.resultFiles }
    var clock: any WallClock { backend.clock }
}

/// A user directory noting each call and whether it ran on NIO's blocking pool (its threads
/// are named `…TP-#<n>`).
struct WatchedUsers: UserDirectory {
    let inner: any UserDirectory
    let calls = Guarded<[(call: String, onBlockingPool: Bool)]>([])

    private func note(_ call: String) {
        let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        calls.withLock { $0.append((call, thread.contains("TP-#"))) }
    }

    func addUser(_ name: String, role: UserRole, password: String, rounds: Int) throws {
        try inner.addUser(name, role: role, password: password, rounds: rounds)
    }
    func removeUser(_ name: String) throws { try inner.removeUser(name) }
    func setRole(_ role: UserRole, of name: String) throws { try inner.setRole(role, of: name) }
    func users() throws -> [ServerUser] { try inner.users() }
    var hasUsers: Bool { get throws { try inner.hasUsers } }
    func verify(user name: String, password: String) throws -> ServerUser? {
        note("verify")
        return try inner.verify(user: name, password: password)
    }
    func issueToken(for user: ServerUser, minutes: Int) throws -> (token: String, expires: Int64) {
        note("issueToken")
        return try inner.issueToken(for: user, minutes: minutes)
    }
    func check(token: String) throws -> TokenCheck {
        note("check")
        return try inner.check(token: token)
    }
    func created(user name: String) throws -> Int64? { try inner.created(user: name) }
    func expiry(of token: String) throws -> Int64? {
        note("expiry")
        return try inner.expiry(of: token)
    }
}
