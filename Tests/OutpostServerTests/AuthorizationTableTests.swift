import Hummingbird
import OutpostStorage
import OutpostTestSupport
import Testing

@testable import OutpostServer

/// The authorization table against the router (issue 43): a route without a row fails, and so
/// does a row no route matches. `AuthorizationMatrixTests` then requests every row.
@Suite struct AuthorizationTableTests {
    /// Every method and path the router holds with token security on.
    static let routes: [(method: HTTPRequest.Method, path: String)] = {
        let router = buildRouter(store: try! makeTemporaryStore(), options: ServerOptions(requireAuth: true))
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
    }
}
