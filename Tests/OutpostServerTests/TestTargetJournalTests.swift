import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The journal of a live test target (docs/testing-your-app.md, "Journal"), on both backends:
/// what each kind of request leaves in it, secrets masked, and the routes that read it.
@Suite struct TestTargetJournalTests {
    static let demo = "/arcgis/rest/services/Demo/FeatureServer"
    static let tree = #"[{"attributes":{"name":"Journal"},"geometry":{"x":13.4,"y":52.5}}]"#

    static func withTarget(
        _ backend: DemoBackend, requireAuth: Bool = false, _ body: @Sendable (any TestClientProtocol, TestTarget) async throws -> Void
    ) async throws {
        try await withTarget(backend, requireAuth: requireAuth) { client, target, _ in try await body(client, target) }
    }

    static func withTarget(
        _ backend: DemoBackend, requireAuth: Bool, _ body: @Sendable (any TestClientProtocol, TestTarget, any OutpostBackend) async throws -> Void
    ) async throws {
        let store = try backend.make()
        var options = ServerOptions(requireAuth: requireAuth)
        let target = TestTarget()
        options.testTarget = target
        let app = Application(router: buildRouter(store: store, options: options))
        try await app.test(.router) { client in try await body(client, target, store) }
    }

    static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> JSONValue {
        try await client.execute(uri: uri, method: .get) { json($0) }
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, _ pairs: [(String, String)]) async throws -> JSONValue {
        try await client.execute(uri: uri, method: .post, headers: formHeaders, body: form(pairs)) { json($0) }
    }

    static func journal(_ client: any TestClientProtocol, _ query: String = "") async throws -> [JSONValue] {
        try await get(client, "/_outpost/journal?f=json\(query)")["entries"]?.arrayValue ?? []
    }

