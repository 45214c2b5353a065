import Foundation
import OutpostWire
import Testing

/// Issue 44, the offline and versioned paths: a sync upload is by the syncing user (inline
/// edits, an uploaded edits file, in a request or a job; the replica's own writes come back
/// with what the server wrote), a version edit by its user, and posting keeps the version's
/// own Creator/Editor and dates, as ArcGIS's post moves the version's rows whole.
@Suite struct EditorTrackingSyncTests {
    static let demo = TrackingApp.demo
    static let parcels = TrackingApp.parcels
    static let seed = EditorTrackingTests.seed

    /// The `updates` of layer `id` in a sync answer, by GlobalID.
    static func echoed(_ answer: JSONValue, layer: Int64 = 0) -> [String: Tracking] {
        let entry = answer["edits"]?.arrayValue?.first { $0["id"]?.int64Value == layer }
        var result: [String: Tracking] = [:]
        for feature in entry?["features"]?["updates"]?.arrayValue ?? [] {
            if let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue { result[id] = Tracking(attributes) }
        }
        return result
    }

    @Test(arguments: TrackingBackend.all)
    func syncUploadsRecordTheSyncingUserAndEchoWhatTheServerWrote(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend) { app in
            let created = try await app.post(
                "\(Self.demo)/createReplica",
                [
                    ("replicaName", "eve-device"), ("layers", "0"), ("returnAttachments", "false"),
                    ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
                ], as: "eve")
            let device = try DeviceReplica(created: created, layer: 0)
            let seeded = try #require(device.features.keys.sorted().first)
            let added = "{00000000-0000-4000-8000-0000000E0301}"

            // eve syncs inline: an add, and an update of a seeded city.
            let synced = app.later()
            let answer = try await app.post(
                "\(Self.demo)/synchronizeReplica",
                [
                    ("replicaID", device.id), ("transportType", "esriTransportTypeEmbedded"), ("returnIdsForAdds", "true"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(device.generation),"syncDirection":"bidirectional"}]"#),
                    (
                        "edits",
                        #"[{"id":0,"features":{"adds":[\#(trackedCity(added, name: "Synced"))],"updates":[{"attributes":{"GlobalID":"\#(seeded)","rank":500,"Editor":"mallory"}}]}}]"#
                    ),
                ], as: "eve")
            let byEve = Tracking.made(by: "eve", at: synced)
            let seededByEve = Tracking.made(by: "outpost-seed", at: Self.seed).edited(by: "eve", at: synced)
            #expect(try await app.tracking("\(Self.demo)/0", added) == byEve)
            #expect(try await app.tracking("\(Self.demo)/0", seeded) == seededByEve)
            // The download hands the server-written fields back to the replica (echo of own writes).
            let echoed = Self.echoed(answer)
            #expect(echoed[added] == byEve && echoed[seeded] == seededByEve, "\(echoed)")
            let generation = try #require(answer["layerServerGens"]?[0]?["serverGen"]?.int64Value)

