import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The OfflinePackaging service over HTTP (docs/map-areas.md): CreateMapArea and SetupMapArea
/// as jobs, a package that cannot be made failing with its reason while the others are made,
/// the area limit, and who may package a map. The ArcGIS API for Python drives the same
/// service in test_portal.py.
@Suite struct PackagingRoutesTests {
    static let gp = "/arcgis/rest/services/System/OfflinePackaging/GPServer"

    /// Submits a task and waits for its job; returns the job's status and its result's value.
    static func run(_ client: any TestClientProtocol, _ task: String, _ pairs: [(String, String)]) async throws -> (JSONValue, JSONValue?) {
        let submitted = try await post(client, "\(gp)/\(task)/submitJob", [("f", "json")] + pairs)
        let job = try #require(submitted["jobId"]?.stringValue, "\(submitted)")
        let token = pairs.first { $0.0 == "token" }.map { "&token=\($0.1)" } ?? ""
        let status = try await TileExportRoutesTests.finished(client, "\(gp)/\(task)/jobs/\(job)?f=json\(token)")
        guard status["jobStatus"] == "esriJobSucceeded" else { return (status, nil) }
        let name = try #require(OfflinePackagingTasks.outputName(of: task))
        return (status, try await get(client, "\(gp)/\(task)/jobs/\(job)/results/\(name)?f=json\(token)")["value"])
    }

    static func envelope(_ xmin: Int) -> String {
        #"{"xmin":\#(xmin),"ymin":45,"xmax":\#(xmin + 1),"ymax":46,"spatialReference":{"wkid":4326}}"#
    }

