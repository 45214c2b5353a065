import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostClient
import OutpostGeometry
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// A device that synced after the backup its server was restored from converges with the
/// restored server on its own (docs/operations.md, "After a restore"): nothing it holds is
/// lost, no feature is doubled on the server, and each value its resend overwrote is logged.
@Suite struct RestoredServerRecoveryTests {
    /// Serves `store` on loopback; `body` gets the Demo FeatureServer URL.
    static func serving(_ store: SpatiaLiteBackend, _ body: @Sendable (URL) async throws -> Void) async throws {
        let app = Application(
            router: buildRouter(store: store, options: ServerOptions()), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(URL(string: "http://127.0.0.1:\(port)/arcgis/rest/services/Demo/FeatureServer")!)
        }
    }

    static func tree(_ height: Double) -> LocalFeature {
        LocalFeature(attributes: ["height_m": .double(height)], geometry: .point(Point(x: 13.21, y: 52.41)))
    }

    @Test func aDeviceAheadOfARestoredServerSendsEverythingAgainAndConverges() async throws {
        try await withLiveServer { url, store, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/restored.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            let beforeBackup = try geodatabase.add(Self.tree(1), to: trees)
            try await sync(task, geodatabase)
            let backup = try SpatiaLiteBackup.backup(data: store.directory, into: "\(device)/backups").folder
            // Acknowledged by the server, then lost with it.
            let afterBackup = try geodatabase.add(Self.tree(2), to: trees)
            try await sync(task, geodatabase)
            // Not sent yet.
            let pending = try geodatabase.add(Self.tree(3), to: trees)

            _ = try SpatiaLiteBackup.restore(backup, into: "\(device)/restored")
            let restored = try SpatiaLiteBackend(dataDirectory: "\(device)/restored")
            try await Self.serving(restored) { restoredURL in
                // Someone edits a tree online on the restored server; the device holds it unchanged.
                let contested = try #require(
                    try geodatabase.query(trees).first {
                        $0["GlobalID"] != beforeBackup["GlobalID"] && $0["GlobalID"] != afterBackup["GlobalID"]
                            && $0["GlobalID"] != pending["GlobalID"]
                    })
                let connection = ServiceConnection(serviceURL: restoredURL)
                _ = try await connection.postForm(
                    connection.url("2/applyEdits"),
                    [
                        ("updates", #"[{"attributes":{"GlobalID":"\#(contested["GlobalID"]!.stringValue!)","height_m":99}}]"#),
                        ("useGlobalIds", "true"),
                    ])

                let restoredTask = GeodatabaseSyncTask(url: restoredURL)
                let job = restoredTask.makeSyncGeodatabaseJob(geodatabase: geodatabase)
                job.pollInterval = .milliseconds(20)
                job.start()
                let result = try await job.output
                #expect(result.failedEdits.isEmpty)
                #expect(job.messages.contains { $0.text.contains("restored from a backup") })
                #expect(try geodatabase.localEditCount == 0)

                // The server holds every feature the device holds, once; the device holds the server's.
                let server = try await serverTrees(connection)
                let local = try geodatabase.query(trees)
                for feature in [beforeBackup, afterBackup, pending] {
                    #expect(server[feature["GlobalID"]!.stringValue!] != nil)
                }
                #expect(Set(local.compactMap { $0["GlobalID"]?.stringValue }) == Set(server.keys))
                var query = LayerQuery()
                query.outFields = ["GlobalID"]
                guard case .features(let page) = try restored.features.query(query, service: "Demo", layer: 2) else { return }
                let column = try #require(page.fields.firstIndex { $0.name == "GlobalID" })
                let ids = page.features.compactMap { $0.attributes[column].stringValue }
                #expect(Set(ids).count == ids.count, "no feature doubled")
                // The online value the resend overwrote is in the conflict log.
                let info = try geodatabase.info()
                let conflicts = try restored.conflicts.conflicts(service: "Demo", replicaId: info.replicaId)
                #expect(
                    conflicts.contains {
                        $0.globalId == contested["GlobalID"]!.stringValue! && $0.feature?["attributes"]?["height_m"]?.doubleValue == 99
                    })
            }
        }
    }

    @Test func aDeviceRegisteredAfterTheBackupIsRegisteredAgainOnRequestAndConverges() async throws {
        try await withLiveServer { url, store, device in
            let backup = try SpatiaLiteBackup.backup(data: store.directory, into: "\(device)/backups").folder
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/late.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            let synced = try geodatabase.add(Self.tree(4), to: trees)
            try await sync(task, geodatabase)
            let pending = try geodatabase.add(Self.tree(5), to: trees)
            let before = try geodatabase.info().replicaId

            _ = try SpatiaLiteBackup.restore(backup, into: "\(device)/restored")
            let restored = try SpatiaLiteBackend(dataDirectory: "\(device)/restored")
            try await Self.serving(restored) { restoredURL in
                let restoredTask = GeodatabaseSyncTask(url: restoredURL)
                // The restored server never knew the replica: the job fails as for any unknown one.
                await #expect(throws: ClientError.self) { try await sync(restoredTask, geodatabase) }
                let note = try await restoredTask.resendAfterRestore(geodatabase)
                #expect(note.contains("sending all"))
                #expect(try geodatabase.info().replicaId != before)
                let result = try await sync(restoredTask, geodatabase)
                #expect(result.failedEdits.isEmpty)
                #expect(try geodatabase.localEditCount == 0)
                let server = try await serverTrees(ServiceConnection(serviceURL: restoredURL))
                #expect(server[synced["GlobalID"]!.stringValue!] != nil && server[pending["GlobalID"]!.stringValue!] != nil)
                let local = Set(try geodatabase.query(trees).compactMap { $0["GlobalID"]?.stringValue })
                #expect(local == Set(server.keys), "only here: \(local.subtracting(server.keys)), only there: \(Set(server.keys).subtracting(local))")
            }
        }
    }
}
