import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The authorization table against the router (issue 43): a route without a row fails, and so
/// does a row no route matches. `AuthorizationMatrixTests` then requests every row.
@Suite struct AuthorizationTableTests {
    /// Token security, and a test target so its control API's routes are there too.
    static var options: ServerOptions {
        var options = ServerOptions(requireAuth: true)
        options.testTarget = TestTarget()
        return options
    }

    /// Every method and path the router holds with token security on and a test target.
    static let routes: [(method: HTTPRequest.Method, path: String)] = {
        let router = buildRouter(store: try! makeTemporaryStore(), options: options)
        return router.routes.map { ($0.method, $0.path.description) }
    }()

    /// The routes without a row, and the rows matching no route.
    static func offenders(
        _ table: AuthorizationTable, _ routes: [(method: HTTPRequest.Method, path: String)]
    ) -> (missing: [String], stale: [AuthorizationTable.Row]) {
        let missing = routes.filter { table.row(method: $0.method, routerPath: $0.path) == nil }.map { "\($0.method) \($0.path)" }
        let held = Set(routes.map { "\($0.method) \($0.path)" })
        let stale = table.rows.filter { row in
            row.routerPaths.contains { path in row.routerMethods.contains { !held.contains("\($0) \(path)") } }
        }
        return (missing.sorted(), stale)
    }

    @Test func everyRouteHasARowAndEveryRowARoute() {
        let table = AuthorizationTable.server
        let (missing, stale) = Self.offenders(table, Self.routes)
        #expect(missing.isEmpty, "routes without a row in AuthorizationTable:\n\(missing.joined(separator: "\n"))")
        #expect(stale.isEmpty, "rows matching no route of the router: \(stale)")
        let rowsPerRoute = Self.routes.map { route in table.rows.filter { $0.routerPaths.contains(route.path) }.count }
        #expect(rowsPerRoute.allSatisfy { $0 == 1 }, "a route in two rows")
        print("AuthorizationTable: \(Self.routes.count) routes (method × path) enumerated, \(table.rows.count) rows")
        #expect(Self.routes.count > 400)

        // The check itself: a row taken out leaves its route missing; a row of no route is stale.
        var changed = table
        changed.rows.removeAll { $0.path == "metrics" }
        changed.rows.append(AuthorizationTable.Row(.service, "FeatureServer/nowhere", .read, .viewer, .service, .admitted))
        let (noRow, noRoute) = Self.offenders(changed, Self.routes)
        #expect(noRow == ["GET /metrics"] && noRoute.map(\.path) == ["FeatureServer/nowhere"])
    }

    @Test func rowsSayWhatTheMountsDo() throws {
        let table = AuthorizationTable.server
        // Reads answer GET and POST; a change only POST once admitted; admission comes first.
        let edit = try #require(table.row("FeatureServer/:layer/applyEdits"))
        let viewer = ServerUser(name: "vic", role: .viewer)
        let editor = ServerUser(name: "eve", role: .editor)
        #expect(edit.refusal(.post, caller: nil, subject: nil) == .tokenRequired)
        #expect(edit.refusal(.post, caller: viewer, subject: nil) == .forbidden)
        #expect(edit.refusal(.get, caller: editor, subject: nil) == .methodNotAllowed)
        #expect(edit.refusal(.post, caller: editor, subject: nil) == nil)
        // Items: private ones are their owner's and the admins'; org ones any user's.
        let item = try #require(table.row("content/items/:item"))
        let change = try #require(table.row("content/users/:user/items/:item/update"))
        let privateItem = AuthorizationTable.Subject(owner: "eve", access: "private")
        let orgItem = AuthorizationTable.Subject(owner: "eve", access: "org")
        let other = ServerUser(name: "ed", role: .editor)
        #expect(item.refusal(.get, caller: other, subject: privateItem) == .itemHidden)
        #expect(item.refusal(.get, caller: nil, subject: orgItem) == .itemHidden)
        #expect(item.refusal(.get, caller: viewer, subject: orgItem) == nil)
        #expect(change.refusal(.post, caller: other, subject: orgItem) == .forbidden)
        #expect(change.refusal(.post, caller: ServerUser(name: "ada", role: .admin), subject: privateItem) == nil)
        // Replicas made without a user are the admins'.
        let replica = try #require(table.row("FeatureServer/replicas/:replica"))
        #expect(replica.refusal(.get, caller: editor, subject: .init(owner: "")) == .notFound)
        #expect(table.jobSteps.count >= 7)
        // The test target's control API: an admin's alone; a key is its owner, never an admin.
        let faults = try #require(table.row("_outpost/faults"))
        let admin = ServerUser(name: "ada", role: .admin)
        #expect(faults.refusal(.post, caller: nil, subject: nil) == .tokenRequired)
        #expect(faults.refusal(.post, caller: viewer, subject: nil) == .forbidden)
        #expect(faults.refusal(.post, caller: editor, subject: nil) == .forbidden)
        #expect(faults.refusal(.post, caller: admin, subject: nil) == nil)
        let adminsKey = ServerUser(name: "ada", role: .admin, apiKey: APIKeyScope(clientId: "c", itemId: "i", slot: 0, privileges: []))
        #expect(faults.refusal(.get, caller: adminsKey, subject: nil) == .keyDenied)
        #expect(try #require(table.row("_outpost/clock/advance")).refusal(.get, caller: admin, subject: nil) == .methodNotAllowed)
    }

