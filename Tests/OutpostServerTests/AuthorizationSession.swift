import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The callers of the matrix: nobody, a viewer, an editor who owns nothing the matrix
/// touches, the owner of everything the test makes (an editor), an admin, and two API keys
/// of the owner's (`AuthorizationSession.keyScope`): one that edits, one read-only.
enum Who: String, CaseIterable, Sendable, CustomStringConvertible {
    case anonymous, viewer, otherEditor, owner, admin, apiKey, readOnlyKey

    var user: ServerUser? {
        switch self {
        case .anonymous: nil
        case .viewer: ServerUser(name: "vic", role: .viewer)
        case .otherEditor: ServerUser(name: "ed", role: .editor)
        case .owner: ServerUser(name: "eve", role: .editor)
        case .admin: ServerUser(name: "ada", role: .admin)
        // As the token check answers them: the owner's role capped by the key's privileges.
        case .apiKey: ServerUser(name: "eve", role: .editor, apiKey: APIKeyScope(clientId: "", itemId: "", slot: 0, privileges: [TestAPIKey.edit]))
        case .readOnlyKey: ServerUser(name: "eve", role: .viewer, apiKey: APIKeyScope(clientId: "", itemId: "", slot: 0, privileges: []))
        }
    }

    /// The users with a password and a token of their own.
    static let users: [Who] = [.viewer, .otherEditor, .owner, .admin]
    static let keys: [Who] = [.apiKey, .readOnlyKey]

    var description: String { user.map { "\(rawValue) (\($0.name))" } ?? rawValue }
}

/// One request of the matrix.
struct Probe: Sendable {
    var method: HTTPRequest.Method = .post
    /// The path and any query, without the token.
    var path: String
    var fields: [(String, String)] = []
    var file: (field: String, name: String, type: String, bytes: [UInt8])? = nil
    /// The object the request acts on, when the case made a fresh one for it.
    var object = ""

    static func get(_ path: String, object: String = "") -> Probe { Probe(method: .get, path: path, object: object) }
}

/// What the server answered: the status, the body as JSON (`.null` when it is not JSON), and
/// the refusal it is (an ArcGIS envelope's code and message, or a failing HTTP status).
struct Answer: Sendable, CustomStringConvertible {
    var status: Int
    var json: JSONValue
    var text: String

    var refusal: AuthorizationTable.Refusal? {
        if let error = json["error"] {
            return AuthorizationTable.Refusal(Int(error["code"]?.int64Value ?? 0), error["message"]?.stringValue)
        }
        return status >= 400 ? AuthorizationTable.Refusal(status) : nil
    }

    var description: String { "HTTP \(status) \(text.prefix(240))" }
}

/// The app under test, its backend, the callers' tokens and the objects the owner made.
struct AuthorizationSession: Sendable {
    let client: any TestClientProtocol
    let store: any OutpostBackend
    let tokens: [Who: String]
    /// The keys' apps, whose privileges `makeObjects` sets once the owner's items exist.
    let keyApps: [Who: TestAPIKey]
    var objects = AuthorizationObjects()
    let counter = Guarded(0)

    static let service = "/arcgis/rest/services/Demo/FeatureServer"
    static let parcels = "/arcgis/rest/services/Parcels/VersionManagementServer"
    static let portal = "/arcgis/sharing/rest"
    static let gp = "/arcgis/rest/services/System/OfflinePackaging/GPServer"

    /// Users with few hash rounds, and a token each, as `HardeningTests.withSecuredApp` makes them.
    init(client: any TestClientProtocol, store: any OutpostBackend) throws {
        self.client = client
        self.store = store
        var tokens: [Who: String] = [:]
        for who in Who.users {
            guard let user = who.user else { continue }
            try store.users.addUser(user.name, role: user.role, password: "\(user.name)-password", rounds: 1000)
            tokens[who] = try store.users.issueToken(for: user, minutes: 60).token
        }
        var keyApps: [Who: TestAPIKey] = [:]
        for who in Who.keys {
            let key = try TestAPIKey.issue(store, owner: Self.owner, privileges: [], label: who.rawValue)
            keyApps[who] = key
            tokens[who] = key.token
        }
        self.keyApps = keyApps
        self.tokens = tokens
    }

    /// What the keys reach: the owner's private item and private web map and the matrix's
    /// service (`Demo`), not the org item; `apiKey` edits, `readOnlyKey` does not.
    func grantKeys() throws {
        let reached = [objects.items["private"]!, objects.webMaps["private"]!, ServiceItems.id(forService: "Demo")].map(TestAPIKey.item)
        try keyApps[.apiKey]?.update(store, privileges: [TestAPIKey.edit] + reached)
        try keyApps[.readOnlyKey]?.update(store, privileges: ["premium:user:geocode"] + reached)
    }

    /// Whether the keys' scope holds the service a path is below (the matrix's `Demo` only).
    static func keyReaches(_ path: String) -> Bool { path.hasPrefix("/arcgis/rest/services/Demo/") }

    /// A name not used before in this session.
    func unique(_ prefix: String) -> String {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return "\(prefix)\(number)"
    }

    /// Sends `probe` as `who`: the token in the query, fields in the query (GET), a form or a
    /// multipart body (POST).
    func send(_ probe: Probe, as who: Who) async throws -> Answer {
        var query = probe.method == .get ? probe.fields : []
        if let token = tokens[who] { query.append(("token", token)) }
        var uri = probe.path
        if !query.isEmpty {
            uri += (uri.contains("?") ? "&" : "?") + query.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        }
        let headers: HTTPFields
        let body: ByteBuffer?
        if probe.method == .get {
            (headers, body) = ([:], nil)
        } else if let file = probe.file {
            (headers, body) = multipart(fields: probe.fields, file: file)
        } else {
            (headers, body) = (formHeaders, form(probe.fields))
        }
        return try await client.execute(uri: uri, method: probe.method, headers: headers, body: body) { response in
            let text = String(buffer: response.body)
            return Answer(status: Int(response.status.code), json: (try? JSONParser.parse(text)) ?? .null, text: text)
        }
    }

    /// `send` for the setup: the answer must not be an error.
    func made(_ probe: Probe, as who: Who = .owner) async throws -> JSONValue {
        let answer = try await send(probe, as: who)
        try #require(answer.refusal == nil, "setting up \(probe.path): \(answer)")
        return answer.json
    }

    /// Polls a job's status (`status` of replica jobs, `jobStatus` of geoprocessing ones) until it ends.
    func finished(_ path: String, as who: Who = .owner) async throws -> JSONValue {
        for _ in 0..<600 {
            let answer = try await send(.get(path + (path.contains("?") ? "&" : "?") + "f=json"), as: who)
            let status = answer.json["jobStatus"]?.stringValue ?? answer.json["status"]?.stringValue ?? ""
            if answer.refusal != nil
                || ["esriJobSucceeded", "esriJobFailed", "esriJobCancelled", "Completed", "CompletedWithErrors", "Failed"].contains(status)
            {
                return answer.json
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the job at \(path) did not end")
        return .null
    }
}
