import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// What a route of the sign-in answered: status, headers, text.
struct OAuthAnswer: Sendable, CustomStringConvertible {
    var status: Int
    var headers: HTTPFields
    var text: String

    var json: JSONValue { (try? JSONParser.parse(text)) ?? .null }
    var location: String? { headers[.location] }

    /// `oAuthInfo` as the ArcGIS API for Python reads it (`re.search(r"\{.*\}", page)`): from
    /// the page's first `{` to the last `}` of that line.
    var oAuthInfo: JSONValue? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("{") }), let start = line.firstIndex(of: "{"),
            let end = line.lastIndex(of: "}"), start < end
        else { return nil }
        return try? JSONParser.parse(String(line[start...end]))
    }

    /// The cookie the answer sets, as a browser sends it back (`name=value`).
    var setCookie: String? { headers[.setCookie].flatMap { $0.split(separator: ";").first.map(String.init) } }

    /// The parameters after `separator` in the Location (`#`: a token; `?`: a code).
    func redirected(_ separator: Character) -> [String: String] {
        guard let location, let index = location.firstIndex(of: separator) else { return [:] }
        let tail = location[location.index(after: index)...].prefix { separator == "#" || $0 != "#" }
        return Dictionary(FormURLEncoding.decode(String(tail)), uniquingKeysWith: { a, _ in a })
    }

    var description: String { "HTTP \(status) \(location.map { "→ \($0) " } ?? "")\(text.prefix(400))" }
}

/// A browser, or the ArcGIS API for Python's `requests.Session`: it keeps the cookie the
/// sign-in page set and sends it back.
struct OAuthBrowser: Sendable {
    let client: any TestClientProtocol
    var cookie: String?

    static let authorize = "/arcgis/sharing/rest/oauth2/authorize"
    static let signIn = "/arcgis/sharing/oauth2/signin"
    static let token = "/arcgis/sharing/rest/oauth2/token"

    init(_ client: any TestClientProtocol) {
        self.client = client
    }

    /// The sign-in page for `query`; its cookie kept.
    mutating func open(_ query: [(String, String)], path: String = authorize) async throws -> OAuthAnswer {
        let answer = try await send(.get, path + "?" + query.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&"))
        if let set = answer.setCookie { cookie = set }
        return answer
    }

    func send(
        _ method: HTTPRequest.Method, _ uri: String, _ fields: [(String, String)] = [], headers extra: HTTPFields = [:]
    ) async throws
        -> OAuthAnswer
    {
        var headers = extra
        if method == .post { headers[.contentType] = "application/x-www-form-urlencoded" }
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: uri, method: method, headers: headers, body: method == .post ? form(fields) : nil) { response in
            OAuthAnswer(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
        }
    }

    /// Posts the page's form.
    func signIn(state: String, user: String, password: String, path: String = signIn) async throws -> OAuthAnswer {
        try await send(.post, path, [("expiration", "20160"), ("oauth_state", state), ("username", user), ("password", password)])
    }

    /// The page for `query`, then its form with `user`'s password: the sign-in's redirect.
    mutating func signedIn(_ query: [(String, String)], user: String) async throws -> OAuthAnswer {
        let page = try await open(query)
        let state = try #require(page.oAuthInfo?["oauth_state"]?.stringValue, "\(page)")
        return try await signIn(state: state, user: user, password: "\(user)-password")
    }

    /// A code of the code flow for `user` (`pythonapi`, out of band unless said otherwise).
    mutating func code(
        user: String = "eve", clientId: String = "pythonapi", redirect: String = OAuthFlows.outOfBand, challenge: String? = nil
    ) async throws -> String {
        var query = [("response_type", "code"), ("client_id", clientId), ("redirect_uri", redirect), ("state", "s1")]
        if let challenge { query += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        let answer = try await signedIn(query, user: user)
        return try #require(answer.redirected("?")["code"], "\(answer)")
    }

    /// The token endpoint's answer.
    func exchange(_ fields: [(String, String)]) async throws -> JSONValue {
        try await post(client, Self.token, [("f", "json")] + fields)
    }
}

/// The servers the OAuth tests run: token security over HTTPS (as the ArcGIS API for Python
/// needs), an admin `ada`, editors `eve` and `ed`, a viewer `vic`, and their tokens.
enum OAuthFlows {
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"
    static let options = ServerOptions(scheme: "https", requireAuth: true)

    static func with(
        _ backend: DemoBackend? = nil, clock: any WallClock = SystemClock(), options: ServerOptions = options,
        _ body: @Sendable (any TestClientProtocol, any OutpostBackend, [String: String]) async throws -> Void
    ) async throws {
        let store: any OutpostBackend = try backend?.make() ?? makeDemoStore(label: "oauth", clock: clock)
        var tokens: [String: String] = [:]
        for (name, role) in [("ada", UserRole.admin), ("eve", .editor), ("ed", .editor), ("vic", .viewer)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
            tokens[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 30).token
        }
        let issued = tokens
        let app = Application(router: buildRouter(store: store, options: options))
        try await app.test(.router) { client in try await body(client, store, issued) }
    }

    /// An `Application` item of `owner`'s, as the portal's addItem makes it.
    static func applicationItem(
        _ client: any TestClientProtocol, token: String, owner: String = "eve", title: String = "Field notes"
    )
        async throws -> String
    {
        let added = try await post(
            client, "\(portalURL)/content/users/\(owner)/addItem", [("f", "json"), ("token", token), ("type", "Application"), ("title", title)])
        return try #require(added["id"]?.stringValue, "\(added)")
    }

    /// `registerApp` for `item` as the caller `token` names.
    static func register(
        _ client: any TestClientProtocol, token: String, item: String, redirects: [String] = ["https://app.example/callback"]
    )
        async throws -> JSONValue
    {
        let uris = "[" + redirects.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return try await post(
            client, "/arcgis/sharing/rest/oauth2/registerApp",
            [("f", "json"), ("token", token), ("itemId", item), ("appType", "multiple"), ("redirect_uris", uris)])
    }

    /// What a token may do: read the portal as its user, and add a feature to the demo.
    static func portalUser(_ client: any TestClientProtocol, bearer token: String) async throws -> JSONValue {
        try await client.execute(
            uri: "\(portalURL)/portals/self?f=json", method: .get, headers: [HTTPField.Name("X-Esri-Authorization")!: "Bearer \(token)"]
        ) { json($0) }
    }

    static func addsAFeature(_ client: any TestClientProtocol, bearer token: String) async throws -> JSONValue {
        let adds = #"[{"attributes":{"species":"Quercus rubra","height_m":4},"geometry":{"x":13.41,"y":52.51}}]"#
        return try await client.execute(
            uri: "\(layerURL)/applyEdits", method: .post,
            headers: [.contentType: "application/x-www-form-urlencoded", HTTPField.Name("X-Esri-Authorization")!: "Bearer \(token)"],
            body: form([("f", "json"), ("adds", adds)])
        ) { json($0) }
    }
}
