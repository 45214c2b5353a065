import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// What the application's service group does around serving (docs/decisions.md, "Background
/// work"): housekeeping before the first request, the backend's services beside the server.
@Suite struct StartupTests {
    @Test func housekeepingEndsBeforeTheFirstRequestAndShutdownEmptiesTheWAL() async throws {
        let store = try makeDemoStore(label: "startup")
        // What a killed run leaves: a job in progress, a spooled request body.
        var job = JobRecord(
            id: "jcutoff", serviceName: "Demo", kind: .createReplica, replicaId: "{R}", replicaName: "cut", submittedAt: store.clock.milliseconds())
        job.status = .exportingData
        try store.jobs.saveJob(job)
        try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
        let spooled = store.temporaryDirectory + "/body-cut-off"
        #expect(FileManager.default.createFile(atPath: spooled, contents: Data("half a body".utf8)))

        let app = buildApplication(store: store, port: 0)
        try await app.test(.router) { client in
            #expect(!FileManager.default.fileExists(atPath: spooled))
            #expect(store.database.checkpointer.isRunning)
            let status = try await get(client, "\(serviceURL)/jobs/jcutoff?f=json")
            #expect(status["status"] == "Failed", "\(status)")
            // A write the WAL holds until the shutdown copies it.
            let added = try await post(
                client, "\(serviceURL)/0/addFeatures", [("f", "json"), ("features", #"[{"attributes":{},"geometry":{"x":1,"y":2}}]"#)])
            #expect(added["addResults"]?[0]?["success"] == true, "\(added)")
        }
        #expect(store.database.checkpointer.counts.atShutdown == 1)
        let wal = try FileManager.default.attributesOfItem(atPath: store.path + "-wal")[.size] as? Int
        #expect(wal == 0, "the graceful shutdown left the whole database in its main file")
        try? FileManager.default.removeItem(atPath: store.directory)
    }
}