    /// The middleware's groups (`admitted(…, keys:)` in `buildRouter`) and the rows' `apiKeys`
    /// agree: every route, placeholders filled, sent with an editor's API key that reaches the
    /// filled services (`Field`, `Field/Points`, as feature and tile services) is refused as a
    /// key ("Token is valid but access is denied.") exactly where its row says `.refused`.
    @Test func keysAreRefusedWhereTheRowsSay() async throws {
        let store = try makeTemporaryStore()
        try store.users.addUser("eve", role: .editor, password: "eve-password", rounds: 1000)
        let services = ["Field", "Field/Points"].flatMap { [$0, "MapServer:\($0)", "VectorTileServer:\($0)"] }.map(TestAPIKey.service)
        let key = try TestAPIKey.issue(store, owner: "eve", privileges: [TestAPIKey.edit] + services)
        let table = AuthorizationTable.server
        let app = Application(router: buildRouter(store: store, options: Self.options))
        let (disagreements, counts) = try await app.test(.router) { client in
            var disagreements: [String] = []
            var counts: [AuthorizationTable.KeyReach: Int] = [:]
            for route in Self.routes {
                guard let row = table.row(method: route.method, routerPath: route.path) else { continue }
                counts[row.apiKeys, default: 0] += 1
                let path = AuthorizationMatrixTests.fill(route.path)
                var headers: HTTPFields = [HTTPField.Name("X-Esri-Authorization")!: "Bearer \(key.token)"]
                if route.method == .post { headers[.contentType] = "application/x-www-form-urlencoded" }
                let answer = try await client.execute(
                    uri: route.method == .get ? "\(path)?f=json" : path, method: route.method, headers: headers,
                    body: route.method == .post ? ByteBuffer(string: "f=json") : nil
                ) { String(buffer: $0.body) }
                let json = (try? JSONParser.parse(answer)) ?? .null
                // An admin's route refuses a key of a non-admin at its admission, with a plain 403.
                let forbidden = json["error"]?["code"] == 403
                let denied =
                    forbidden && (json["error"]?["message"]?.stringValue == APIKeyReachMiddleware.deniedMessage || row.admission == .admin)
                if denied != (row.apiKeys == .refused) {
                    disagreements.append("\(route.method) \(route.path) (\(row.apiKeys)): \(answer.prefix(200))")
                }
            }
            return (disagreements, counts)
        }
        print("API keys over \(Self.routes.count) routes: \(counts.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))")
        #expect(disagreements.isEmpty, "routes answering a key otherwise than their row says:\n\(disagreements.joined(separator: "\n"))")
        #expect(AuthorizationTable.KeyReach.allCases.allSatisfy { counts[$0, default: 0] > 0 })
    }

    @Test func rowsSayWhatKeysReachByMountAndAdmission() throws {
        let table = AuthorizationTable.server
        #expect(try #require(table.row("FeatureServer/:layer/query")).apiKeys == .services)
        #expect(try #require(table.row("GPServer/:task/submitJob")).apiKeys == .refused)
        #expect(try #require(table.row("content/items/:item")).apiKeys == .items)
        #expect(try #require(table.row("home/webmap/viewer.html")).apiKeys == .items)
        #expect(try #require(table.row("content/users/:user/addItem")).apiKeys == .refused)
        #expect(try #require(table.row("rest/services")).apiKeys == .refused)
        #expect(try #require(table.row("oauth2/registerApp")).apiKeys == .refused)
        #expect(try #require(table.row("oauth2/token")).apiKeys == .open)
        #expect(try #require(table.row("_outpost/faults")).apiKeys == .refused)
        #expect(try #require(table.row("_outpost/page.js")).apiKeys == .open)
        // A key is its owner, never an admin; it reaches an item its scope names that its owner may see.
        let scope = APIKeyScope(clientId: "c", itemId: "i", slot: 0, privileges: [TestAPIKey.edit])
        let adminKey = ServerUser(name: "ada", role: .editor, apiKey: scope)
        let item = try #require(table.row("content/items/:item"))
        let replica = try #require(table.row("FeatureServer/replicas/:replica"))
        #expect(item.refusal(.get, caller: adminKey, subject: .init(owner: "eve", access: "private", inKeyScope: true)) == .itemHidden)
        #expect(item.refusal(.get, caller: adminKey, subject: .init(owner: "eve", access: "org", inKeyScope: true)) == nil)
        #expect(item.refusal(.get, caller: adminKey, subject: .init(owner: "eve", access: "org")) == .itemHidden)
        #expect(item.refusal(.get, caller: adminKey, subject: .init(owner: "eve", access: "public")) == nil)
        #expect(replica.refusal(.get, caller: adminKey, subject: .init(owner: "eve", inKeyScope: true)) == .notFound)
        #expect(replica.refusal(.get, caller: adminKey, subject: .init(owner: "ada", inKeyScope: true)) == nil)
        #expect(replica.refusal(.get, caller: adminKey, subject: .init(owner: "ada")) == .keyDenied)
    }
}
