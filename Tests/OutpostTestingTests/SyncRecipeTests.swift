import Foundation
import OutpostClient
import OutpostTesting
import OutpostWire
import Testing

/// Recipes of docs/testing-your-app.md for a sync: an app's `GeodatabaseSyncTask` against an
/// `OutpostTestServer`, each situation made by the control API or an admin's normal request.
@Suite struct SyncRecipeTests {
    /// Recipe: a sync failing once with an ArcGIS error, then retried successfully.
    @Test func aSyncFailingWithAnInjectedErrorIsRetriedSuccessfully() async throws {
        let server = try await OutpostTestServer.start(seed: 42, backend: try Recipe.backend())
        let folder = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = GeodatabaseSyncTask(url: server.featureServer())
        let geodatabase = try await Recipe.generateTrees(task, in: folder)
        let tree = try Recipe.addTree(geodatabase, species: "Retried oak")

        let rule = try await server.faults.inject(
            FaultRule(operation: "synchronizeReplica", error: .init(code: 500, message: "Unable to synchronize replica."), count: 1))
        await #expect(throws: ClientError.server(code: 500, message: "Unable to synchronize replica.", details: [])) {
            try await Recipe.sync(task, geodatabase)
        }
        let service = ServiceConnection(serviceURL: server.featureServer())
        #expect(try await Recipe.serverTree(service, tree) == nil, "the failed sync sent nothing")

        try await Recipe.sync(task, geodatabase)
        #expect(try await Recipe.serverTree(service, tree)?["species"] == "Retried oak")
        #expect(try await server.faults.rule(rule)?.fired == 1)
        #expect(try await server.journal.count(.init(operation: "synchronizeReplica", errorCode: 500)) == 1)
        geodatabase.close()
        await server.stop()
    }

    /// Recipe: an admin unregisters the app's replica behind its back; the app's next sync
    /// fails with the server's "Replica not found." and the client says so.
    @Test func aReplicaUnregisteredByAnAdminFailsTheNextSyncSayingSo() async throws {
        let server = try await OutpostTestServer.start(backend: try Recipe.backend())
        let folder = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = GeodatabaseSyncTask(url: server.featureServer())
        let geodatabase = try await Recipe.generateTrees(task, in: folder)
        let replica = try geodatabase.info().replicaId

        let admin = ServiceConnection(serviceURL: server.featureServer())
        _ = try await admin.postForm(admin.url("unRegisterReplica"), [("replicaID", replica)])

        _ = try Recipe.addTree(geodatabase, species: "Orphan")
        do {
            try await Recipe.sync(task, geodatabase)
            Issue.record("a sync of an unregistered replica succeeded")
        } catch let ClientError.server(code, message, details) {
            #expect(code == 404 && message == "Replica not found." && details.joined().contains(replica), "\(code) \(message) \(details)")
        }
        #expect(try geodatabase.hasLocalEdits, "the edit stays on the device")
        geodatabase.close()
        await server.stop()
    }

    /// Recipe: another user edits a feature online while the app edits it offline; the app's
    /// sync wins (last in wins) and the overwritten value is in the replica's conflict log.
    @Test func aConflictingOnlineEditIsResolvedLastInWinsWithItsConflictRow() async throws {
        let server = try await OutpostTestServer.start(backend: try Recipe.backend())
        let folder = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = GeodatabaseSyncTask(url: server.featureServer())
        let geodatabase = try await Recipe.generateTrees(task, in: folder)
        let trees = try geodatabase.featureTable(layerId: 2)
        let tree = try #require(try geodatabase.query(trees).first)
        let globalId = try #require(tree["GlobalID"]?.stringValue)

        try geodatabase.update(LocalFeature(attributes: ["GlobalID": .string(globalId), "species": "Offline name"]), in: trees)
        let colleague = ServiceConnection(serviceURL: server.featureServer())
        let online = try await colleague.postForm(
            colleague.url("2/applyEdits"),
            [("updates", #"[{"attributes":{"OBJECTID":\#(tree["OBJECTID"]?.int64Value ?? -1),"species":"Online name"}}]"#)])
        #expect(online["updateResults"]?[0]?["success"] == true, "\(online)")

        try await Recipe.sync(task, geodatabase)
        #expect(try await Recipe.serverTree(colleague, globalId)?["species"] == "Offline name", "last in wins")
        let replica = try geodatabase.info().replicaId
        let log = try await colleague.getJSON(colleague.url("replicas/\(replica)/conflicts"))
        let conflicts = log["conflicts"]?.arrayValue ?? []
        #expect(conflicts.count == 1, "\(log)")
        #expect(GlobalID.normalize(conflicts.first?["globalId"]?.stringValue ?? "") == GlobalID.normalize(globalId))
        #expect(conflicts.first?["overwrittenBy"] == .null, "an online edit")
        #expect(conflicts.first?["feature"]?["attributes"]?["species"] == "Online name", "\(log)")
        geodatabase.close()
        await server.stop()
    }
}
