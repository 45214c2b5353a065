import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Snapshots of a test target (docs/testing-your-app.md, "Snapshots"), on both backends, with
/// token security on: a restore takes back everything written after its snapshot — features,
/// attachments, replicas, items, jobs, tokens — while the server serves.
@Suite struct TestTargetSnapshotTests {
    static let layer = "/arcgis/rest/services/Demo/FeatureServer/0"

    struct Served: Sendable {
        var store: any OutpostBackend
        var client: any TestClientProtocol
        var admin: String
    }

    /// A demo store with `ada` (admin) and `eve` (editor), served live as a test target (so
    /// the `start` snapshot is taken as it starts).
    static func withTarget(_ backend: DemoBackend, _ body: @Sendable (Served) async throws -> Void) async throws {
        let store = try backend.make()
        try store.users.addUser("ada", role: .admin, password: "ada-password", rounds: 1000)
        try store.users.addUser("eve", role: .editor, password: "eve-password", rounds: 1000)
        let admin = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 60).token
        var options = ServerOptions(requireAuth: true)
        options.testTarget = TestTarget()
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in
            try await body(Served(store: store, client: client, admin: admin))
        }
    }

    /// Sends a request with `token`; a POST's fields as a form. The status and the JSON.
    static func send(
        _ client: any TestClientProtocol, _ path: String, token: String, post fields: [(String, String)]? = nil
    ) async throws -> (
        status: Int, json: JSONValue
    ) {
        var headers: HTTPFields = [:]
        var body: ByteBuffer?
        let all = (fields ?? []) + [("f", "json"), ("token", token)]
        let form = all.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        if fields != nil {
            headers[.contentType] = "application/x-www-form-urlencoded"
            body = ByteBuffer(string: form)
        }
        let uri = fields == nil ? path + (path.contains("?") ? "&" : "?") + form : path
        return try await client.execute(uri: uri, method: fields == nil ? .get : .post, headers: headers, body: body) { response in
            let json = (try? JSONParser.parse(String(buffer: response.body))) ?? .null
            let code = json["error"]?["code"]?.int64Value.map(Int.init) ?? Int(response.status.code)
            return (code, json)
        }
    }

    static func cityCount(_ served: Served, token: String? = nil) async throws -> Int64 {
        let answer = try await send(served.client, "\(layer)/query?where=1%3D1&returnCountOnly=true", token: token ?? served.admin)
        return try #require(answer.json["count"]?.int64Value, "\(answer.json)")
    }

    static func addCity(_ served: Served, _ name: String) async throws -> Int64 {
        let features = #"[{"attributes":{"name":"\#(name)"},"geometry":{"x":13.4,"y":52.5}}]"#
        let answer = try await send(served.client, "\(layer)/addFeatures", token: served.admin, post: [("features", features)])
        return try #require(answer.json["addResults"]?[0]?["objectId"]?.int64Value, "\(answer.json)")
    }

    static func attachmentCount(_ served: Served, of objectId: Int64) async throws -> Int {
        let answer = try await send(served.client, "\(layer)/\(objectId)/attachments", token: served.admin)
        return try #require(answer.json["attachmentInfos"]?.arrayValue, "\(answer.json)").count
    }

    static func control(_ served: Served, _ path: String, post fields: [(String, String)]? = []) async throws -> (status: Int, json: JSONValue) {
        try await send(served.client, "/_outpost/\(path)", token: served.admin, post: fields)
    }

    /// Writes one of everything a restore must take back; the ids written.
    static func writeEverything(_ served: Served) async throws -> (city: Int64, item: String, job: String, token: String) {
        let store = served.store
        let city = try await addCity(served, "After")
        let path = TestFolders.file("snapshot-attachment-\(UUID().uuidString)")
        try Data("after".utf8).write(to: URL(fileURLWithPath: path))
        _ = try store.edits.addAttachment(
            service: "Demo", layer: 0, parentObjectId: 1,
            input: AttachmentInput(name: "after.txt", contentType: "text/plain", keywords: "", sourcePath: path, size: 5))
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0"), ("replicaName", "after"), ("returnAttachments", "true")]))
        let plan = try ReplicaPlanner.plan(
            request, service: try store.service(named: "Demo").definition, replicaId: GlobalID.make(), owner: "ada", takenNames: [],
            now: store.clock.milliseconds())
        let (definition, _) = try store.sync.exportReplica(
            plan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        try store.replicas.registerReplica(definition)
        let item = PortalItem(
            id: PortalNames.newId(), owner: "ada", title: "after", type: "Web Mapping Application", access: .private,
            created: store.clock.milliseconds())
        try store.portal.addItem(item, data: .text("{}"))
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: "Demo", kind: .exportTiles, replicaId: "", replicaName: "",
            submittedAt: store.clock.milliseconds())
        try store.jobs.saveJob(job)
        let token = try store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 60).token
        return (city, item.id, job.id, token)
    }

    @Test(arguments: DemoBackend.all)
    func restoreTakesBackEverythingWrittenAfterTheSnapshot(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            let store = served.store
            let keeper = try await Self.addCity(served, "Keeper")
            let saved = try await Self.control(served, "snapshots", post: [("name", "before-edits")])
            #expect(saved.status == 200, "\(saved.json)")
            #expect(saved.json["snapshot"]?["name"]?.stringValue == "before-edits")
            #expect((saved.json["snapshot"]?["bytes"]?.int64Value ?? 0) > 0)
            let cities = try await Self.cityCount(served)
            let attachments = try await Self.attachmentCount(served, of: 1)
            let replicas = try store.replicas.allReplicas().count

            let written = try await writeEverythingAndCheck(served, cities: cities, attachments: attachments)
            let restored = try await Self.control(served, "snapshots/before-edits/restore", post: [])
            #expect(restored.status == 200, "\(restored.json)")
            #expect(restored.json["restored"]?.stringValue == "before-edits")

            #expect(try await Self.cityCount(served) == cities)
            #expect(try await Self.attachmentCount(served, of: 1) == attachments)
            #expect(try store.replicas.allReplicas().count == replicas)
            #expect(try store.portal.item(id: written.item) == nil)
            #expect(try store.jobs.job(id: written.job) == nil)
            let refused = try await Self.send(served.client, "\(Self.layer)/query?where=1%3D1&returnCountOnly=true", token: written.token)
            #expect(refused.status == 498, "\(refused.json)")
            // The snapshot's own data is intact: the feature added before it, and it is still listed.
            let kept = try await Self.send(served.client, "\(Self.layer)/\(keeper)", token: served.admin)
            #expect(kept.json["feature"]?["attributes"]?["name"]?.stringValue == "Keeper", "\(kept.json)")
            let listed = try await Self.control(served, "snapshots", post: nil)
            let names = listed.json["snapshots"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(names.contains("before-edits") && names.contains("start"), "\(listed.json)")
            // Ids go on as they would have after the snapshot: the next city gets the id `After` got.
            #expect(try await Self.addCity(served, "Again") == written.city)
        }
    }

    func writeEverythingAndCheck(
        _ served: Served, cities: Int64, attachments: Int
    ) async throws -> (
        city: Int64, item: String, job: String, token: String
    ) {
        let written = try await Self.writeEverything(served)
        // Each write is there before the restore (else the restore proves nothing).
        #expect(try await Self.cityCount(served) == cities + 1)
        #expect(try await Self.attachmentCount(served, of: 1) == attachments + 1)
        #expect(try served.store.portal.item(id: written.item) != nil)
        #expect(try served.store.jobs.job(id: written.job) != nil)
        #expect(try await Self.cityCount(served, token: written.token) == cities + 1)
        return written
    }

    static func attach(_ store: any OutpostBackend, _ text: String, to objectId: Int64) throws -> Int64 {
        let path = TestFolders.file("snapshot-attachment-\(UUID().uuidString)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let input = AttachmentInput(name: "\(text).txt", contentType: "text/plain", keywords: "", sourcePath: path, size: text.utf8.count)
        return try #require(try store.edits.addAttachment(service: "Demo", layer: 0, parentObjectId: objectId, input: input).objectId)
    }

    static func attachmentBytes(_ served: Served, _ objectId: Int64, _ attachmentId: Int64) async throws -> (Int, String) {
        let uri = "\(layer)/\(objectId)/attachments/\(attachmentId)?token=\(served.admin)"
        return try await served.client.execute(uri: uri, method: .get) { response in (Int(response.status.code), String(buffer: response.body)) }
    }

    /// The files come back with the rows: an attachment deleted after the snapshot (its file
    /// gone) is downloadable again; one added after it is gone, file and row.
    @Test(arguments: DemoBackend.all)
    func restoreBringsBackTheSnapshotsFiles(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            let before = try Self.attach(served.store, "kept bytes", to: 2)
            _ = try await Self.control(served, "snapshots", post: [("name", "files")])
            let deleted = try served.store.edits.deleteAttachments(
                service: "Demo", layer: 0, parentObjectId: 2, attachmentIds: [before], rollbackOnFailure: true)
            #expect(deleted.allSatisfy { $0.success }, "\(deleted) \(before)")
            let after = try Self.attach(served.store, "later bytes", to: 2)
            let gone = try await Self.attachmentBytes(served, 2, before)
            #expect(gone.1 != "kept bytes", "\(gone) \(before)")
            #expect(try await Self.attachmentBytes(served, 2, after) == (200, "later bytes"))
            #expect(try await Self.control(served, "snapshots/files/restore").status == 200)
            #expect(try await Self.attachmentBytes(served, 2, before) == (200, "kept bytes"))
            #expect(try await Self.attachmentBytes(served, 2, after).1 != "later bytes")
        }
    }

    /// A service made after the snapshot goes with the restore, tables and catalog (each
    /// backend's catalog cache too), and can be made again after it.
    @Test(arguments: DemoBackend.all)
    func aServiceMadeAfterTheSnapshotIsGoneAfterItsRestore(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            _ = try await Self.control(served, "snapshots", post: [("name", "schema")])
            try served.store.schema.createService(pointLayerService(name: "Later"))
            #expect(try await Self.send(served.client, "/arcgis/rest/services/Later/FeatureServer/0", token: served.admin).status == 200)
            #expect(try await Self.control(served, "snapshots/schema/restore").status == 200)
            let gone = try await Self.send(served.client, "/arcgis/rest/services/Later/FeatureServer/0", token: served.admin)
            #expect(gone.status != 200, "\(gone.json)")
            #expect(throws: (any Error).self) { try served.store.service(named: "Later") }
            try served.store.schema.createService(pointLayerService(name: "Later"))
            #expect(try await Self.send(served.client, "/arcgis/rest/services/Later/FeatureServer/0", token: served.admin).status == 200)
        }
    }

    /// `serve --seed-data`: a snapshot folder copied elsewhere restores into another store.
    @Test func aCopiedSnapshotFolderSeedsAnotherStore() async throws {
        let first = try makeDemoStore(label: "seed-source")
        let path = TestFolders.file("seed-\(UUID().uuidString)")
        try Data("seeded".utf8).write(to: URL(fileURLWithPath: path))
        _ = try first.edits.addAttachment(
            service: "Demo", layer: 0, parentObjectId: 3,
            input: AttachmentInput(name: "seed.txt", contentType: "text/plain", keywords: "", sourcePath: path, size: 6))
        _ = try first.snapshots.save(try SnapshotName("seed"))
        let copy = TestFolders.make("seed-copy") + "/seed"
        try FileManager.default.copyItem(atPath: SnapshotShelf(data: first.directory).folder(of: try SnapshotName("seed")), toPath: copy)
        let second = try makeDemoStore(label: "seed-target")
        try second.users.addUser("later", role: .viewer, password: "later-password", rounds: 1000)
        #expect(try second.users.user(named: "later") != nil)
        try second.snapshots.restore(folder: copy)
        #expect(try second.users.user(named: "later") == nil)
        let groups = try second.features.attachmentInfos(layer: try second.layer(service: "Demo", id: 0), objectIds: [3])
        #expect(groups.flatMap(\.attachments).contains { $0.name == "seed.txt" })
        #expect(throws: SnapshotError.self) { try second.snapshots.restore(folder: TestFolders.make("not-a-snapshot")) }
    }

    @Test(arguments: DemoBackend.all)
    func resetRestoresTheStartSnapshot(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            let cities = try await Self.cityCount(served)
            _ = try await Self.addCity(served, "Later")
            #expect(try await Self.cityCount(served) == cities + 1)
            let reset = try await Self.control(served, "reset", post: [])
            #expect(reset.status == 200, "\(reset.json)")
            #expect(reset.json["restored"]?.stringValue == "start")
            #expect(try await Self.cityCount(served) == cities)
        }
    }

    @Test(arguments: DemoBackend.all)
    func queriesDuringARestoreSeeTheOldStateOrTheNew(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            let cities = try await Self.cityCount(served)
            _ = try await Self.control(served, "snapshots", post: [("name", "loop")])
            for index in 0..<20 { _ = try await Self.addCity(served, "Extra \(index)") }
            let answers = try await withThrowingTaskGroup(of: [String].self) { group in
                let stop = SnapshotTestFlag(false)
                group.addTask {
                    var seen: [String] = []
                    while !stop.value {
                        let answer = try await Self.send(served.client, "\(Self.layer)/query?where=1%3D1&returnCountOnly=true", token: served.admin)
                        seen.append(answer.json["count"]?.int64Value.map { "\($0)" } ?? "error \(answer.json)")
                    }
                    return seen
                }
                for _ in 0..<3 {
                    let restored = try await Self.control(served, "snapshots/loop/restore", post: [])
                    #expect(restored.status == 200, "\(restored.json)")
                    for index in 0..<20 { _ = try await Self.addCity(served, "Extra \(index)") }
                }
                stop.value = true
                return try await group.reduce([], +)
            }
            #expect(!answers.isEmpty)
            let allowed = Set((0...20).map { "\(cities + Int64($0))" })
            #expect(answers.allSatisfy(allowed.contains), "\(answers.filter { !allowed.contains($0) }.prefix(3))")
        }
    }

    /// Edits sent while restores run all succeed: a restore waits for writes in flight and
    /// they for it, as any two writes (none is refused, none deadlocks).
    @Test(arguments: DemoBackend.all)
    func editsDuringARestoreSucceed(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            _ = try await Self.control(served, "snapshots", post: [("name", "edits")])
            let failures = try await withThrowingTaskGroup(of: [String].self) { group in
                let stop = SnapshotTestFlag(false)
                for writer in 0..<2 {
                    group.addTask {
                        var failed: [String] = []
                        var index = 0
                        while !stop.value {
                            index += 1
                            let features = #"[{"attributes":{"name":"W\#(writer)-\#(index)"},"geometry":{"x":1,"y":2}}]"#
                            let answer = try await Self.send(
                                served.client, "\(Self.layer)/addFeatures", token: served.admin, post: [("features", features)])
                            if answer.json["addResults"]?[0]?["success"]?.boolValue != true { failed.append("\(answer.json)") }
                        }
                        return failed
                    }
                }
                for _ in 0..<5 {
                    let restored = try await Self.control(served, "snapshots/edits/restore", post: [])
                    #expect(restored.status == 200, "\(restored.json)")
                    try await Task.sleep(for: .milliseconds(20))
                }
                stop.value = true
                return try await group.reduce([], +)
            }
            #expect(failures.isEmpty, "\(failures.prefix(3))")
        }
    }

    @Test(arguments: DemoBackend.all)
    func badNamesAreRefusedAndChangeNothing(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            for name in ["", "a/b", "..", "has space", "ünïcode", String(repeating: "x", count: 65), "a;DROP TABLE outpost_services"] {
                let answer = try await Self.control(served, "snapshots", post: [("name", name)])
                #expect(answer.status == 400, "\(name): \(answer.json)")
            }
            for path in ["snapshots/a.b/restore", "snapshots/a%20b/delete", "snapshots/%2E%2E/restore"] {
                #expect(try await Self.control(served, path).status == 400, "\(path)")
            }
            #expect(try await Self.control(served, "snapshots/never-saved/restore").status == 404)
            #expect(try await Self.control(served, "snapshots/never-saved/delete").status == 404)
            let listed = try await Self.control(served, "snapshots", post: nil)
            #expect(listed.json["snapshots"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["start"], "\(listed.json)")
            _ = try await Self.control(served, "snapshots", post: [("name", "gone")])
            #expect(try await Self.control(served, "snapshots/gone/delete").status == 200)
            #expect(try await Self.control(served, "snapshots/gone/restore").status == 404)
        }
    }

    /// `start` is the server's own snapshot: saving over it or deleting it through the API is
    /// refused (400, saying so) and changes nothing; restoring it and `reset` still work.
    @Test(arguments: DemoBackend.all)
    func theStartSnapshotIsTheServersOwn(_ backend: DemoBackend) async throws {
        try await Self.withTarget(backend) { served in
            let cities = try await Self.cityCount(served)
            _ = try await Self.addCity(served, "Later")
            for (path, fields) in [("snapshots", [("name", "start")]), ("snapshots", [("name", "START")]), ("snapshots/start/delete", [])] {
                let answer = try await Self.control(served, path, post: fields)
                #expect(answer.status == 400, "\(path) \(fields): \(answer.json)")
                let text = "\(answer.json["error"]?["details"]?[0]?.stringValue ?? "")"
                #expect(text.contains("server's own snapshot"), "\(answer.json)")
            }
            let restored = try await Self.control(served, "snapshots/start/restore")
            #expect(restored.status == 200 && restored.json["restored"]?.stringValue == "start", "\(restored.json)")
            #expect(try await Self.cityCount(served) == cities)
            _ = try await Self.addCity(served, "Later again")
            #expect(try await Self.control(served, "reset").status == 200)
            #expect(try await Self.cityCount(served) == cities)
        }
    }
}

/// A flag one task sets and another reads.
final class SnapshotTestFlag<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
