import Foundation
import OutpostWire
import Testing

/// Issue 44: editor tracking on every edit path, on both backends. Creator/Editor are the
/// signed-in user's portal name, NULL when anonymous; CreationDate/EditDate the edit moment;
/// an update by another user changes Editor/EditDate and keeps Creator/CreationDate; values
/// a client sends for the four fields are ignored (docs/decisions.md, "Server-maintained fields").
@Suite struct EditorTrackingTests {
    static let demo = TrackingApp.demo
    static let seed: Int64 = 1_763_769_600_000

    @Test(arguments: TrackingBackend.all)
    func everyOnlineEditRouteRecordsTheSignedInUser(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend) { app in
            let (a, b, c) = (
                "{00000000-0000-4000-8000-0000000E0001}", "{00000000-0000-4000-8000-0000000E0002}", "{00000000-0000-4000-8000-0000000E0003}"
            )
            // eve adds through each route, each at its own moment.
            let addedA = app.later()
            _ = try await app.post("\(Self.demo)/0/applyEdits", [("adds", "[\(trackedCity(a, name: "A"))]")], as: "eve")
            let addedB = app.later()
            _ = try await app.post("\(Self.demo)/applyEdits", [("edits", #"[{"id":0,"adds":[\#(trackedCity(b, name: "B"))]}]"#)], as: "eve")
            let addedC = app.later()
            let added = try await app.post("\(Self.demo)/0/addFeatures", [("features", "[\(trackedCity(c, name: "C"))]")], as: "eve")
            let objectIdC = try #require(added["addResults"]?[0]?["objectId"]?.int64Value)
            #expect(try await app.tracking("\(Self.demo)/0", a) == .made(by: "eve", at: addedA))
            #expect(try await app.tracking("\(Self.demo)/0", b) == .made(by: "eve", at: addedB))
            #expect(try await app.tracking("\(Self.demo)/0", c) == .made(by: "eve", at: addedC))

            // ada updates each through another route, sending tracking values of her own.
            let forged = #""Creator":"mallory","Editor":"mallory","CreationDate":2,"EditDate":2"#
            let updated = app.later()
            _ = try await app.post(
                "\(Self.demo)/0/applyEdits", [("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(a)","rank":7,\#(forged)}}]"#)],
                as: "ada")
            _ = try await app.post(
                "\(Self.demo)/applyEdits",
                [("useGlobalIds", "true"), ("edits", #"[{"id":0,"updates":[{"attributes":{"GlobalID":"\#(b)","rank":8,\#(forged)}}]}]"#)],
                as: "ada")
            _ = try await app.post(
                "\(Self.demo)/0/updateFeatures", [("features", #"[{"attributes":{"OBJECTID":\#(objectIdC),"rank":9,\#(forged)}}]"#)], as: "ada")
            #expect(try await app.tracking("\(Self.demo)/0", a) == Tracking.made(by: "eve", at: addedA).edited(by: "ada", at: updated))
            #expect(try await app.tracking("\(Self.demo)/0", b) == Tracking.made(by: "eve", at: addedB).edited(by: "ada", at: updated))
            #expect(try await app.tracking("\(Self.demo)/0", c) == Tracking.made(by: "eve", at: addedC).edited(by: "ada", at: updated))

            // A seeded feature keeps its creator; the editor is the user who changed it.
            let seeded = try #require(
                try await app.post("\(Self.demo)/0/query", [("where", "rank = 1"), ("outFields", "GlobalID")], as: "ed")["features"]?[0]?[
                    "attributes"]?["GlobalID"]?.stringValue)
            let edited = app.later()
            _ = try await app.post(
                "\(Self.demo)/0/applyEdits", [("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(seeded)","rank":1}}]"#)],
                as: "ed")
            #expect(try await app.tracking("\(Self.demo)/0", seeded) == Tracking.made(by: "outpost-seed", at: Self.seed).edited(by: "ed", at: edited))
        }
    }

    /// A service that lets anyone edit (token security off) writes NULL for an anonymous
    /// caller, and the user's name when a token comes along anyway.
    @Test(arguments: TrackingBackend.all)
    func anonymousEditsWriteNullAndATokenStillNamesItsUser(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend, requireAuth: false) { app in
            let city = "{00000000-0000-4000-8000-0000000E0101}"
            let added = app.later()
            _ = try await app.post("\(Self.demo)/0/addFeatures", [("features", "[\(trackedCity(city, name: "Anonymous"))]")], as: nil)
            #expect(try await app.tracking("\(Self.demo)/0", city) == .made(by: nil, at: added))
            let updated = app.later()
            _ = try await app.post(
                "\(Self.demo)/0/applyEdits", [("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(city)","rank":3}}]"#)],
                as: "eve")
            #expect(try await app.tracking("\(Self.demo)/0", city) == Tracking.made(by: nil, at: added).edited(by: "eve", at: updated))
            let again = app.later()
            _ = try await app.post(
                "\(Self.demo)/0/updateFeatures", [("features", #"[{"attributes":{"GlobalID":"\#(city)","rank":4}}]"#), ("useGlobalIds", "true")],
                as: nil)
            #expect(try await app.tracking("\(Self.demo)/0", city) == Tracking.made(by: nil, at: added).edited(by: nil, at: again))
        }
    }

    /// Attachments are rows of their own table (as in ArcGIS, where editor tracking is per
    /// table): adding, updating or deleting one leaves the parent's tracking as it was.
    @Test(arguments: TrackingBackend.all)
    func attachmentEditsLeaveTheParentsTrackingAlone(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend) { app in
            let city = "{00000000-0000-4000-8000-0000000E0201}"
            let added = app.later()
            let answer = try await app.post("\(Self.demo)/0/addFeatures", [("features", "[\(trackedCity(city, name: "Parent"))]")], as: "eve")
            let objectId = try #require(answer["addResults"]?[0]?["objectId"]?.int64Value)
            app.later()
            let attached = try await app.upload(
                "\(Self.demo)/0/\(objectId)/addAttachment", field: "attachment", name: "note.txt", bytes: Array("one".utf8), as: "ada")
            let attachmentId = try #require(attached["addAttachmentResult"]?["objectId"]?.int64Value, "\(attached)")
            #expect(try await app.tracking("\(Self.demo)/0", city) == .made(by: "eve", at: added))
            app.later()
            let replaced = try await app.upload(
                "\(Self.demo)/0/\(objectId)/updateAttachment", field: "attachment", name: "note.txt", bytes: Array("two".utf8),
                [("attachmentId", "\(attachmentId)")], as: "ada")
            #expect(replaced["updateAttachmentResult"]?["success"] == true, "\(replaced)")
            app.later()
            let deleted = try await app.post("\(Self.demo)/0/\(objectId)/deleteAttachments", [("attachmentIds", "\(attachmentId)")], as: "ada")
            #expect(deleted["deleteAttachmentResults"]?[0]?["success"] == true)
            #expect(try await app.tracking("\(Self.demo)/0", city) == .made(by: "eve", at: added))
        }
    }
}
