import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostClient
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// RefreshMapAreaPackage and scheduled-update deltas (docs/map-areas.md, "Refreshing
/// packages"): server edits reach the package file and a delta resource holding exactly them,
/// which applied to an old copy gives the refreshed package's rows; old deltas are purged.
@Suite struct PackageRefreshTests {
    typealias Run = PackagingRoutesTests

    static func rows(_ path: String) throws -> [String: String] { try ReplicaFileReading.names(path) }

    static func changes(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT layer_id, operation, upper(global_id) FROM outpost_sync_changes ORDER BY change_id").map {
                "\($0[0] as Int) \($0[1] as String) \($0[2] as String)"
            }
        }
    }

    static func copy(_ path: String) throws -> String {
        let copy = TestFolders.file("package-copy.gpkg")
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return copy
    }

    @Test func serverEditsReachThePackageAndADeltaThatRebuildsAnOldCopy() async throws {
        let clock = ManualClock(milliseconds: 1_795_467_600_000)
        let store = try makeDemoStore(label: "refresh", clock: clock)
        try await Application(router: buildRouter(store: store)).test(.router) { client in
            let (_, areaId) = try await Run.run(
                client, "CreateMapArea",
                [("mapItemId", "de3000000000000000000000000000a1"), ("areaType", "ENVELOPE"), ("area", #"{"xmin":5,"ymin":45,"xmax":20,"ymax":56}"#)])
            let area = try #require(areaId?.stringValue)
            let (_, made) = try await Run.run(
                client, "SetupMapArea",
                [
                    ("mapAreaItemId", area),
                    ("featureServices", #"[{"url":"http://localhost/arcgis/rest/services/Demo/FeatureServer","createPkgDeltas":{"maxDeltaAge":2}}]"#),
                ])
            let package = try #require(
                made?.arrayValue?.first { $0["source"]?.stringValue?.hasSuffix("/Demo/FeatureServer") == true }?["itemId"]?.stringValue)
            let madeItem = try #require(try store.portal.item(id: package))
            #expect(madeItem.properties["createPkgDeltas"]?["maxDeltaAge"] == 2, "\(madeItem.properties)")
            guard case .file(_, let original) = try #require(try store.portal.data(of: package)) else { return }
            let old = try Self.copy(original)
            let before = try Self.rows(old)

            // An add, an update and a delete inside the area.
            let edits = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/0/applyEdits",
                [("f", "json"), ("adds", #"[{"attributes":{"name":"Newtown"},"geometry":{"x":10,"y":50,"spatialReference":{"wkid":4326}}}]"#)])
            let added = try #require(edits["addResults"]?[0]?["globalId"]?.stringValue).uppercased()
            let (updated, deleted) = (Array(before.keys.sorted())[0], Array(before.keys.sorted())[1])
            let demo = try store.catalog().services.first { $0.definition.name == "Demo" }
            let table = try #require(demo?.layers.first { $0.definition.id == 0 }?.tableName)
            let ids = try store.read { db in
                try Int64.fetchAll(
                    db, sql: "SELECT OBJECTID FROM \(table) WHERE upper(GlobalID) IN (?, ?) ORDER BY upper(GlobalID)",
                    arguments: [updated, deleted])
            }
            _ = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/0/applyEdits",
                [("f", "json"), ("updates", #"[{"attributes":{"OBJECTID":\#(ids[0]),"name":"Renamed"}}]"#), ("deletes", String(ids[1]))])

            let (_, result) = try await Run.run(client, "RefreshMapAreaPackage", [("packages", #"[{"itemId":"\#(package)"}]"#)])
            #expect(result?[0]?["state"] == "updated", "\(String(describing: result))")
            let resources = try store.portal.resources(of: package)
            let delta = try #require(resources.first { $0.name.hasPrefix("d_") }, "\(resources)")
            #expect(Set(try Self.changes(delta.path)) == ["0 insert \(added)", "0 update \(updated)", "0 delete \(deleted)"], "exactly the edits")

            guard case .file(_, let refreshed) = try #require(try store.portal.data(of: package)) else { return }
            let after = try Self.rows(refreshed)
            #expect(after[added] == "Newtown" && after[updated] == "Renamed" && after[deleted] == nil)
            // The delta applied to the old copy gives the refreshed package's rows.
            let rebuilt = try Geodatabase.open(old)
            try rebuilt.importDelta(at: delta.path)
            rebuilt.close()
            #expect(try Self.rows(old) == after)

            // Nothing new: unchanged, no delta. Three days on, the old delta is purged.
            let (_, again) = try await Run.run(client, "RefreshMapAreaPackage", [("packages", #"[{"itemId":"\#(package)"}]"#)])
            let resourcesNow = try store.portal.resources(of: package).count
            #expect(again?[0]?["state"] == "unchanged" && resourcesNow == 1)
            clock.advance(milliseconds: 3 * 86_400_000)
            _ = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/0/applyEdits",
                [("f", "json"), ("updates", #"[{"attributes":{"OBJECTID":\#(ids[0]),"name":"Again"}}]"#)])
            _ = try await Run.run(client, "RefreshMapAreaPackage", [("packages", #"[{"itemId":"\#(package)"}]"#)])
            let kept = try store.portal.resources(of: package).map(\.name)
            #expect(kept.count == 1 && kept[0] != delta.name, "the old delta purged, the new one kept: \(kept)")
            let purged = try #require(try store.portal.item(id: package)?.properties["lastPurgedGen"]?.int64Value)
            #expect("d_\(purged).gpkg" == delta.name)

            // The replica gone (unregistered): the package is made again in the same item, whole.
            let lost = try #require(try store.portal.item(id: package)?.properties["replicaID"]?.stringValue)
            let unregistered = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/unRegisterReplica", [("f", "json"), ("replicaID", lost)])
            #expect(unregistered["success"] == true)
            let (_, replaced) = try await Run.run(client, "RefreshMapAreaPackage", [("packages", #"[{"itemId":"\#(package)"}]"#)])
            #expect(replaced?[0]?["state"] == "replaced", "\(String(describing: replaced))")
            let item = try #require(try store.portal.item(id: package))
            let fresh = try #require(item.properties["replicaID"]?.stringValue)
            let registered = try store.replicas.replica(service: "Demo", id: fresh)
            #expect(fresh != lost && registered != nil)
            #expect(try store.portal.resources(of: package).isEmpty, "no delta leads to a new replica")
            #expect((item.properties["lastPurgedGen"]?.int64Value ?? 0) > purged, "every device takes it whole")
            guard case .file(_, let whole) = try #require(try store.portal.data(of: package)) else { return }
            #expect(try Self.rows(whole)[updated] == "Again")
            #expect(try Geodatabase.open(whole).info().replicaId == fresh)
        }
    }

    @Test func aScheduleRefreshesItsAreaOnceWhenDueHoweverManyFiringsWereMissed() async throws {
        let clock = ManualClock(milliseconds: 1_795_467_600_000)  // Monday 2026-11-23 21:00 UTC
        let store = try makeDemoStore(label: "scheduled", clock: clock)
        let refresher = ScheduledRefresher(
            store: store, files: ResultFiles(of: store, idleTime: 600), maxExportTiles: 100_000, requireAuth: false, interval: .seconds(60),
            logger: .outpostDefault)
        try await Application(router: buildRouter(store: store)).test(.router) { client in
            let (_, areaId) = try await Run.run(
                client, "CreateMapArea",
                [
                    ("mapItemId", "de3000000000000000000000000000a1"), ("areaType", "ENVELOPE"),
                    ("area", #"{"xmin":5,"ymin":45,"xmax":20,"ymax":56}"#),
                    ("outputName", #"{"title":"Nightly","packageRefreshSchedule":"0 0 3 * * ?"}"#),
                ])
            let area = try #require(areaId?.stringValue)
            let (_, made) = try await Run.run(
                client, "SetupMapArea",
                [
                    ("mapAreaItemId", area),
                    ("featureServices", #"[{"url":"http://localhost/arcgis/rest/services/Demo/FeatureServer","createPkgDeltas":{"maxDeltaAge":5}}]"#),
                ])
            let package = try #require(
                made?.arrayValue?.first { $0["source"]?.stringValue?.hasSuffix("/Demo/FeatureServer") == true }?["itemId"]?.stringValue)
            func edit(_ name: String) async throws {
                _ = try await post(
                    client, "/arcgis/rest/services/Demo/FeatureServer/0/applyEdits",
                    [("f", "json"), ("adds", #"[{"attributes":{"name":"\#(name)"},"geometry":{"x":10,"y":50,"spatialReference":{"wkid":4326}}}]"#)])
            }
            try await edit("Early")
            #expect(refresher.tick().isEmpty, "03:00 has not come yet")
            clock.advance(milliseconds: 7 * 3_600_000)  // 04:00
            #expect(refresher.tick() == [area])
            #expect(try store.portal.resources(of: package).count == 1)
            #expect(refresher.tick().isEmpty, "once per firing")
            try await edit("Later")
            clock.advance(milliseconds: 3 * 86_400_000)  // three firings missed
            #expect(refresher.tick() == [area], "run once, not three times")
            #expect(refresher.tick().isEmpty)
            #expect(try store.portal.resources(of: package).count == 2)
        }
    }
}
