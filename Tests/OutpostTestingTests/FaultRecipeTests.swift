import Foundation
import OutpostClient
import OutpostTesting
import OutpostWire
import Testing

/// Recipes of docs/testing-your-app.md that need the control API's faults: a download cut on
/// the way, a token expiring while a job is held.
@Suite struct FaultRecipeTests {
    /// Recipe: the replica's download is cut at 60 %; the job goes on from the byte it had,
    /// and the file is whole.
    @Test func aReplicaDownloadCutAtSixtyPercentResumesFromItsByte() async throws {
        let server = try await OutpostTestServer.start(seed: 42, backend: try Recipe.backend())
        let folder = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rule = try await server.faults.inject(FaultRule(operation: "replicaFile", cutAfterFraction: 0.6, count: 1))
        let task = GeodatabaseSyncTask(url: server.featureServer())
        let geodatabase = try await Recipe.generateTrees(task, in: folder)
        #expect(try geodatabase.query(try geodatabase.featureTable(layerId: 2)).count > 0)
        geodatabase.close()
        #expect(try await server.faults.rule(rule)?.fired == 1)
        // Two requests for the file: the cut one from byte 0, and the rest from the byte the cut left.
        let har = try await server.journal.har()
        let ranges = (har["log"]?["entries"]?.arrayValue ?? []).compactMap { entry in
            (entry["request"]?["headers"]?.arrayValue ?? []).first { $0["name"]?.stringValue?.lowercased() == "range" }?["value"]?.stringValue
        }
        let starts = ranges.compactMap { Int($0.dropFirst("bytes=".count).prefix { $0 != "-" }) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: geodatabase.path)[.size] as? Int)
        #expect(starts.count == 2 && starts.first == 0, "\(ranges)")
        #expect((starts.last ?? 0) >= size * 6 / 10 - 1 && (starts.last ?? 0) < size, "resumed at \(ranges) of \(size) bytes")
        await server.stop()
    }

    /// Recipe: the app's token expires while its sync job is held on the server; released, the
    /// job's next status request is answered 498 and the job fails saying so (the client
    /// library does not sign in again by itself: it was given a token, not a password).
    @Test func aTokenExpiringMidJobFailsTheJobWithTokenExpired() async throws {
        let server = try await OutpostTestServer.start(seed: 42, backend: try Recipe.backend(), requireAuth: true)
        try server.addUser(name: "field", role: .editor, password: "field-worker-password-1")
        let token = try await server.token(for: "field", password: "field-worker-password-1", minutes: 60)
        let folder = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = GeodatabaseSyncTask(url: server.featureServer(), token: token)
        let geodatabase = try await Recipe.generateTrees(task, in: folder)
        _ = try Recipe.addTree(geodatabase, species: "Late oak")

        try await server.faults.inject(FaultRule(operation: "synchronizeReplica", job: .hold, count: 1))
        let job = task.makeSyncGeodatabaseJob(parameters: SyncGeodatabaseParameters(), geodatabase: geodatabase)
        job.pollInterval = .milliseconds(200)
        job.start()
        let held = try #require(try await server.jobs.waitForHeld().first)
        try await server.clock.advance(by: .minutes(61))
        try await server.jobs.release(held.jobId)
        do {
            _ = try await job.output
            Issue.record("the job went on with an expired token")
        } catch let ClientError.server(code, message, _) {
            #expect(code == 498, "\(code) \(message)")
        }
        #expect(try await server.journal.count(.init(operation: "jobStatus", errorCode: 498)) >= 1)
        #expect(try geodatabase.hasLocalEdits, "the edit waits for the next sync")
        geodatabase.close()
        await server.stop()
    }
}