            // ada, an admin, syncs eve's replica in a job, the edits in an uploaded file.
            let file = #"[{"id":0,"features":{"updates":[{"attributes":{"GlobalID":"\#(added)","rank":501,"Creator":"mallory"}}]}}]"#
            let uploaded = try await app.upload("\(Self.demo)/uploads/upload", name: "edits.json", bytes: Array(file.utf8), as: "ada")
            let itemID = try #require(uploaded["item"]?["itemID"]?.stringValue, "\(uploaded)")
            let resynced = app.later()
            let submitted = try await app.post(
                "\(Self.demo)/synchronizeReplica",
                [
                    ("replicaID", device.id), ("async", "true"), ("editsUploadID", itemID), ("editsUploadFormat", "json"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(generation),"syncDirection":"bidirectional"}]"#),
                ], as: "ada")
            let job = try await app.finishedJob(try #require(submitted["statusUrl"]?.stringValue), as: "ada")
            #expect(job["status"] == "Completed", "\(job)")
            #expect(try await app.tracking("\(Self.demo)/0", added) == byEve.edited(by: "ada", at: resynced))
            let result = try await app.get(path(of: try #require(job["resultUrl"]?.stringValue)), as: "ada")
            #expect(Self.echoed(result)[added] == byEve.edited(by: "ada", at: resynced), "\(result)")
        }
    }

    /// A replica of a versioned service: its update of a feature DEFAULT changed meanwhile is
    /// merged field by field, and the merged row is the syncing user's edit.
    @Test(arguments: TrackingBackend.all)
    func aVersionedReplicasMergedUpdateIsTheSyncingUsers(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend) { app in
            let created = try await app.post(
                "\(Self.parcels)/createReplica",
                [
                    ("replicaName", "eve-parcels"), ("layers", "0"), ("syncModel", "perReplica"), ("returnAttachments", "false"),
                    ("transportType", "esriTransportTypeEmbedded"),
                ], as: "eve")
            let generation = try #require(created["replicaServerGen"]?.int64Value)
            let parcel = try #require(created["layers"]?[0]?["features"]?[0]?["attributes"]?["GlobalID"]?.stringValue)
            let changed = app.later()
            _ = try await app.post(
                "\(Self.parcels)/0/applyEdits",
                [("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(parcel)","zoning":"C1"}}]"#)], as: "ed")
            #expect(
                try await app.tracking("\(Self.parcels)/0", parcel) == Tracking.made(by: "outpost-seed", at: Self.seed).edited(by: "ed", at: changed))
            let synced = app.later()
            let answer = try await app.post(
                "\(Self.parcels)/synchronizeReplica",
                [
                    ("replicaID", try #require(created["replicaID"]?.stringValue)), ("replicaServerGen", "\(generation)"),
                    ("syncDirection", "bidirectional"), ("transportType", "esriTransportTypeEmbedded"),
                    ("edits", #"[{"id":0,"features":{"updates":[{"attributes":{"GlobalID":"\#(parcel)","owner":"Field crew"}}]}}]"#),
                ], as: "eve")
            let merged = try await app.feature("\(Self.parcels)/0", parcel)
            #expect(merged["zoning"] == "C1" && merged["owner"] == "Field crew", "\(merged)")
            let byEve = Tracking.made(by: "outpost-seed", at: Self.seed).edited(by: "eve", at: synced)
            #expect(Tracking(merged) == byEve)
            #expect(Self.echoed(answer)[parcel] == byEve, "\(answer)")
        }
    }

    @Test(arguments: TrackingBackend.all)
    func anonymousSyncWritesNull(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend, requireAuth: false) { app in
            let created = try await app.post(
                "\(Self.demo)/createReplica",
                [("replicaName", "open"), ("layers", "0"), ("returnAttachments", "false"), ("transportType", "esriTransportTypeEmbedded")],
                as: nil)
            let device = try DeviceReplica(created: created, layer: 0)
            let added = "{00000000-0000-4000-8000-0000000E0501}"
            let synced = app.later()
            _ = try await app.post(
                "\(Self.demo)/synchronizeReplica",
                [
                    ("replicaID", device.id), ("syncLayers", #"[{"id":0,"serverGen":\#(device.generation)}]"#),
                    ("edits", #"[{"id":0,"features":{"adds":[\#(trackedCity(added, name: "Open"))]}}]"#),
                ], as: nil)
            #expect(try await app.tracking("\(Self.demo)/0", added) == .made(by: nil, at: synced))
        }
    }

    @Test(arguments: TrackingBackend.all)
    func versionEditsAreTheirUsersAndPostingKeepsThem(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend) { app in
            let created = try await app.post(TrackingApp.versions + "/create", [("versionName", "survey"), ("description", "walk")], as: "eve")
            let name = try #require(created["versionInfo"]?["versionName"]?.stringValue)
            let guid = try #require(created["versionInfo"]?["versionGuid"]?.stringValue)
            let seeded = try #require(
                try await app.post("\(Self.parcels)/0/query", [("where", "parcel_id = 'P-1'"), ("outFields", "GlobalID")], as: "eve")[
                    "features"]?[0]?["attributes"]?["GlobalID"]?.stringValue)
            let added = "{00000000-0000-4000-8000-0000000E0401}"
            let ring = "[[1490000,6890000],[1490010,6890000],[1490010,6890010],[1490000,6890000]]"
            let edited = app.later()
            let answer = try await app.post(
                "\(Self.parcels)/0/applyEdits",
                [
                    ("gdbVersion", name), ("useGlobalIds", "true"),
                    (
                        "adds",
                        #"[{"attributes":{"GlobalID":"\#(added)","parcel_id":"P-NEW","Creator":"mallory","CreationDate":1},"geometry":{"rings":[\#(ring)],"spatialReference":{"wkid":102100}}}]"#
                    ),
                    ("updates", #"[{"attributes":{"GlobalID":"\#(seeded)","owner":"Surveyed","Editor":"mallory"}}]"#),
                ], as: "eve")
            #expect(answer["addResults"]?[0]?["success"] == true && answer["updateResults"]?[0]?["success"] == true, "\(answer)")
            let byEve = Tracking.made(by: "eve", at: edited)
            let seededByEve = Tracking.made(by: "outpost-seed", at: Self.seed).edited(by: "eve", at: edited)
            #expect(try await app.tracking("\(Self.parcels)/0", added, version: name) == byEve)
            #expect(try await app.tracking("\(Self.parcels)/0", seeded, version: name) == seededByEve)
            #expect(try await app.tracking("\(Self.parcels)/0", seeded) == .made(by: "outpost-seed", at: Self.seed))

            // ada posts later: the posted rows keep who edited them in the version, and when.
            app.later()
            let posted = try await app.post("\(TrackingApp.versions)/versions/\(guid)/reconcile", [("withPost", "true")], as: "ada")
            #expect(posted["postedEdits"] == 2, "\(posted)")
            #expect(try await app.tracking("\(Self.parcels)/0", added) == byEve)
            #expect(try await app.tracking("\(Self.parcels)/0", seeded) == seededByEve)
        }
    }
}