    @Test(arguments: DemoBackend.all)
    func aQueryAnEditAnUploadAndAFailureAreJournaled(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            let query = try await Self.get(client, "\(Self.demo)/0/query?where=1%3D1&outFields=*&f=json&resultRecordCount=1")
            #expect(query["features"] != nil, "\(query)")
            let edit = try await Self.post(
                client, "\(Self.demo)/0/applyEdits", [("f", "json"), ("adds", Self.tree), ("client_secret", "hush"), ("new_password", "pw")])
            #expect(edit["addResults"]?[0]?["success"] == true, "\(edit)")
            let (headers, body) = multipart(fields: [("f", "json")], file: ("file", "edits.json", "application/json", Array("abc".utf8)))
            let upload = try await client.execute(uri: "\(Self.demo)/uploads/upload", method: .post, headers: headers, body: body) { json($0) }
            #expect(upload["item"] != nil, "\(upload)")
            let failed = try await Self.get(client, "\(Self.demo)/0/query?where=nonsense%20%3D%3D%3D&f=json")
            #expect(failed["error"]?["code"] == 400, "\(failed)")

            let entries = try await Self.journal(client)
            #expect(entries.map { $0["operation"]?.stringValue ?? "" } == ["query", "applyEdits", "uploads", "query"])
            #expect(entries.map { $0["seq"]?.int64Value ?? 0 } == [1, 2, 3, 4])
            let first = try #require(entries.first)
            #expect(first["service"] == "Demo")
            #expect(first["layer"] == 0)
            #expect(first["method"] == "GET")
            #expect(first["status"] == 200)
            #expect(first["errorCode"] == .null)
            #expect(first["parameters"]?["where"] == "1=1")
            #expect(first["time"]?.int64Value ?? 0 > 1_700_000_000_000)
            #expect(first["durationMs"]?.doubleValue ?? -1 >= 0)
            #expect(entries[1]["parameters"]?["client_secret"] == "***")
            #expect(entries[1]["parameters"]?["new_password"] == "***")
            #expect(entries[1]["parameters"]?["adds"]?.stringValue == Self.tree)
            #expect(entries[2]["uploads"]?[0]?["name"] == "file")
            #expect(entries[2]["uploads"]?[0]?["filename"] == "edits.json")
            #expect(entries[2]["uploads"]?[0]?["bytes"] == 3)
            #expect(entries[2]["uploads"]?[0]?["sha256"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            #expect(entries[3]["errorCode"] == 400)
            #expect(entries[3]["status"] == 200)

            // Filters, count and verify read the same entries.
            #expect(try await Self.journal(client, "&errorCode=400").map { $0["seq"] } == [4])
            #expect(try await Self.get(client, "/_outpost/journal/count?f=json&operation=query")["count"] == 2)
            let verify = try await Self.post(
                client, "/_outpost/journal/verify",
                [("f", "json"), ("pattern", #"{"operation":"applyEdits","parameters":{"f":"json"}}"#), ("count", "1")])
            #expect(verify["matched"] == 1 && verify["success"] == true, "\(verify)")
            let atLeast = try await Self.post(
                client, "/_outpost/journal/verify", [("f", "json"), ("pattern", #"{"method":"GET"}"#), ("atLeast", "3")])
            #expect(atLeast["matched"] == 2 && atLeast["success"] == false, "\(atLeast)")
            let bad = try await Self.post(client, "/_outpost/journal/verify", [("f", "json"), ("pattern", "{}")])
            #expect(bad["error"]?["code"] == 400)
            #expect(try await Self.get(client, "/_outpost/journal?f=json&limit=10001")["error"]?["code"] == 400)

            // The control requests above left nothing.
            #expect(try await Self.journal(client).count == 4)
            #expect(try await Self.journal(client).allSatisfy { !($0["path"]?.stringValue ?? "").hasPrefix("/_outpost") })
        }
    }

    @Test(arguments: DemoBackend.all)
    func aSyncNotesItsReplicaAndGenerations(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { client, _ in
            let replica = try await Self.post(
                client, "\(Self.demo)/createReplica",
                [
                    ("f", "json"), ("replicaName", "journal"), ("layers", "0"), ("transportType", "esriTransportTypeEmbedded"),
                    ("syncModel", "perLayer"), ("returnAttachments", "false"),
                ])
            let id = try #require(replica["replicaID"]?.stringValue, "\(replica)")
            let gen = replica["layerServerGens"]?[0]?["serverGen"]?.int64Value ?? 0
            _ = try await Self.post(client, "\(Self.demo)/0/applyEdits", [("f", "json"), ("adds", Self.tree)])
            let sync = try await Self.post(
                client, "\(Self.demo)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", id), ("transportType", "esriTransportTypeEmbedded"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(gen)}]"#), ("token", "not-a-real-one-but-masked"),
                ])
            let answered = try #require(sync["layerServerGens"]?[0]?["serverGen"]?.int64Value, "\(sync)")
            let entries = try await Self.journal(client, "&operation=synchronizeReplica")
            #expect(entries.count == 1)
            #expect(entries.first?["replicaId"]?.stringValue == id)
            #expect(entries.first?["generations"]?["0"]?.int64Value == answered)
            #expect(entries.first?["parameters"]?["token"] == "***")
            #expect(try await Self.journal(client, "&replicaId=\(FormURLEncoding.percentEncode(id))").count == 2)
            let har = try await Self.get(client, "/_outpost/journal/har")
            RequestJournalTests.checkHAR(har)
            #expect(har["log"]?["entries"]?.arrayValue?.count == 3)
            #expect(!har.jsonText.contains("not-a-real-one"))
        }
    }

    @Test func theUserAndAFiredFaultAreNoted() async throws {
        try await Self.withTarget(DemoBackend.all[0], requireAuth: true) { client, _, store in
            try store.users.addUser("ada", role: .admin, password: "admin-pass", rounds: 1000)
            let token = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 30).token
            let rule = #"{"operation":"query","error":{"code":503,"message":"Busy"},"count":1}"#
            let added = try await Self.post(client, "/_outpost/faults", [("f", "json"), ("rule", rule), ("token", token)])
            let id = try #require(added["rule"]?["id"]?.stringValue, "\(added)")
            let failed = try await Self.get(client, "\(Self.demo)/0/query?where=1%3D1&f=json&token=\(token)")
            #expect(failed["error"]?["code"] == 503, "\(failed)")
            _ = try await Self.get(client, "\(Self.demo)/0/query?where=1%3D1&f=json")
            let entries = try await Self.journal(client, "&token=\(token)")
            #expect(entries.count == 2)
            #expect(entries.first?["user"] == "ada")
            #expect(entries.first?["fault"]?.stringValue == id)
            #expect(entries.first?["errorCode"] == 503)
            #expect(entries.first?["parameters"]?["token"] == "***")
            #expect(entries.last?["user"] == .null)
            #expect(entries.last?["errorCode"] == 499)
            #expect(entries.last?["fault"] == nil)
        }
    }

    @Test func sincePagesAndClearKeepsNumbering() async throws {
        try await Self.withTarget(DemoBackend.all[0]) { client, target in
            for _ in 0..<5 { _ = try await Self.get(client, "\(Self.demo)?f=json") }
            let page = try await Self.get(client, "/_outpost/journal?f=json&since=0&limit=2")
            #expect(page["entries"]?.arrayValue?.map { $0["seq"] } == [1, 2])
            let last = try #require(page["last"]?.int64Value)
            let next = try await Self.get(client, "/_outpost/journal?f=json&since=\(last)")
            #expect(next["entries"]?.arrayValue?.map { $0["seq"] } == [3, 4, 5])
            #expect(next["last"] == 5)
            _ = try await Self.post(client, "/_outpost/journal/clear", [("f", "json")])
            #expect(try await Self.journal(client).isEmpty)
            _ = try await Self.get(client, "\(Self.demo)?f=json")
            #expect(try await Self.journal(client, "&since=5").map { $0["seq"] } == [6])
            #expect(target.journal.lastSeq == 6)
        }
    }
}
