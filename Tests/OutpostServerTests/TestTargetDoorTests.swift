import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The control API's front door (docs/testing-your-app.md, "The page and who may use the
/// control API"): off unless asked for, an admin's alone under token security, never faulted,
/// and its page served under a policy allowing this server's own script only.
@Suite struct TestTargetDoorTests {
    static let query = "/arcgis/rest/services/Demo/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"
    /// A rule with no match fields: it matches every request it is offered.
    static let everything = #"{"error": {"code": 500, "message": "Injected"}}"#

    static func options(requireAuth: Bool = false, target: TestTarget?) -> ServerOptions {
        var options = ServerOptions(requireAuth: requireAuth)
        options.testTarget = target
        return options
    }

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPFields
        var text: String
        var json: JSONValue { (try? JSONParser.parse(text)) ?? .null }
    }

    static func send(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ fields: [(String, String)] = [], token: String? = nil
    ) async throws -> Answer {
        var headers: HTTPFields = method == .post ? formHeaders : [:]
        if let token { headers[HTTPField.Name("X-Esri-Authorization")!] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: method == .post ? form(fields) : nil) {
            Answer(status: Int($0.status.code), headers: $0.headers, text: String(buffer: $0.body))
        }
    }

    /// The control routes of a router with a test target, placeholders filled.
    static func controlRoutes(requireAuth: Bool) throws -> [(method: HTTPRequest.Method, path: String)] {
        let router = buildRouter(store: try makeTemporaryStore(), options: options(requireAuth: requireAuth, target: TestTarget()))
        return router.routes.map { ($0.method, $0.path.description) }.filter { $0.1.contains(TestTargetPaths.root) }
            .map { ($0.0, ($0.1.hasPrefix("/") ? "" : "/") + AuthorizationMatrixTests.fill($0.1)) }
    }

    @Test func withoutATestTargetEveryControlPathIsNotFoundAndNoFaultFires() async throws {
        let store = try makeDemoStore()
        // The same store behind a test target whose rule matches everything: the query is faulted there.
        let target = TestTarget()
        try await Application(router: buildRouter(store: store, options: Self.options(target: target))).test(.router) { client in
            let added = try await Self.send(client, .post, "/_outpost/faults", [("f", "json"), ("rule", Self.everything)])
            #expect(added.json["rule"]?["id"] != nil, "\(added.text)")
            let faulted = try await Self.send(client, .get, Self.query)
            #expect(faulted.json["error"]?["message"] == "Injected", "\(faulted.text)")
        }
        let router = buildRouter(store: store, options: Self.options(target: nil))
        #expect(!router.routes.contains { $0.path.description.contains(TestTargetPaths.root) })
        let controlPaths = try Self.controlRoutes(requireAuth: false).map(\.path)
        #expect(controlPaths.count >= 20, "\(controlPaths)")
        try await Application(router: router).test(.router) { client in
            for path in Set(controlPaths + ["/_outpost", "/_outpost/", "/_outpost/nothing", "/_outpost/clock/advance"]).sorted() {
                for method in [HTTPRequest.Method.get, .post] {
                    let answer = try await Self.send(client, method, path, [("f", "json"), ("hours", "25")])
                    #expect(answer.status == 404, "\(method) \(path) without a test target: \(answer.status) \(answer.text.prefix(200))")
                }
            }
            // No fault board: the query the rule matched is answered.
            let answer = try await Self.send(client, .get, Self.query)
            #expect(answer.status == 200 && answer.json["count"]?.int64Value ?? 0 > 0, "\(answer.text)")
        }
    }

    @Test func underTokenSecurityOnlyAnAdminPasses() async throws {
        let store = try makeDemoStore()
        var issued: [String: String] = [:]
        for (name, role) in [("ada", UserRole.admin), ("eve", .editor), ("vic", .viewer)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
            issued[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 30).token
        }
        let tokens = issued
        let routes = try Self.controlRoutes(requireAuth: true).filter { !["/_outpost", "/_outpost/page.js"].contains($0.path) }
        let router = buildRouter(store: store, options: Self.options(requireAuth: true, target: TestTarget()))
        try await Application(router: router).test(.router) { client in
            for (method, path) in routes {
                // Restoring would succeed for the admin and is no part of the door: name no snapshot.
                let fields = [("f", "json"), ("name", "door"), ("pattern", "{}"), ("count", "0")]
                let anonymous = try await Self.send(client, method, path, fields)
                #expect(anonymous.json["error"]?["code"] == 499, "\(method) \(path) anonymous: \(anonymous.text)")
                for name in ["vic", "eve"] {
                    let refused = try await Self.send(client, method, path, fields, token: tokens[name])
                    #expect(refused.json["error"]?["code"] == 403, "\(method) \(path) as \(name): \(refused.text)")
                }
                let bad = try await Self.send(client, method, path, fields, token: "not-a-token")
                #expect(bad.json["error"]?["code"] == 498, "\(method) \(path) with a bad token: \(bad.text)")
                guard path != "/_outpost/reset", !path.hasSuffix("/restore") else { continue }
                let admin = try await Self.send(client, method, path, fields, token: tokens["ada"])
                let code = admin.json["error"]?["code"]?.int64Value ?? 0
                #expect(![499, 498, 403].contains(code), "\(method) \(path) as the admin: \(admin.text)")
            }
            // The admin's clock answer, through a token in the query as ArcGIS clients send it.
            let clock = try await Self.send(client, .get, "/_outpost/clock?f=json&token=\(tokens["ada"]!)")
            #expect(clock.json["now"]?.int64Value ?? 0 > 0, "\(clock.text)")
            // The page is a shell anyone may load; it shows nothing until the admin's token is given.
            let page = try await Self.send(client, .get, "/_outpost/")
            #expect(page.status == 200 && !page.text.contains(tokens["ada"]!))
        }
    }

    @Test func theControlAPIIsNeverFaulted() async throws {
        let store = try makeDemoStore()
        try await Application(router: buildRouter(store: store, options: Self.options(target: TestTarget()))).test(.router) { client in
            let added = try await Self.send(client, .post, "/_outpost/faults", [("f", "json"), ("rule", Self.everything)])
            let id = try #require(added.json["rule"]?["id"]?.stringValue, "\(added.text)" as Comment)
            let faulted = try await Self.send(client, .get, Self.query)
            #expect(faulted.json["error"]?["message"] == "Injected", "\(faulted.text)")
            let listed = try await Self.send(client, .get, "/_outpost/faults?f=json")
            #expect(listed.status == 200 && listed.json["rules"]?[0]?["id"]?.stringValue == id, "\(listed.text)")
            for path in ["/_outpost/clock?f=json", "/_outpost/journal?f=json", "/_outpost/jobs?f=json", "/_outpost/", "/_outpost/page.js"] {
                let answer = try await Self.send(client, .get, path)
                #expect(answer.status == 200 && answer.json["error"] == nil, "\(path): \(answer.text.prefix(200))")
            }
            let cleared = try await Self.send(client, .post, "/_outpost/faults/clear", [("f", "json")])
            #expect(cleared.status == 200 && cleared.json["error"] == nil, "\(cleared.text)")
            #expect(try await Self.send(client, .get, Self.query).json["count"]?.int64Value ?? 0 > 0)
        }
    }

    @Test func thePageAndItsScriptWorkUnderThePolicyTheyCarry() async throws {
        let store = try makeDemoStore()
        try await Application(router: buildRouter(store: store, options: Self.options(target: TestTarget()))).test(.router) { client in
            for path in ["/_outpost", "/_outpost/"] {
                let page = try await Self.send(client, .get, path)
                #expect(page.status == 200 && page.headers[.contentType]?.hasPrefix("text/html") == true, "\(path): \(page.status)")
                let policy = page.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'") && !policy.contains("unsafe-eval"))
                // Its only script is its own file: none inline (the policy would block it), none from elsewhere.
                let scripts = page.text.components(separatedBy: "<script").dropFirst()
                #expect(scripts.count == 1 && scripts.allSatisfy { $0.hasPrefix(#" src="/_outpost/page.js">"#) }, "\(page.text)")
                for heading in ["Clock", "Active faults", "Held jobs", "Snapshots", "Journal"] { #expect(page.text.contains(">\(heading)</h2>")) }
                #expect(page.text.contains(#"<html lang="en">"#) && page.text.contains(#"<th scope="col">"#))
                #expect(page.text.contains(#"<label for="snapshot-name">"#) && page.text.contains(#"id="snapshot-name""#))
            }
            let script = try await Self.send(client, .get, "/_outpost/page.js")
            #expect(script.status == 200 && script.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(script.text.contains("journal?since=") && script.text.contains("sessionStorage") && !script.text.contains("innerHTML"))
            #expect(!script.text.contains("http://") && !script.text.contains("https://"), "the script reaches nothing else")
        }
    }
}
