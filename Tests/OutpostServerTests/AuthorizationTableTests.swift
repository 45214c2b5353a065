import Hummingbird
import OutpostTestSupport
import Testing

@testable import OutpostServer

@Suite struct AuthorizationTableTests {
    @Test func dump() throws {
        let store = try makeDemoStore(label: "authz")
        let router = buildRouter(store: store, options: ServerOptions(requireAuth: true))
        let lines = router.routes.map { "\($0.method) \($0.path)" }.sorted()
        try lines.joined(separator: "\n").write(toFile: "/tmp/authz/routes.txt", atomically: true, encoding: .utf8)
        print("routes: \(lines.count)")
    }
}
