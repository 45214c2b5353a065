import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// A backend editor tracking is checked on: the demo seeded, stamped by a clock the test moves.
struct TrackingBackend: Sendable, CustomTestStringConvertible {
    var name: String
    var make: @Sendable (ManualClock) throws -> any OutpostBackend

    var testDescription: String { name }

    static let all: [TrackingBackend] = [
        TrackingBackend(name: "SpatiaLite") { clock in try makeDemoStore(label: "tracking", clock: clock) },
        TrackingBackend(name: "PostgreSQL") { clock in
            let backend = try TestPostgres.makeBackend(clock: clock)
            try DemoData.seed(backend, testdataDirectory: TestFolders.testdata)
            return backend
        },
    ]
}

/// The app under test for editor tracking: users eve and ed (editors) and ada (admin) with a
/// token each; requests name the caller (nil: no token).
struct TrackingApp: Sendable {
    let client: any TestClientProtocol
    let store: any OutpostBackend
    let clock: ManualClock
    let tokens: [String: String]

    static let demo = "/arcgis/rest/services/Demo/FeatureServer"
    static let parcels = "/arcgis/rest/services/Parcels/FeatureServer"
    static let versions = "/arcgis/rest/services/Parcels/VersionManagementServer"
    /// The four fields `DemoData` tracks edits in.
    static let trackingFields = ["Creator", "CreationDate", "Editor", "EditDate"]

    /// Runs `body` against a fresh app on `backend`; `requireAuth` turns token security on.
    static func with(
        _ backend: TrackingBackend, requireAuth: Bool = true, _ body: @Sendable (TrackingApp) async throws -> Void
    ) async throws {
        let clock = ManualClock()
        let store = try backend.make(clock)
        var tokens: [String: String] = [:]
        for (name, role) in [("eve", UserRole.editor), ("ed", .editor), ("ada", .admin)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
            tokens[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 600).token
        }
        let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: requireAuth)))
        try await app.test(.router) { [tokens] client in
            try await body(TrackingApp(client: client, store: store, clock: clock, tokens: tokens))
        }
    }

    /// Moves the clock on, so each step's edit moment differs; returns the new time.
    @discardableResult
    func later() -> Int64 {
        clock.advance(milliseconds: 60_000)
        return clock.milliseconds()
    }

    private func withToken(_ pairs: [(String, String)], _ user: String?) -> [(String, String)] {
        [("f", "json")] + pairs + (user.flatMap { tokens[$0] }.map { [("token", $0)] } ?? [])
    }

    /// Posts a form as `user`; the answer must not be an error envelope.
    func post(_ path: String, _ pairs: [(String, String)], as user: String?) async throws -> JSONValue {
        let answer = try await OutpostServerTests.post(client, path, withToken(pairs, user))
        try #require(answer["error"] == nil, "\(path) as \(user ?? "anonymous"): \(answer)")
        return answer
    }

    func get(_ path: String, as user: String?) async throws -> JSONValue {
        let query = withToken([], user).map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        return try await OutpostServerTests.get(client, path + (path.contains("?") ? "&" : "?") + query)
    }

    /// Posts a multipart form with one file part (`field`) as `user`.
    func upload(
        _ path: String, field: String = "file", name: String, bytes: [UInt8], _ pairs: [(String, String)] = [], as user: String
    ) async throws -> JSONValue {
        let (headers, body) = multipart(fields: withToken(pairs, user), file: (field, name, "text/plain", bytes))
        return try await client.execute(uri: path, method: .post, headers: headers, body: body) { json($0) }
    }

    /// One feature's attributes as `query` answers them (ada reads), by GlobalID.
    func feature(_ layer: String, _ globalId: String, version: String? = nil) async throws -> JSONObject {
        var pairs = [("where", "GlobalID = '\(globalId)'"), ("outFields", "*"), ("returnGeometry", "false")]
        if let version { pairs.append(("gdbVersion", version)) }
        let answer = try await post("\(layer)/query", pairs, as: "ada")
        return try #require(answer["features"]?[0]?["attributes"]?.objectValue, "no feature \(globalId) in \(layer): \(answer)")
    }

    /// The tracking fields of one feature: who created and last edited it, and when.
    func tracking(_ layer: String, _ globalId: String, version: String? = nil) async throws -> Tracking {
        Tracking(try await feature(layer, globalId, version: version))
    }

    /// Polls a replica job until it ends and returns its status.
    func finishedJob(_ statusURL: String, as user: String) async throws -> JSONValue {
        var job = JSONValue.null
        for _ in 0..<300 {
            job = try await get(path(of: statusURL), as: user)
            if job["status"] == "Completed" || job["status"] == "Failed" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return job
    }
}

/// A feature's editor-tracking values.
struct Tracking: Equatable, CustomStringConvertible {
    var creator: String?
    var created: Int64?
    var editor: String?
    var edited: Int64?

    init(creator: String?, created: Int64?, editor: String?, edited: Int64?) {
        (self.creator, self.created, self.editor, self.edited) = (creator, created, editor, edited)
    }

    init(_ attributes: JSONObject) {
        self.init(
            creator: attributes["Creator"]?.stringValue, created: attributes["CreationDate"]?.int64Value,
            editor: attributes["Editor"]?.stringValue, edited: attributes["EditDate"]?.int64Value)
    }

    /// Created and last edited by `user` at `moment`.
    static func made(by user: String?, at moment: Int64) -> Tracking { Tracking(creator: user, created: moment, editor: user, edited: moment) }

    /// The same creation, last edited by `user` at `moment`.
    func edited(by user: String?, at moment: Int64) -> Tracking { Tracking(creator: creator, created: created, editor: user, edited: moment) }

    var description: String { "created by \(creator ?? "NULL") at \(created ?? -1), edited by \(editor ?? "NULL") at \(edited ?? -1)" }
}

/// A Cities feature as an add: with a GlobalID, and tracking values a client has no say in.
func trackedCity(_ globalId: String, name: String) -> String {
    #"{"attributes":{"GlobalID":"\#(globalId)","name":"\#(name)","Creator":"mallory","Editor":"mallory","CreationDate":1,"EditDate":1},"geometry":{"x":8.5,"y":47.4}}"#
}
