import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostWire
import Testing

@testable import OutpostServer

@Suite struct SyncRoutesTests {
    @Test func bidirectionalSyncUploadsThenDownloadsTheChangesSinceItsGeneration() async throws {
        try await withFreshDemoApp { client, store in
            var device = try DeviceReplica(created: try await createTreeReplica(client, name: "field"), layer: 2)
            let held = device.features.keys.sorted()
            #expect(held.count > 20)
            // Online edits after the replica was made.
            let online = try await post(
                client, "\(layerURL)/applyEdits",
                [
                    ("f", "json"), ("useGlobalIds", "true"),
                    (
                        "adds",
                        "[\(tree("{00000000-0000-0000-0000-00000000A001}", height: 3)), \(tree("{00000000-0000-0000-0000-00000000A002}", height: 3, x: 13.5))]"
                    ),
                    (
                        "updates",
                        #"[{"attributes":{"GlobalID":"\#(held[0])","height_m":77}}, {"attributes":{"GlobalID":"\#(held[1])"},"geometry":{"x":13.5,"y":52.5}}]"#
                    ),
                    ("deletes", #"["\#(held[2])"]"#),
                ])
            #expect(online["addResults"]?.arrayValue?.count == 2)
            let added = "{00000000-0000-0000-0000-00000000B001}"
            let answer = try await device.sync(
                client,
                edits:
                    #"{"adds":[\#(tree(added, height: 1))],"updates":[{"attributes":{"GlobalID":"\#(held[3])","height_m":12.5}}],"deleteIds":["\#(held[4])"]}"#
            )
            #expect(answer["responseType"] == "esriReplicaResponseTypeEdits")
            let entry = try #require(answer["edits"]?.arrayValue?.first)
            #expect(entry["addResults"]?[0]?["success"] == true && entry["addResults"]?[0]?["globalId"] == .string(added))
            #expect(entry["addResults"]?[0]?["objectId"]?.int64Value ?? 0 > 2500)
            #expect(entry["updateResults"]?[0]?["success"] == true && entry["deleteResults"]?[0]?["success"] == true)
            let features = try #require(entry["features"])
            // The online add inside the extent; the one outside is not the replica's.
            #expect(features["adds"]?.arrayValue?.map { $0["attributes"]?["GlobalID"] } == [.string("{00000000-0000-0000-0000-00000000A001}")])
            // The online update; the replica's own update and add are not echoed.
            #expect(features["updates"]?.arrayValue?.map { $0["attributes"]?["GlobalID"] } == [.string(held[0])])
            // Deleted online, and moved out of the extent.
            #expect(Set(features["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? []) == [held[1], held[2]])
            #expect(device.generation == (try store.edits.currentGeneration()))
            // The device now holds exactly the server's state of its extent.
            #expect(Set(device.features.keys).symmetricDifference(try await serverTrees(client).keys).isEmpty)
            // Nothing new: NoEdits, and the registry knows the generation handed out.
            let again = try await device.sync(client)
            #expect(again["responseType"] == "esriReplicaResponseTypeNoEdits")
            let info = try await get(client, "\(serviceURL)/replicas/\(device.id)?f=json")
            #expect(info["layerServerGens"]?[0]?["serverGen"]?.int64Value == device.generation)
            #expect(info["lastSyncDate"]?.int64Value ?? 0 > 0)
        }
    }

    @Test func lastInWinsKeepsEveryOverwrittenValueInTheConflictLog() async throws {
        try await withFreshDemoApp { client, _ in
            var device = try DeviceReplica(created: try await createTreeReplica(client, name: "late"), layer: 2)
            let held = device.features.keys.sorted()
            _ = try await post(
                client, "\(layerURL)/applyEdits",
                [
                    ("f", "json"), ("useGlobalIds", "true"),
                    (
                        "updates",
                        #"[{"attributes":{"GlobalID":"\#(held[0])","height_m":99}}, {"attributes":{"GlobalID":"\#(held[1])","height_m":98}}]"#
                    ),
                    ("deletes", #"["\#(held[2])", "\#(held[3])"]"#),
                ])
            // update over an unseen update, delete over an unseen update, update of a deleted
            // feature (re-created), delete of a deleted feature.
            let answer = try await device.sync(
                client,
                edits: """
                    {"updates":[\(tree(held[0], height: 5)), \(tree(held[2], height: 6))],"deleteIds":["\(held[1])", "\(held[3])"]}
                    """)
            let entry = try #require(answer["edits"]?.arrayValue?.first)
            #expect(entry["updateResults"]?.arrayValue?.allSatisfy { $0["success"] == true } == true)
            #expect(entry["deleteResults"]?.arrayValue?.allSatisfy { $0["success"] == true } == true)
            let server = try await serverTrees(client)
            #expect(server[held[0]]?["height_m"]?.doubleValue == 5)
            #expect(server[held[1]] == nil)
            #expect(server[held[2]]?["height_m"]?.doubleValue == 6)
            #expect(server[held[3]] == nil)
            let log = try await get(client, "\(serviceURL)/replicas/\(device.id)/conflicts?f=json")
            let conflicts = try #require(log["conflicts"]?.arrayValue)
            #expect(conflicts.count == 3)
            let byId = Dictionary(uniqueKeysWithValues: conflicts.map { ($0["globalId"]?.stringValue ?? "", $0) })
            #expect(byId[held[0]]?["uploadOperation"] == "update" && byId[held[0]]?["overwrittenChange"] == "update")
            #expect(byId[held[0]]?["feature"]?["attributes"]?["height_m"]?.doubleValue == 99)
            #expect(byId[held[0]]?["overwrittenBy"] == .null)
            #expect(byId[held[1]]?["uploadOperation"] == "delete" && byId[held[1]]?["feature"]?["attributes"]?["height_m"]?.doubleValue == 98)
            #expect(byId[held[1]]?["feature"]?["geometry"]?["x"]?.doubleValue != nil)
            #expect(byId[held[2]]?["overwrittenChange"] == "delete" && byId[held[2]]?["feature"] == .null)
            // A second replica that held the re-created feature gets it back as an update.
            #expect(byId[held[3]] == nil)
        }
    }

    @Test func aRetriedSyncAppliesNothingTwiceAndAnswersTheSame() async throws {
        try await withFreshDemoApp { client, store in
            let device = try DeviceReplica(created: try await createTreeReplica(client, name: "flaky"), layer: 2)
            let held = device.features.keys.sorted()
            let edits =
                #"{"adds":[\#(tree("{00000000-0000-0000-0000-00000000C001}", height: 2))],"updates":[\#(tree(held[0], height: 40))],"deleteIds":["\#(held[1])"]}"#
            var first = device
            let answer = try await first.sync(client, edits: edits)
            let generations = try store.edits.currentGeneration()
            let count = try await serverTrees(client).count
            // The answer was lost: the device sends the same sync again.
            var retry = device
            let repeated = try await retry.sync(client, edits: edits)
            #expect(repeated["edits"]?[0]?["addResults"] == answer["edits"]?[0]?["addResults"])
            #expect(repeated["edits"]?[0]?["updateResults"] == answer["edits"]?[0]?["updateResults"])
            #expect(repeated["edits"]?[0]?["deleteResults"] == answer["edits"]?[0]?["deleteResults"])
            #expect(repeated["edits"]?[0]?["features"] == answer["edits"]?[0]?["features"])
            #expect(try store.edits.currentGeneration() == generations)
            #expect(try await serverTrees(client).count == count)
            // Without the receipt (another server, or an upload changed in between) the rules
            // alone make the retry harmless: the add is already applied with the same id.
            var changed = device
            let other = try await changed.sync(
                client, edits: #"{"adds":[\#(tree("{00000000-0000-0000-0000-00000000C001}", height: 2))],"deleteIds":["\#(held[1])"]}"#)
            #expect(other["edits"]?[0]?["addResults"] == answer["edits"]?[0]?["addResults"])
            #expect(other["edits"]?[0]?["deleteResults"] == answer["edits"]?[0]?["deleteResults"])
            #expect(try await serverTrees(client).count == count)
        }
    }

    @Test func rollbackOnFailureIsAllOrNothingAndFalseAppliesTheRest() async throws {
        try await withFreshDemoApp { client, store in
            var device = try DeviceReplica(created: try await createTreeReplica(client, name: "strict"), layer: 2)
            let held = device.features.keys.sorted()
            let generation = try store.edits.currentGeneration()
            let edits =
                #"{"adds":[\#(tree("{00000000-0000-0000-0000-00000000D001}", height: 2))],"updates":[{"attributes":{"GlobalID":"\#(held[0])","no_such_field":1}}]}"#
            let refused = try await device.sync(client, edits: edits, extra: [("rollbackOnFailure", "true")])
            #expect(refused["error"]?["code"] == 400)
            #expect(refused["error"]?["details"]?.arrayValue?.first?.stringValue?.contains("no_such_field") == true)
            #expect(try store.edits.currentGeneration() == generation)
            #expect(try await serverTrees(client)["{00000000-0000-0000-0000-00000000D001}"] == nil)
            let partial = try await device.sync(client, edits: edits, extra: [("rollbackOnFailure", "false")])
            #expect(partial["edits"]?[0]?["addResults"]?[0]?["success"] == true)
            #expect(partial["edits"]?[0]?["updateResults"]?[0]?["success"] == false)
            #expect(try await serverTrees(client)["{00000000-0000-0000-0000-00000000D001}"] != nil)
        }
    }

    /// Three devices edit the same and different features offline and sync in every order:
    /// after a further round each holds exactly the server's state, and the contested feature
    /// holds the value of the device that synced it last.
    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func threeReplicasConvergeInEveryOrder(order: [Int]) async throws {
        try await withFreshDemoApp { client, _ in
            var devices: [DeviceReplica] = []
            for index in 0..<3 {
                devices.append(try DeviceReplica(created: try await createTreeReplica(client, name: "device\(index)"), layer: 2))
            }
            let held = devices[0].features.keys.sorted()
            let contested = held[0]
            var edits: [String] = []
            for index in 0..<3 {
                let own = held[1 + index]
                let added = "{00000000-0000-0000-0000-0000000E000\(index)}"
                // Device 2 also deletes a feature device 0 updates.
                let deletes = index == 2 ? #""\#(held[5])""# : ""
                // Heights as markers, inside the demo's TreeHeight domain (0–150 m).
                let updates =
                    [tree(contested, height: Double(100 + index)), tree(own, height: Double(120 + index))]
                    + (index == 0 ? [tree(held[5], height: 130)] : [])
                edits.append(#"{"adds":[\#(tree(added, height: 1))],"updates":[\#(updates.joined(separator: ","))],"deleteIds":[\#(deletes)]}"#)
            }
            for index in order {
                let answer = try await devices[index].sync(client, edits: edits[index])
                #expect(answer["error"] == nil)
            }
            for index in 0..<3 { try await devices[index].sync(client) }
            let server = try await serverTrees(client)
            for device in devices {
                #expect(Set(device.features.keys).symmetricDifference(server.keys).isEmpty)
                for (id, attributes) in server {
                    #expect(device.features[id]?["height_m"]?.doubleValue == attributes["height_m"]?.doubleValue, "\(id)")
                }
            }
            #expect(server[contested]?["height_m"]?.doubleValue == Double(100 + order.last!))
            // Last in wins for update against delete too.
            let deleteBeforeUpdate = order.firstIndex(of: 2)! < order.firstIndex(of: 0)!
            #expect((server[held[5]] != nil) == deleteBeforeUpdate)
        }
    }

    @Test func snapshotDownloadAndThePythonClientsPerReplicaString() async throws {
        try await withFreshDemoApp { client, _ in
            let device = try DeviceReplica(created: try await createTreeReplica(client, name: "python"), layer: 2)
            // ArcGIS API for Python defaults: syncLayers=perReplica (a string) and snapshot.
            let answer = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", device.id), ("transportType", "esriTransportTypeEmbedded"),
                    ("syncLayers", "perReplica"), ("syncDirection", "snapshot"), ("returnIdsForAdds", "false"),
                    ("returnAttachmentDatabyURL", "false"), ("async", "false"), ("dataFormat", "json"), ("rollbackOnFailure", "true"),
                ])
            #expect(answer["responseType"] == "esriReplicaResponseTypeReplacementData")
            let layer = try #require(answer["layers"]?.arrayValue?.first)
            #expect(Set(layer["features"]?.arrayValue?.compactMap { $0["attributes"]?["GlobalID"]?.stringValue } ?? []) == Set(device.features.keys))
            // Other text in syncLayers is an error for a per-layer replica.
            let bad = try await post(client, "\(serviceURL)/synchronizeReplica", [("f", "json"), ("replicaID", device.id), ("syncLayers", "all")])
            #expect(bad["error"]?["code"] == 400)
        }
    }

    @Test func badRequestsAreClearErrorsThatChangeNothing() async throws {
        try await withFreshDemoApp { client, store in
            let device = try DeviceReplica(created: try await createTreeReplica(client, name: "checks"), layer: 2)
            let generation = try store.edits.currentGeneration()
            let newTree = #"[{"id":2,"features":{"adds":[\#(tree("{00000000-0000-0000-0000-00000000BAD1}", height: 1))]}}]"#
            let cases: [[(String, String)]] = [
                [("replicaID", "{00000000-0000-0000-0000-000000000000}")],
                [("replicaID", "nonsense")],
                [("replicaID", device.id), ("syncLayers", #"[{"id":0,"serverGen":1}]"#)],
                [("replicaID", device.id), ("syncLayers", #"[{"id":2}]"#)],
                [("replicaID", device.id), ("syncLayers", #"[{"id":2,"serverGen":\#(generation + 100)}]"#)],
                // Refused before the edits they carry are applied.
                [("replicaID", device.id), ("syncLayers", #"[{"id":2,"serverGen":\#(generation + 100)}]"#), ("edits", newTree)],
                [("replicaID", device.id), ("syncLayers", #"[{"id":2,"serverGen":\#(generation)}]"#), ("dataFormat", "filegdb"), ("edits", newTree)],
                [("replicaID", device.id), ("edits", #"[{"id":0,"features":{"adds":[]}}]"#)],
                [("replicaID", device.id), ("edits", "not json")],
                [("replicaID", device.id), ("editsUploadID", "i00000000-0000-0000-0000-000000000000"), ("editsUploadFormat", "json")],
                [("replicaID", device.id), ("syncDirection", "sideways")],
                [
                    ("replicaID", device.id),
                    (
                        "edits",
                        #"[{"id":2,"attachments":{"adds":[{"globalId":"{00000000-0000-0000-0000-000000000001}","parentGlobalId":"{00000000-0000-0000-0000-000000000002}","data":"AA=="}]}}]"#
                    ),
                ],
            ]
            for pairs in cases {
                let answer = try await post(client, "\(serviceURL)/synchronizeReplica", [("f", "json")] + pairs)
                // A generation the server never gave the replica is the restored-server answer.
                let code = answer["error"]?["code"]?.int64Value
                let ahead = answer["error"]?["message"]?.stringValue == ArcGISError.replicaAheadMessage
                #expect(code == 400 || code == 404 || (code == 409 && ahead), "\(pairs)")
                #expect(answer["error"]?["message"]?.stringValue?.isEmpty == false)
            }
            #expect(try store.edits.currentGeneration() == generation)
            // GET is refused: sync changes data.
            let viaGet = try await get(client, "\(serviceURL)/synchronizeReplica?f=json&replicaID=\(device.id)")
            #expect(viaGet["error"]?["code"] == 405)
        }
    }

    @Test func attachmentsAndEditorTrackingTravelWithTheReplica() async throws {
        try await withFreshDemoApp { client, _ in
            let create: (String, String) async throws -> JSONValue = { name, direction in
                try await post(
                    client, "\(serviceURL)/createReplica",
                    [
                        ("f", "json"), ("replicaName", name), ("layers", "0"), ("geometry", "5,45,20,56"), ("geometryType", "esriGeometryEnvelope"),
                        ("inSR", "4326"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
                        ("returnAttachments", direction == "none" ? "false" : "true"), ("attachmentsSyncDirection", direction),
                        ("returnAttachmentsDataByUrl", "false"),
                    ])
            }
            var writer = try DeviceReplica(created: try await create("writer", "bidirectional"), layer: 0)
            var reader = try DeviceReplica(created: try await create("reader", "bidirectional"), layer: 0)
            let city = try #require(writer.features.keys.sorted().first)
            let attachment = "{00000000-0000-0000-0000-00000000F001}"
            let answer = try await writer.sync(client, edits: #"{"updates":[{"attributes":{"GlobalID":"\#(city)","rank":1000}}]}"#)
            // Attachments ride in the layer entry next to `features`.
            let withAttachment = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", writer.id), ("transportType", "esriTransportTypeEmbedded"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(writer.generation)}]"#),
                    (
                        "edits",
                        #"[{"id":0,"attachments":{"adds":[{"globalId":"\#(attachment)","parentGlobalId":"\#(city)","contentType":"text/plain","name":"note.txt","data":"aGVsbG8="}]}}]"#
                    ),
                ])
            #expect(withAttachment["edits"]?[0]?["attachments"]?["addResults"]?[0]?["success"] == true)
            // Editor tracking: the writer's own update comes back with the server's EditDate.
            let echoed = answer["edits"]?[0]?["features"]?["updates"]?.arrayValue ?? []
            #expect(echoed.map { $0["attributes"]?["GlobalID"] } == [.string(city)])
            #expect(echoed.first?["attributes"]?["EditDate"]?.int64Value ?? 0 > 1_763_769_600_000)
            #expect(echoed.first?["attributes"]?["rank"] == 1000)
            // Another replica downloads the update and the attachment, bytes inline.
            let received = try await reader.sync(client, extra: [("returnAttachmentsDataByUrl", "false")])
            let attachments = received["edits"]?[0]?["attachments"]
            #expect(attachments?["adds"]?.arrayValue?.map { $0["globalId"] } == [.string(attachment)])
            #expect(attachments?["adds"]?[0]?["data"] == "aGVsbG8=")
            #expect(reader.features[city]?["rank"] == 1000)
            // A replica without attachment sync refuses attachment edits.
            let plain = try DeviceReplica(created: try await create("plain", "none"), layer: 0)
            let refused = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", plain.id), ("syncLayers", #"[{"id":0,"serverGen":\#(plain.generation)}]"#),
                    ("edits", #"[{"id":0,"attachments":{"deleteIds":["\#(attachment)"]}}]"#),
                ])
            #expect(refused["error"]?["details"]?[0]?.stringValue?.contains("attachmentsSyncDirection") == true)
        }
    }

    /// Found by the convergence test with attachment edits (test_convergence.py): an attachment
    /// a replica created in an upload-only sync, or one added again after a delete, is one
    /// the replica holds; another writer's delete must reach it.
    @Test func deletesOfAttachmentsAReplicaHoldsReachItWhoeverCreatedThem() async throws {
        try await withFreshDemoApp { client, _ in
            var replicas: [(id: String, generation: Int64)] = []
            for name in ["creator", "deleter", "holder"] {
                let created = try await post(
                    client, "\(serviceURL)/createReplica",
                    [
                        ("f", "json"), ("replicaName", name), ("layers", "0"), ("geometry", "5,45,20,56"), ("geometryType", "esriGeometryEnvelope"),
                        ("inSR", "4326"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
                        ("returnAttachments", "true"), ("attachmentsSyncDirection", "bidirectional"),
                    ])
                replicas.append(
                    (try #require(created["replicaID"]?.stringValue), try #require(created["layerServerGens"]?[0]?["serverGen"]?.int64Value)))
            }
            let city = try #require(
                try await get(
                    client,
                    "\(serviceURL)/0/query?f=json&where=1%3D1&geometry=5,45,20,56&geometryType=esriGeometryEnvelope&inSR=4326&outFields=GlobalID&resultRecordCount=1"
                )["features"]?[0]?["attributes"]?["GlobalID"]?.stringValue)
            /// One sync of `replica` with attachment edits; returns the layer entry and keeps the generation.
            func sync(_ index: Int, _ direction: String, _ attachments: String = "{}") async throws -> JSONValue {
                let answer = try await post(
                    client, "\(serviceURL)/synchronizeReplica",
                    [
                        ("f", "json"), ("replicaID", replicas[index].id), ("transportType", "esriTransportTypeEmbedded"),
                        ("syncLayers", #"[{"id":0,"serverGen":\#(replicas[index].generation),"syncDirection":"\#(direction)"}]"#),
                        ("edits", #"[{"id":0,"attachments":\#(attachments)}]"#),
                    ])
                #expect(answer["error"] == nil, "\(answer)")
                replicas[index].generation = try #require(answer["layerServerGens"]?[0]?["serverGen"]?.int64Value)
                return answer["edits"]?[0] ?? .null
            }
            let note = { (id: String) in
                #"{"globalId":"\#(id)","parentGlobalId":"\#(city)","contentType":"text/plain","name":"n.txt","data":"aGVsbG8="}"#
            }
            let deletedIds = { (entry: JSONValue) in entry["attachments"]?["deleteIds"]?.arrayValue?.compactMap(\.stringValue) ?? [] }

            // Created in an upload-only sync (the creator keeps its generation), deleted by another.
            let uploaded = "{00000000-0000-0000-0000-00000000F101}"
            _ = try await sync(0, "upload", #"{"adds":[\#(note(uploaded))]}"#)
            _ = try await sync(1, "bidirectional")
            _ = try await sync(1, "bidirectional", #"{"deleteIds":["\#(uploaded)"]}"#)
            #expect(deletedIds(try await sync(0, "download")) == [uploaded])

            // Held by the holder, deleted, added again by an update naming its parent and bytes,
            // deleted again: the holder, which synced at none of these, receives the delete.
            let readded = "{00000000-0000-0000-0000-00000000F102}"
            _ = try await sync(0, "bidirectional", #"{"adds":[\#(note(readded))]}"#)
            let held = try await sync(2, "download")
            #expect(held["attachments"]?["adds"]?.arrayValue?.map { $0["globalId"] } == [.string(readded)])
            _ = try await sync(1, "bidirectional")
            _ = try await sync(1, "bidirectional", #"{"deleteIds":["\#(readded)"]}"#)
            _ = try await sync(0, "bidirectional", #"{"updates":[\#(note(readded))]}"#)
            _ = try await sync(1, "bidirectional")
            _ = try await sync(1, "bidirectional", #"{"deleteIds":["\#(readded)"]}"#)
            #expect(deletedIds(try await sync(2, "download")) == [readded])
        }
    }

    @Test func asyncSyncByURLAndCloseReplica() async throws {
        try await withFreshDemoApp { client, _ in
            let device = try DeviceReplica(created: try await createTreeReplica(client, name: "async"), layer: 2)
            let answer = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", device.id), ("async", "true"),
                    ("syncLayers", #"[{"id":2,"serverGen":\#(device.generation)}]"#),
                    ("edits", #"[{"id":2,"features":{"adds":[\#(tree("{00000000-0000-0000-0000-00000000AA01}", height: 1))]}}]"#),
                ])
            let status = try #require(answer["statusUrl"]?.stringValue)
            var job = JSONValue.null
            for _ in 0..<200 {
                job = try await get(client, path(of: status) + "?f=json")
                if job["status"] == "Completed" || job["status"] == "Failed" { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(job["status"] == "Completed")
            let result = try await get(client, path(of: try #require(job["resultUrl"]?.stringValue)))
            #expect(result["edits"]?[0]?["addResults"]?[0]?["success"] == true)
            #expect(result["layerServerGens"]?[0]?["serverGen"]?.int64Value ?? 0 > device.generation)
            // By URL, then closed: the answer names the file and the replica is gone.
            _ = try await post(
                client, "\(layerURL)/applyEdits", [("f", "json"), ("adds", "[\(tree("{00000000-0000-0000-0000-00000000AA02}", height: 2))]")])
            let closing = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", device.id), ("closeReplica", "true"),
                    ("syncLayers", #"[{"id":2,"serverGen":\#(device.generation)}]"#),
                ])
            #expect(closing["URL"]?.stringValue?.contains("/replicafiles/") == true)
            #expect(closing["responseType"] == "esriReplicaResponseTypeEdits")
            let info = try await get(client, "\(serviceURL)/replicas/\(device.id)?f=json")
            #expect(info["error"]?["code"] == 404)
        }
    }

    @Test func syncLimitsAreConfigurableAndRefuseTheWholeSync() async throws {
        try await withFreshDemoApp(options: ServerOptions(syncLimits: SyncLimits(maxEdits: 2, maxAttachmentBytes: 1024))) { client, store in
            let device = try DeviceReplica(created: try await createTreeReplica(client, name: "limited"), layer: 2)
            let generation = try store.edits.currentGeneration()
            let adds = (1...3).map { tree("{00000000-0000-0000-0000-00000000C00\($0)}", height: 1) }.joined(separator: ",")
            let answer = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", device.id), ("syncLayers", #"[{"id":2,"serverGen":\#(device.generation)}]"#),
                    ("edits", #"[{"id":2,"features":{"adds":[\#(adds)]}}]"#),
                ])
            #expect(answer["error"]?["code"] == 400)
            #expect(answer["error"]?["details"]?[0]?.stringValue?.contains("limit of 2") == true)
            #expect(try store.edits.currentGeneration() == generation)
        }
    }
}
