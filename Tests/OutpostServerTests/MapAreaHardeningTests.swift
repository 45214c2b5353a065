import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Issue 43's findings on map areas: each test failed before its fix.
@Suite struct MapAreaHardeningTests {
    typealias Run = PackagingRoutesTests
    static let demoMap = "de3000000000000000000000000000a1"
    static let portal = "/arcgis/sharing/rest"

    /// An area of the demo map set up by ada (an administrator): its Demo package and replica.
    static func adasPackage(_ client: any TestClientProtocol, _ tokens: [String: String]) async throws -> String {
        let ada = try #require(tokens["ada"])
        let (_, areaId) = try await Run.run(
            client, "CreateMapArea",
            [("token", ada), ("mapItemId", demoMap), ("areaType", "ENVELOPE"), ("area", #"{"xmin":5,"ymin":45,"xmax":20,"ymax":56}"#)])
        let area = try #require(areaId?.stringValue)
        let (_, made) = try await Run.run(
            client, "SetupMapArea",
            [("token", ada), ("mapAreaItemId", area), ("featureServices", #"[{"url":"http://localhost/arcgis/rest/services/Demo/FeatureServer"}]"#)])
        return try #require(made?.arrayValue?.first { $0["source"]?.stringValue?.hasSuffix("/Demo/FeatureServer") == true }?["itemId"]?.stringValue)
    }

    /// Finding 2: an editor's own `Map Area` item, related by `Area2Package` to another user's
    /// package and to the public demo map, then deleted, deleted them and unregistered the replica.
    @Test func deletingAnAreaLeavesWhatItsOwnerMayNotChange() async throws {
        try await HardeningTests.withSecuredApp { client, store, tokens in
            let package = try await Self.adasPackage(client, tokens)
            let replica = try #require(try store.portal.item(id: package)?.properties["replicaID"]?.stringValue)
            let eve = try #require(tokens["eve"])
            let added = try await post(
                client, "\(Self.portal)/content/users/eve/addItem", [("f", "json"), ("token", eve), ("type", "Map Area"), ("title", "Mine")])
            let area = try #require(added["id"]?.stringValue, "\(added)")
            for destination in [package, Self.demoMap] {
                let related = try await post(
                    client, "\(Self.portal)/content/users/eve/addRelationship",
                    [
                        ("f", "json"), ("token", eve), ("originItemId", area), ("destinationItemId", destination),
                        ("relationshipType", "Area2Package"),
                    ])
                #expect(related["success"] == true, "eve may relate her own item to what she sees: \(related)")
            }
            let deleted = try await post(client, "\(Self.portal)/content/users/eve/items/\(area)/delete", [("f", "json"), ("token", eve)])
            #expect(deleted["success"] == true, "\(deleted)")
            #expect(try store.portal.item(id: area) == nil)
            #expect(try store.portal.item(id: package) != nil, "ada's package is ada's")
            #expect(try store.portal.item(id: Self.demoMap) != nil, "the demo map is the server's")
            #expect(try store.replicas.replica(service: "Demo", id: replica) != nil, "its replica stays registered")
        }
    }

    /// Finding 2's neighbour: `addItem` with `originItemId` planted a relationship (a fake map
    /// area) on another user's map, using up its area limit.
    @Test func addItemRelatesOnlyFromItemsTheCallerMayChange() async throws {
        try await HardeningTests.withSecuredApp { client, store, tokens in
            let eve = try #require(tokens["eve"])
            let before = try store.portal.items().count
            let refused = try await post(
                client, "\(Self.portal)/content/users/eve/addItem",
                [
                    ("f", "json"), ("token", eve), ("type", "Map Area"), ("title", "Planted"), ("originItemId", Self.demoMap),
                    ("relationshipType", "Map2Area"),
                ])
            #expect(refused["error"]?["code"] == 403, "\(refused)")
            #expect(try store.portal.items().count == before, "nothing added")
            #expect(try store.portal.relationships(of: Self.demoMap).filter { $0.type == "Map2Area" }.isEmpty)
        }
    }

    /// Finding 3: RefreshMapAreaPackage merged the delta into the package file with its
    /// triggers running, and the file is whatever its owner last uploaded. A planted trigger
    /// (here one that only writes a row; the issue's grew the server by 1.2 GB) is refused
    /// before any row is written, and the package keeps its file.
    @Test func aPackageFileWithAPlantedTriggerIsRefusedBeforeTheMerge() async throws {
        try await HardeningTests.withSecuredApp { client, store, tokens in
            let ada = try #require(tokens["ada"])
            let package = try await Self.adasPackage(client, tokens)
            guard case .file(_, let original) = try #require(try store.portal.data(of: package)) else { return }
            let planted = TestFolders.file("planted.gpkg")
            try? FileManager.default.removeItem(atPath: planted)
            try FileManager.default.copyItem(atPath: original, toPath: planted)
            try Self.plantTrigger(in: planted)
            let (headers, body) = multipart(
                fields: [("f", "json"), ("token", ada)],
                file: (
                    field: "file", name: "replica.gpkg", type: "application/geopackage+sqlite3",
                    bytes: Array(try Data(contentsOf: URL(fileURLWithPath: planted)))
                ))
            try await client.execute(uri: "\(Self.portal)/content/users/ada/items/\(package)/update", method: .post, headers: headers, body: body) {
                #expect(json($0)["success"] == true, "the owner may replace the file: \(String(buffer: $0.body))")
            }
            _ = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/0/applyEdits",
                [
                    ("f", "json"), ("token", ada),
                    ("adds", #"[{"attributes":{"name":"Newtown"},"geometry":{"x":10,"y":50,"spatialReference":{"wkid":4326}}}]"#),
                ])
            let (_, result) = try await Run.run(client, "RefreshMapAreaPackage", [("token", ada), ("packages", #"[{"itemId":"\#(package)"}]"#)])
            #expect(result?[0]?["state"] == "failed", "\(String(describing: result))")
            #expect(result?[0]?["error"]?.stringValue?.contains("trigger planted_insert") == true, "\(String(describing: result))")
            guard case .file(_, let kept) = try #require(try store.portal.data(of: package)) else { return }
            #expect(try Self.plantedRows(kept) == 0)
        }
    }

    /// A trigger on every feature table that writes a row into `planted` for each insert.
    static func plantTrigger(in path: String) throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE planted(x)")
            for (index, table) in try String.fetchAll(db, sql: "SELECT table_name FROM gpkg_contents WHERE data_type = 'features'").enumerated() {
                try db.execute(
                    sql:
                        "CREATE TRIGGER planted_insert_\(index) AFTER INSERT ON \(table.quotedDatabaseIdentifier) BEGIN INSERT INTO planted VALUES (1); END"
                )
            }
        }
    }

    static func plantedRows(_ path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM planted") ?? 0 }
    }

    /// The scheduled refresher acted `.unrestricted` for every area: it now acts as the area's
    /// owner, so an area whose owner is no user is not refreshed under token security.
    @Test func theSchedulerActsAsTheAreasOwner() async throws {
        try await HardeningTests.withSecuredApp { _, store, _ in
            let files = ResultFiles(of: store, idleTime: 600)
            let secured = ScheduledRefresher(
                store: store, files: files, maxExportTiles: 100, requireAuth: true, interval: .seconds(60), logger: .outpostDefault)
            let area = PortalItem(id: "0000000000000000000000000000ee01", owner: "eve", title: "A", type: "Map Area", created: 1)
            let orphan = PortalItem(id: "0000000000000000000000000000ee02", owner: "gone", title: "B", type: "Map Area", created: 1)
            #expect(secured.owner(of: area)?.0 == .user(ServerUser(name: "eve", role: .editor)))
            #expect(secured.owner(of: orphan) == nil)
            let open = ScheduledRefresher(
                store: store, files: files, maxExportTiles: 100, requireAuth: false, interval: .seconds(60), logger: .outpostDefault)
            #expect(open.owner(of: orphan)?.0 == .unrestricted)
        }
    }
}
