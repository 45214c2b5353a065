import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostGeoPackage
import OutpostGeometry
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// Downloads a file the server handed out by URL to a temporary path.
func downloadFile(_ client: any TestClientProtocol, _ url: String, suffix: String = "gpkg") async throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("dl-\(UUID().uuidString).\(suffix)").path
    try await client.execute(uri: path(of: url), method: .get) { response in
        #expect(response.status == .ok)
        _ = FileManager.default.createFile(atPath: file, contents: Data(buffer: response.body))
    }
    return file
}

/// Uploads a file to the service's `uploads` and returns its item id.
func uploadFile(_ client: any TestClientProtocol, _ file: String) async throws -> String {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
    let (headers, body) = multipart(fields: [("f", "json")], file: ("file", "delta.gpkg", "application/geopackage+sqlite3", bytes))
    return try await client.execute(uri: "\(serviceURL)/uploads/upload", method: .post, headers: headers, body: body) { response in
        try #require(json(response)["item"]?["itemID"]?.stringValue)
    }
}

/// A GeoPackage replica of the trees in `corner`, downloaded.
func createTreeReplicaFile(_ client: any TestClientProtocol, name: String) async throws -> (answer: JSONValue, file: String) {
    let answer = try await createTreeReplica(client, name: name, extra: [("dataFormat", "sqlite")])
    return (answer, try await downloadFile(client, try #require(answer["URL"]?.stringValue)))
}

/// The GlobalIDs of a delta layer's edits, by kind.
func globalIds(_ features: [EditFeature]) -> [String] {
    features.compactMap { $0.attributes["GlobalID"]?.stringValue }
}

@Suite struct SyncDeltaRoutesTests {
    @Test func aGeoPackageAnswerCarriesTheSameChangesAsTheJSONAnswer() async throws {
        try await withFreshDemoApp { client, _ in
            let device = try DeviceReplica(created: try await createTreeReplica(client, name: "field"), layer: 2)
            let held = device.features.keys.sorted()
            let added = "{00000000-0000-0000-0000-00000000A001}"
            _ = try await post(
                client, "\(layerURL)/applyEdits",
                [
                    ("f", "json"), ("useGlobalIds", "true"),
                    ("adds", "[\(tree(added, height: 3))]"),
                    (
                        "updates",
                        #"[{"attributes":{"GlobalID":"\#(held[0])","height_m":77}}, {"attributes":{"GlobalID":"\#(held[1])"},"geometry":{"x":13.5,"y":52.5}}]"#
                    ),
                    ("deletes", #"["\#(held[2])"]"#),
                ])
            let request: [(String, String)] = [
                ("f", "json"), ("replicaID", device.id), ("transportType", "esriTransportTypeEmbedded"),
                ("syncLayers", #"[{"id":2,"serverGen":\#(device.generation),"syncDirection":"download"}]"#),
            ]
            let asJSON = try await post(client, "\(serviceURL)/synchronizeReplica", request)
            let asDelta = try await post(client, "\(serviceURL)/synchronizeReplica", request + [("dataFormat", "sqlite")])
            // A GeoPackage always travels by URL.
            #expect(asDelta["transportType"] == "esriTransportTypeUrl")
            #expect(asDelta["responseType"] == asJSON["responseType"])
            #expect(asDelta["layerServerGens"] == asJSON["layerServerGens"])
            let file = try await downloadFile(client, try #require(asDelta["URL"]?.stringValue))
            defer { try? FileManager.default.removeItem(atPath: file) }

            let delta = try ReplicaChanges.read(file)
            #expect(delta.delta?.kind == .download)
            #expect(delta.delta?.responseType == asJSON["responseType"]?.stringValue)
            #expect(delta.replicaId == device.id)
            let layer = try #require(delta.layers.first { $0.layerId == 2 })
            #expect(layer.sinceGen == device.generation && !layer.replacesRows)
            #expect(layer.serverGen == asJSON["layerServerGens"]?[0]?["serverGen"]?.int64Value)
            let features = try #require(asJSON["edits"]?[0]?["features"])
            #expect(globalIds(layer.edits.adds) == features["adds"]?.arrayValue?.compactMap { $0["attributes"]?["GlobalID"]?.stringValue })
            #expect(globalIds(layer.edits.adds) == [added])
            #expect(globalIds(layer.edits.updates) == [held[0]])
            #expect(layer.edits.updates.first?.attributes["height_m"]?.doubleValue == 77)
            let deleted = Set(layer.edits.deletes.compactMap { if case .globalId(let id) = $0 { id } else { nil } })
            #expect(deleted == Set(features["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? []))
            #expect(deleted == [held[1], held[2]])
            // Same attributes and geometry as the JSON add (dates as epoch ms, point in 4326).
            let jsonAdd = try #require(features["adds"]?[0])
            for (key, value) in jsonAdd["attributes"]?.objectValue ?? [:] {
                let mine = layer.edits.adds[0].attributes[key]
                #expect(mine == value || (mine?.doubleValue != nil && mine?.doubleValue == value.doubleValue), "\(key)")
            }
            #expect(layer.edits.adds[0].geometry?["x"] == jsonAdd["geometry"]?["x"])
            #expect(layer.edits.adds[0].geometry?["spatialReference"]?["wkid"] == 4326)
            // The delta is a GeoPackage any tool reads: its table holds the changed rows.
            let queue = try DatabaseQueue(path: file)
            defer { try? queue.close() }
            let (applicationId, rows, deletes) = try await queue.read { db in
                (
                    try Int32.fetchOne(db, sql: "PRAGMA application_id"), try Int.fetchOne(db, sql: "SELECT count(*) FROM Trees"),
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_sync_changes WHERE operation = 'delete'")
                )
            }
            #expect(applicationId == 0x4750_4B47 && rows == 2 && deletes == 2)
        }
    }

    @Test func anEditedReplicaFileUploadsAsADeltaOnceAndRetriesHarmlessly() async throws {
        try await withFreshDemoApp { client, store in
            let (created, file) = try await createTreeReplicaFile(client, name: "device")
            defer { try? FileManager.default.removeItem(atPath: file) }
            let replicaId = try #require(created["replicaID"]?.stringValue)
            let generation = try #require(created["layerServerGens"]?[0]?["serverGen"]?.int64Value)
            // Offline edits with plain SQL: the file's triggers log them.
            let queue = try ReplicaFile.open(file)
            let (updated, removed): (String, String) = try await queue.write { db in
                let ids = try String.fetchAll(db, sql: "SELECT GlobalID FROM Trees ORDER BY OBJECTID LIMIT 2")
                let point = GeoPackageBinary.encode(.point(.init(x: 13.21, y: 52.41)), srsID: 4326)
                try db.execute(sql: "INSERT INTO Trees(species, height_m, shape) VALUES ('Tilia cordata', 4.5, ?)", arguments: [Data(point)])
                try db.execute(sql: "INSERT INTO Trees(species, height_m, shape) VALUES ('Ephemeral', 1, ?)", arguments: [Data(point)])
                try db.execute(sql: "DELETE FROM Trees WHERE species = 'Ephemeral'")
                try db.execute(sql: "UPDATE Trees SET height_m = 99.5 WHERE GlobalID = ?", arguments: [ids[0]])
                try db.execute(sql: "DELETE FROM Trees WHERE GlobalID = ?", arguments: [ids[1]])
                return (ids[0], ids[1])
            }
            try queue.close()
            let local = try ReplicaChanges.read(file)
            #expect(local.delta == nil && local.changeCount == 3)
            let itemID = try await uploadFile(client, file)
            let request: [(String, String)] = [
                ("f", "json"), ("replicaID", replicaId), ("returnIdsForAdds", "true"), ("dataFormat", "sqlite"),
                ("syncLayers", #"[{"id":2,"serverGen":\#(generation),"syncDirection":"bidirectional"}]"#),
                ("editsUploadID", itemID), ("editsUploadFormat", "sqlite"),
            ]
            let answer = try await post(client, "\(serviceURL)/synchronizeReplica", request)
            #expect(answer["responseType"] == "esriReplicaResponseTypeEdits")
            let deltaFile = try await downloadFile(client, try #require(answer["URL"]?.stringValue))
            defer { try? FileManager.default.removeItem(atPath: deltaFile) }
            let delta = try ReplicaChanges.read(deltaFile)
            #expect(delta.editResults.map(\.operation) == [.insert, .update, .delete])
            #expect(delta.editResults.allSatisfy { $0.result.success })
            #expect(delta.editResults[0].result.objectId ?? 0 > 2500)
            // Its own edits are not echoed.
            #expect(delta.changeCount == 0)

            let trees = try await serverTrees(client)
            #expect(trees[updated]?["height_m"] == 99.5)
            #expect(trees[removed] == nil)
            #expect(trees.values.filter { $0["species"] == "Tilia cordata" && $0["height_m"] == 4.5 }.count == 1)
            #expect(!trees.values.contains { $0["species"] == "Ephemeral" })

            // The answer lost: the same upload again applies nothing and answers the same.
            let before = try store.edits.currentGeneration()
            let retried = try await post(client, "\(serviceURL)/synchronizeReplica", request)
            let retriedFile = try await downloadFile(client, try #require(retried["URL"]?.stringValue))
            defer { try? FileManager.default.removeItem(atPath: retriedFile) }
            let retriedDelta = try ReplicaChanges.read(retriedFile)
            #expect(retriedDelta.editResults == delta.editResults)
            #expect(try store.edits.currentGeneration() == before)
            let treesAfter = try await serverTrees(client)
            #expect(treesAfter.count == trees.count)
        }
    }

    @Test func uploadsThatAreNotThisReplicasChangesAreRefusedAndChangeNothing() async throws {
        try await withFreshDemoApp { client, store in
            let (created, file) = try await createTreeReplicaFile(client, name: "mine")
            let (_, other) = try await createTreeReplicaFile(client, name: "theirs")
            defer { for f in [file, other] { try? FileManager.default.removeItem(atPath: f) } }
            let replicaId = try #require(created["replicaID"]?.stringValue)
            let generation = try #require(created["layerServerGens"]?[0]?["serverGen"]?.int64Value)
            for path in [file, other] {
                let queue = try ReplicaFile.open(path)
                try await queue.write { db in
                    try db.execute(sql: "UPDATE Trees SET height_m = 1 WHERE OBJECTID IN (SELECT OBJECTID FROM Trees LIMIT 1)")
                }
                try queue.close()
            }
            // A file whose layer table was swapped for a view: the server reads no view.
            let planted = FileManager.default.temporaryDirectory.appendingPathComponent("planted-\(UUID().uuidString).gpkg").path
            try FileManager.default.copyItem(atPath: file, toPath: planted)
            let plantedQueue = try ReplicaFile.open(planted)
            try await plantedQueue.write { db in
                try db.execute(sql: "ALTER TABLE Trees RENAME TO Trees_real; CREATE VIEW Trees AS SELECT * FROM Trees_real")
            }
            try plantedQueue.close()
            let notSQLite = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).gpkg").path
            _ = FileManager.default.createFile(atPath: notSQLite, contents: Data("{\"adds\": []}".utf8))
            // A download delta is not an upload.
            let download = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", replicaId), ("dataFormat", "sqlite"),
                    ("syncLayers", #"[{"id":2,"serverGen":0,"syncDirection":"snapshot"}]"#),
                ])
            let downloadFile = try await downloadFile(client, try #require(download["URL"]?.stringValue))
            defer { for f in [planted, notSQLite, downloadFile] { try? FileManager.default.removeItem(atPath: f) } }

            let generationBefore = try store.edits.currentGeneration()
            for (bad, expected) in [
                (other, "not of"), (planted, "no table"), (notSQLite, "not a readable GeoPackage"), (downloadFile, "download delta"),
            ] {
                let itemID = try await uploadFile(client, bad)
                let answer = try await post(
                    client, "\(serviceURL)/synchronizeReplica",
                    [
                        ("f", "json"), ("replicaID", replicaId), ("editsUploadID", itemID), ("editsUploadFormat", "sqlite"),
                        ("syncLayers", #"[{"id":2,"serverGen":\#(generation)}]"#),
                    ])
                #expect(answer["error"]?["code"] == 400, "\(bad)")
                let message = answer["error"]?["details"]?.arrayValue?.compactMap(\.stringValue).joined() ?? ""
                #expect((answer["error"]?["message"]?.stringValue ?? "").contains(expected) || message.contains(expected), "\(answer)")
            }
            #expect(try store.edits.currentGeneration() == generationBefore)
        }
    }

    @Test func attachmentsTravelInDeltasBothWays() async throws {
        try await withFreshDemoApp { client, _ in
            let (writer, writerFile) = try await createCitiesReplicaFile(client, name: "writer")
            let (reader, readerFile) = try await createCitiesReplicaFile(client, name: "reader")
            defer { for f in [writerFile, readerFile] { try? FileManager.default.removeItem(atPath: f) } }
            let queue = try ReplicaFile.open(writerFile)
            let city = try await queue.write { db in
                let city = try #require(try String.fetchOne(db, sql: "SELECT GlobalID FROM Cities ORDER BY OBJECTID LIMIT 1"))
                try db.execute(
                    sql: """
                        INSERT INTO Cities__ATTACH(data, content_type, REL_GLOBALID, ATT_NAME, DATA_SIZE) VALUES (?, 'text/plain', ?, 'note.txt', 5)
                        """, arguments: [Data("hello".utf8), city])
                return city
            }
            try queue.close()
            let itemID = try await uploadFile(client, writerFile)
            let uploaded = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", try #require(writer["replicaID"]?.stringValue)), ("dataFormat", "sqlite"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(try #require(writer["layerServerGens"]?[0]?["serverGen"]?.int64Value))}]"#),
                    ("editsUploadID", itemID), ("editsUploadFormat", "sqlite"),
                ])
            let results = try ReplicaChanges.read(try await downloadFile(client, try #require(uploaded["URL"]?.stringValue))).editResults
            #expect(results.map(\.item) == [.attachment] && results.first?.result.success == true)

            let downloaded = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", try #require(reader["replicaID"]?.stringValue)), ("dataFormat", "sqlite"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(try #require(reader["layerServerGens"]?[0]?["serverGen"]?.int64Value))}]"#),
                ])
            let deltaFile = try await downloadFile(client, try #require(downloaded["URL"]?.stringValue))
            defer { try? FileManager.default.removeItem(atPath: deltaFile) }
            let attachments = try #require(try ReplicaChanges.read(deltaFile).layers.first?.edits.attachments)
            #expect(attachments.adds.count == 1)
            #expect(attachments.adds.first?.parentGlobalId == city && attachments.adds.first?.name == "note.txt")
            #expect(attachments.adds.first?.source == .data(Array("hello".utf8)))
        }
    }
}
