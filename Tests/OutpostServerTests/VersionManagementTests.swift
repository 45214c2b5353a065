import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

private let parcels = "/arcgis/rest/services/Parcels/FeatureServer"
private let versions = "/arcgis/rest/services/Parcels/VersionManagementServer"

private func parcelsIn(_ client: any TestClientProtocol, version: String? = nil) async throws -> [String: JSONObject] {
    var result: [String: JSONObject] = [:]
    var offset = 0
    while true {
        let v = version.map { "&gdbVersion=\(FormURLEncoding.percentEncode($0))" } ?? ""
        let page = try await get(
            client, "\(parcels)/0/query?where=1%3D1&outFields=*&returnGeometry=false&resultOffset=\(offset)&resultRecordCount=1000\(v)&f=json")
        let features = page["features"]?.arrayValue ?? []
        for feature in features {
            if let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue { result[id] = attributes }
        }
        if features.count < 1000 { return result }
        offset += 1000
    }
}

@Suite struct VersionManagementTests {
    @Test func aNamedVersionIsReadOverlaidEditedApartAndPostedAttributeByAttribute() async throws {
        try await withFreshDemoApp { client, _ in
            let created = try await post(client, "\(versions)/create", [("f", "json"), ("versionName", "survey"), ("description", "field survey")])
            #expect(created["success"] == true)
            let info = try #require(created["versionInfo"])
            let name = try #require(info["versionName"]?.stringValue)
            let guid = try #require(info["versionGuid"]?.stringValue)
            #expect(name == "outpost.survey" && info["parentVersionName"] == "sde.DEFAULT")

            let before = try await parcelsIn(client)
            let ids = before.keys.sorted()
            let added = "{00000000-0000-4000-8000-0000000000E1}"
            let edited = try await post(
                client, "\(parcels)/0/applyEdits",
                [
                    ("f", "json"), ("gdbVersion", name), ("useGlobalIds", "true"),
                    (
                        "adds",
                        #"[{"attributes":{"GlobalID":"\#(added)","parcel_id":"P-NEW","owner":"Surveyor"},"geometry":{"rings":[[[1490000,6890000],[1490010,6890000],[1490010,6890010],[1490000,6890000]]],"spatialReference":{"wkid":102100}}}]"#
                    ),
                    (
                        "updates",
                        #"[{"attributes":{"GlobalID":"\#(ids[0])","owner":"In version"}},{"attributes":{"GlobalID":"\#(ids[2])","owner":"Version says"}}]"#
                    ),
                    ("deletes", #"["\#(ids[1])"]"#),
                ])
            #expect(edited["addResults"]?[0]?["success"] == true && edited["deleteResults"]?[0]?["success"] == true)
            let addedObjectId = try #require(edited["addResults"]?[0]?["objectId"]?.int64Value)

            // DEFAULT does not see the version's edits; the version sees DEFAULT overlaid by them.
            let defaultNow = try await parcelsIn(client)
            #expect(defaultNow == before)
            let inVersion = try await parcelsIn(client, version: name)
            #expect(inVersion.count == 400)
            #expect(inVersion[ids[0]]?["owner"] == "In version" && inVersion[ids[1]] == nil && inVersion[added]?["owner"] == "Surveyor")
            let count = try await get(client, "\(parcels)/0/query?where=owner%3D%27In%20version%27&returnCountOnly=true&gdbVersion=\(name)&f=json")
            #expect(count["count"] == 1)

            // DEFAULT moves on: another field of one feature, the same field of another.
            _ = try await post(
                client, "\(parcels)/0/applyEdits",
                [
                    ("f", "json"), ("useGlobalIds", "true"),
                    (
                        "updates",
                        #"[{"attributes":{"GlobalID":"\#(ids[0])","zoning":"Z1"}},{"attributes":{"GlobalID":"\#(ids[2])","owner":"Default says"}}]"#
                    ),
                ])
            let reconciled = try await post(client, "\(versions)/versions/\(guid)/reconcile", [("f", "json"), ("withPost", "true")])
            #expect(reconciled["success"] == true && reconciled["postedEdits"] == 4)
            #expect(reconciled["hasConflicts"] == true && reconciled["conflictCount"] == 1)

            let posted = try await parcelsIn(client)
            #expect(posted[ids[0]]?["owner"] == "In version" && posted[ids[0]]?["zoning"] == "Z1")  // merged
            #expect(posted[ids[2]]?["owner"] == "Version says")  // conflict: the version wins
            #expect(posted[ids[1]] == nil && posted[added]?["OBJECTID"]?.int64Value == addedObjectId)
            let conflicts = try await get(client, "\(versions)/versions/\(guid)/conflicts?f=json")["conflicts"]?.arrayValue ?? []
            #expect(conflicts.count == 1)
            #expect(conflicts.first?["fields"]?[0]?["field"] == "owner" && conflicts.first?["fields"]?[0]?["default"] == "Default says")
            #expect(
                conflicts.first?["fields"]?[0]?["replica"] == "Version says" && conflicts.first?["fields"]?[0]?["base"] == before[ids[2]]?["owner"])
            // Posted: the version is empty and reads as DEFAULT.
            #expect(try await parcelsIn(client, version: name) == posted)

            _ = try await post(client, "\(versions)/versions/\(guid)/delete", [("f", "json")])
            let listed = try await get(client, "\(versions)/versions?f=json")["versions"]?.arrayValue?.compactMap { $0["versionName"]?.stringValue }
            #expect(listed == ["sde.DEFAULT"])
        }
    }

    @Test func versionRequestsThatMakeNoSenseAreClearErrors() async throws {
        try await withFreshDemoApp { client, store in
            let generation = try store.edits.currentGeneration()
            let notVersioned = try await get(client, "/arcgis/rest/services/Demo/VersionManagementServer/versions?f=json")
            #expect(notVersioned["error"]?["code"] == 404)
            let badName = try await post(client, "\(versions)/create", [("f", "json"), ("versionName", "no spaces please")])
            #expect(badName["error"]?["code"] == 400)
            let unknown = try await post(
                client, "\(parcels)/0/applyEdits",
                [
                    ("f", "json"), ("gdbVersion", "outpost.nowhere"), ("updates", #"[{"attributes":{"OBJECTID":1,"owner":"x"}}]"#),
                ])
            #expect(unknown["error"]?["code"] == 404)
            let unknownRead = try await get(client, "\(parcels)/0/query?where=1%3D1&gdbVersion=outpost.nowhere&f=json")
            #expect(unknownRead["error"]?["code"] == 404)
            let defaultReconcile = try await post(client, "\(versions)/versions/sde.DEFAULT/reconcile", [("f", "json")])
            #expect(defaultReconcile["error"]?["code"] == 400)
            _ = try await post(client, "\(versions)/create", [("f", "json"), ("versionName", "twice")])
            let twice = try await post(client, "\(versions)/create", [("f", "json"), ("versionName", "twice")])
            #expect(twice["error"]?["code"] == 400)
            #expect(try store.edits.currentGeneration() == generation)
        }
    }
}