    @Test func aServiceWithoutSyncFailsItsPackageWithItsReasonAndTheOthersAreMade() async throws {
        try await withFreshDemoApp { client, store in
            // A web map of the demo's layers plus a service that does not sync.
            var noSync = pointLayerService(name: "NoSync")
            noSync.capabilities = ["Query"]
            _ = try store.schema.createService(noSync)
            let demo = try #require(try store.portal.data(of: "de3000000000000000000000000000a1"))
            guard case .text(let text) = demo, case .object(var map) = try JSONParser.parse(text) else { return }
            map["operationalLayers"] = .array(
                (map["operationalLayers"]?.arrayValue ?? []) + [["url": "/arcgis/rest/services/NoSync/FeatureServer/0"]])
            let item = PortalItem(
                id: "0000000000000000000000000000ab01", owner: "outpost", title: "Mixed", type: "Web Map", created: 1, typeKeywords: ["Offline"])
            try store.portal.addItem(item, data: .text(JSONValue.object(map).jsonText))

            let (_, areaId) = try await Self.run(
                client, "CreateMapArea",
                [("mapItemId", item.id), ("areaType", "ENVELOPE"), ("area", Self.envelope(5)), ("outputName", #"{"title":"A"}"#)])
            let area = try #require(areaId?.stringValue)
            let (status, packages) = try await Self.run(client, "SetupMapArea", [("mapAreaItemId", area)])
            #expect(status["messages"]?.arrayValue?.contains { $0["description"] == "4 of 4 packages made." } == true, "\(status)")
            let failed = packages?.arrayValue?.filter { $0["state"] == "failed" } ?? []
            #expect(
                failed.count == 1 && failed[0]["source"]?.stringValue?.hasSuffix("/NoSync/FeatureServer") == true, "\(String(describing: packages))")
            #expect(failed.first?["error"]?.stringValue?.contains("OffPkg_23") == true, "Sync not enabled, in the packager's words")
            #expect(packages?.arrayValue?.filter { $0["state"] == "new" }.count == 3)
            let stored = try #require(try store.portal.item(id: area))
            #expect(stored.properties["status"] == "failed" && stored.properties["failedPackages"]?.arrayValue?.count == 1)
            let related = try store.portal.relationships(of: area).filter { $0.type == "Area2Package" }
            #expect(related.count == 3)
            let packageIds = related.map(\.destination)
            // Deleting the area deletes its packages and unregisters their replicas.
            let current = try packageIds.compactMap { try store.portal.item(id: $0)?.properties["replicaID"]?.stringValue }
            #expect(try current.contains { try store.replicas.replica(service: "Demo", id: $0) != nil })
            #expect(current.count == 2)
            let deleted = try await post(client, "/arcgis/sharing/rest/content/users/outpost/items/\(area)/delete", [("f", "json")])
            #expect(deleted["success"] == true, "\(deleted)")
            #expect(try packageIds.allSatisfy { try store.portal.item(id: $0) == nil })
            #expect(
                try current.allSatisfy { id in
                    try store.replicas.replica(service: "Demo", id: id) == nil && store.replicas.replica(service: "Parcels", id: id) == nil
                })
        }
    }

    @Test func settingAnAreaUpAgainKeepsEquivalentPackagesAndRemakesChangedOnes() async throws {
        try await withFreshDemoApp { client, store in
            let map = "de3000000000000000000000000000a1"
            let (_, areaId) = try await Self.run(
                client, "CreateMapArea", [("mapItemId", map), ("area", Self.envelope(5)), ("outputName", #"{"title":"Again"}"#)])
            let area = try #require(areaId?.stringValue)
            let (_, first) = try await Self.run(client, "SetupMapArea", [("mapAreaItemId", area)])
            let made = first?.arrayValue ?? []
            #expect(made.count == 3 && made.allSatisfy { $0["state"] == "new" }, "\(made)")

            // The same plan: every package kept as it is.
            let (_, second) = try await Self.run(client, "SetupMapArea", [("mapAreaItemId", area)])
            #expect(second?.arrayValue?.map { $0["state"] } == ["unchanged", "unchanged", "unchanged"], "\(String(describing: second))")
            #expect(second?.arrayValue?.map { $0["itemId"] } == made.map { $0["itemId"] })

            // Other layers of one service and other levels of the basemap: those two are made
            // again (the old ones deleted, the old replica unregistered), the third kept.
            let demo = try #require(made.first { $0["source"]?.stringValue?.hasSuffix("/Demo/FeatureServer") == true })
            let demoId = try #require(demo["itemId"]?.stringValue)
            let oldReplica = try #require(try store.portal.item(id: demoId)?.properties["replicaID"]?.stringValue)
            let (_, third) = try await Self.run(
                client, "SetupMapArea",
                [
                    ("mapAreaItemId", area),
                    ("featureServices", #"[{"url":"http://localhost/arcgis/rest/services/Demo/FeatureServer","layers":[0]}]"#),
                    ("tileServices", #"[{"url":"http://localhost/arcgis/rest/services/DemoBasemap/MapServer","levels":"0,1"}]"#),
                ])
            let states = Dictionary(
                (third?.arrayValue ?? []).map { ("\($0["state"]?.stringValue ?? "")", 1) }, uniquingKeysWith: +)
            #expect(states == ["deleted": 2, "new": 2, "unchanged": 1], "\(String(describing: third))")
            #expect(try store.portal.item(id: demoId) == nil && store.replicas.replica(service: "Demo", id: oldReplica) == nil)
            let now = try MapAreasTestSupport.packages(of: area, in: store)
            #expect(now.count == 3)
            let newDemo = try #require(now.first { $0.properties["url"]?.stringValue?.hasSuffix("/Demo/FeatureServer") == true })
            #expect(newDemo.properties["layers"] == [0])
            let basemap = try #require(now.first { $0.type == "Compact Tile Package" })
            #expect(basemap.properties["levels"] == "0,1" && basemap.properties["requestedLevels"] == "0,1")
            #expect(try MapAreasTestSupport.stored(area, in: store).properties["status"] == "complete")
        }
    }

    @Test func anAreaIsRescheduledAsThePythonAPIDoesItAndKeepsItsPolygon() async throws {
        try await withFreshDemoApp { client, store in
            let polygon = #"{"rings":[[[5,45],[5,50],[12,50],[5,45]]],"spatialReference":{"wkid":4326}}"#
            let (_, areaId) = try await Self.run(
                client, "CreateMapArea",
                [("mapItemId", "de3000000000000000000000000000a1"), ("areaType", "POLYGON"), ("area", polygon)])
            let area = try #require(areaId?.stringValue)
            // modify_refresh_schedule: the area's properties replaced by status, schedule and extent…
            let extent = try #require(try store.portal.item(id: area)?.properties["extent"])
            let properties: JSONValue = ["status": "complete", "packageRefreshSchedule": "0 59 23 ? * 4", "extent": extent]
            let updated = try await post(
                client, "/arcgis/sharing/rest/content/users/outpost/items/\(area)/update", [("f", "json"), ("properties", properties.jsonText)])
            #expect(updated["success"] == true, "\(updated)")
            let stored = try MapAreasTestSupport.stored(area, in: store)
            #expect(stored.properties["packageRefreshSchedule"] == "0 59 23 ? * 4")
            #expect(stored.properties["area"]?["polygon"]?["rings"] != nil, "the packager's polygon kept")
            // …then CreateMapArea with the area's own id: answered with the area.
            let (status, again) = try await Self.run(client, "CreateMapArea", [("mapItemId", area)])
            #expect(status["jobStatus"] == "esriJobSucceeded" && again?.stringValue == area, "\(status)")
            #expect(try store.portal.relationships(of: "de3000000000000000000000000000a1").filter { $0.type == "Map2Area" }.count == 1)
            // A schedule more often than daily is refused as at creation.
            let often: JSONValue = ["status": "complete", "packageRefreshSchedule": "0 */5 * * * ?", "extent": extent]
            _ = try await post(
                client, "/arcgis/sharing/rest/content/users/outpost/items/\(area)/update", [("f", "json"), ("properties", often.jsonText)])
            let (refused, _) = try await Self.run(client, "CreateMapArea", [("mapItemId", area)])
            let errors = refused["messages"]?.arrayValue?.compactMap { $0["description"]?.stringValue } ?? []
            #expect(refused["jobStatus"] == "esriJobFailed" && errors.contains { $0.contains("OffPkg_24") }, "\(errors)")
        }
    }

    @Test func anAreaPastTheLimitIsRefusedAndOnlyTheMapsOwnerMakesAreas() async throws {
        try await withFreshDemoApp(options: ServerOptions(requireAuth: true, maxMapAreas: 4)) { client, store in
            try store.users.addUser("ada", role: .editor, password: "editor-pass", rounds: 1000)
            let ada = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 10).token
            // The demo map is the server's: ada may not make its areas.
            let (refused, _) = try await Self.run(
                client, "CreateMapArea", [("token", ada), ("mapItemId", "de3000000000000000000000000000a1"), ("area", Self.envelope(0))])
            #expect(refused["jobStatus"] == "esriJobFailed", "\(refused)")
            let item = PortalItem(
                id: "0000000000000000000000000000ab02", owner: "ada", title: "Ada's", type: "Web Map", created: 1, typeKeywords: ["Offline"])
            try store.portal.addItem(item, data: .text(#"{"operationalLayers":[],"baseMap":{"baseMapLayers":[]}}"#))
            let portal = try await get(client, "/arcgis/sharing/rest/portals/self?f=json&token=\(ada)")
            #expect(portal["helperServices"]?["packaging"]?["maxMapAreaItemsLimit"] == 4, "the limit as configured")
            for index in 0..<4 {
                let (status, _) = try await Self.run(
                    client, "CreateMapArea", [("token", ada), ("mapItemId", item.id), ("area", Self.envelope(index))])
                #expect(status["jobStatus"] == "esriJobSucceeded", "\(index): \(status)")
            }
            let (fifth, _) = try await Self.run(client, "CreateMapArea", [("token", ada), ("mapItemId", item.id), ("area", Self.envelope(40))])
            let errors = fifth["messages"]?.arrayValue?.compactMap { $0["description"]?.stringValue } ?? []
            #expect(fifth["jobStatus"] == "esriJobFailed" && errors.contains { $0.contains("OffPkg_25") }, "\(errors)")
            #expect(try store.portal.relationships(of: item.id).filter { $0.type == "Map2Area" }.count == 4)
        }
    }
}

/// Reads of the store the packaging tests share.
enum MapAreasTestSupport {
    static func packages(of area: String, in store: SpatiaLiteBackend) throws -> [PortalItem] {
        try store.portal.relationships(of: area).filter { $0.type == "Area2Package" && $0.origin == area }
            .compactMap { try store.portal.item(id: $0.destination) }
    }

    static func stored(_ id: String, in store: SpatiaLiteBackend) throws -> PortalItem {
        try #require(try store.portal.item(id: id))
    }
}
