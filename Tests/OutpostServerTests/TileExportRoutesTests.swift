import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// `exportTiles` and `estimateExportTilesSize` over HTTP (docs/tiles.md, "Export"): the job,
/// its progress and result, the package in its output folder, owners, limits and expiry.
@Suite struct TileExportRoutesTests {
    static let mapServer = "/arcgis/rest/services/DemoBasemap/MapServer"
    static let vectorServer = "/arcgis/rest/services/DemoVectorBasemap/VectorTileServer"

    /// Polls a job until it ends.
    static func finished(_ client: any TestClientProtocol, _ url: String) async throws -> JSONValue {
        for _ in 0..<400 {
            let status = try await get(client, url)
            if let text = status["jobStatus"]?.stringValue, GeoprocessingJobStatus.Status(rawValue: text)?.isTerminal == true { return status }
            if status["error"] != nil { return status }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("the job at \(url) did not end")
        return .null
    }

    /// Submits, waits, and follows `results/out_service_url` to the value it names.
    static func export(
        _ client: any TestClientProtocol, _ service: String, operation: String = "exportTiles", jobs: String? = nil, _ pairs: [(String, String)],
        token: String? = nil
    ) async throws -> (job: String, status: JSONValue, value: JSONValue?) {
        let auth = token.map { [("token", $0)] } ?? []
        let submitted = try await post(client, "\(service)/\(operation)", [("f", "json")] + pairs + auth)
        let job = try #require(submitted["jobId"]?.stringValue, "\(submitted)")
        #expect(submitted["jobStatus"] == "esriJobSubmitted")
        let jobURL = "\(service)/\(jobs ?? "\(operation)/jobs")/\(job)"
        let suffix = token.map { "&token=\($0)" } ?? ""
        let status = try await finished(client, "\(jobURL)?f=json\(suffix)")
        guard status["jobStatus"] == "esriJobSucceeded" else { return (job, status, nil) }
        let result = try await get(client, "\(jobURL)/results/out_service_url?f=json\(suffix)")
        #expect(result["paramName"] == "out_service_url", "\(result)")
        return (job, status, result["value"])
    }

    /// Reads a downloaded SQLite file (synchronously, outside the async test's context).
    static func read<T>(_ file: String, _ body: (Database) throws -> T) throws -> T {
        try DatabaseQueue(path: file).read(body)
    }

    /// A URL the server wrote, as a path the test client asks for.
    static func path(_ url: String) -> String {
        url.range(of: "/arcgis/").map { String(url[$0.lowerBound...]) } ?? url
    }

    static func download(_ client: any TestClientProtocol, _ folder: JSONValue?, token: String? = nil) async throws -> (name: String, bytes: [UInt8])
    {
        let suffix = token.map { "&token=\($0)" } ?? ""
        let listing = try await get(client, "\(path(try #require(folder?.stringValue)))?f=json\(suffix)")
        let file = try #require(listing["files"]?[0], "\(listing)")
        let name = try #require(file["name"]?.stringValue)
        let bytes = try await client.execute(uri: "\(path(try #require(file["url"]?.stringValue)))?f=json\(suffix)", method: .get) { response in
            #expect(response.status == .ok && response.headers[.contentDisposition] == "attachment; filename=\"\(name)\"")
            return Array(buffer: response.body)
        }
        return (name, bytes)
    }

    @Test func aTilePackageHoldsTheServicesTilesByteForByte() async throws {
        try await withFreshDemoApp { client, _ in
            let (_, status, folder) = try await Self.export(client, Self.mapServer, [("levels", "0-2"), ("exportBy", "LevelID")])
            let messages = status["messages"]?.arrayValue?.compactMap { $0["description"]?.stringValue } ?? []
            #expect(messages.contains("21 of 21 tiles written."), "\(messages)")
            let (name, bytes) = try await Self.download(client, folder)
            #expect(name == "DemoBasemap.tpkx")
            let entries = try #require(TilePackageReading.storedEntries(bytes), "a zip of stored entries")
            #expect(
                Set(entries.keys) == [
                    "root.json", "iteminfo.json", "tile/L00/R0000C0000.bundle", "tile/L01/R0000C0000.bundle", "tile/L02/R0000C0000.bundle",
                ])
            for level in 0...2 {
                let bundle = try #require(entries["tile/L0\(level)/R0000C0000.bundle"])
                for row in 0..<(1 << level) {
                    for column in 0..<(1 << level) {
                        let source = try TileServicesTests.sourceTile("demo-raster.mbtiles", level: level, row: row, column: column)
                        #expect(TilePackageReading.tile(inBundle: bundle, row: row, column: column) == source, "\(level)/\(row)/\(column)")
                    }
                }
            }
        }
    }

    @Test func anEstimateIsTheSizeOfThePackageItEstimates() async throws {
        try await withFreshDemoApp { client, _ in
            let pairs = [("levels", "1-3"), ("exportExtent", "-10,35,30,60")]
            let (_, _, estimate) = try await Self.export(client, Self.mapServer, operation: "estimateExportTilesSize", pairs)
            let (_, _, folder) = try await Self.export(client, Self.mapServer, pairs)
            let entries = try #require(TilePackageReading.storedEntries(try await Self.download(client, folder).bytes))
            let bundles = entries.filter { $0.key.hasSuffix(".bundle") }.values
            #expect(estimate?["totalTilesToExport"]?.int64Value == Int64(bundles.reduce(0) { $0 + TilePackageReading.tileCount(inBundle: $1) }))
            #expect(estimate?["totalSize"]?.int64Value == Int64(bundles.reduce(0) { $0 + $1.count }), "exact for a .tpkx's bundles")
        }
    }

    @Test func anAreaOfInterestAndAnExtentTakeOnlyTheTilesTheyTouch() async throws {
        try await withFreshDemoApp { client, _ in
            // A small triangle around 10° E, 50° N: one tile per level.
            let triangle = #"{"rings":[[[10,50],[10.01,50],[10,50.01],[10,50]]],"spatialReference":{"wkid":4326}}"#
            let (_, _, aoi) = try await Self.export(
                client, Self.mapServer, operation: "estimateExportTilesSize",
                [("levels", "0-3"), ("areaOfInterest", #"{"features":[{"geometry":\#(triangle)}]}"#)])
            #expect(aoi?["totalTilesToExport"] == 4, "\(String(describing: aoi))")
            let (_, _, folder) = try await Self.export(
                client, Self.mapServer, [("levels", "0-3"), ("polygon", triangle), ("storageFormat", "MBTiles")])
            let (name, bytes) = try await Self.download(client, folder)
            #expect(name == "DemoBasemap.mbtiles")
            let file = TestFolders.file("aoi.mbtiles")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            #expect(try Self.read(file) { try Int.fetchOne($0, sql: "SELECT count(*) FROM tiles") } == 4)
        }
    }

    @Test func aVectorExportIsAnMBTilesOfTheSetsTilesAtTheServicesJobs() async throws {
        try await withFreshDemoApp { client, _ in
            let (_, _, folder) = try await Self.export(
                client, Self.vectorServer, jobs: "jobs", [("levels", "0-2"), ("exportBy", "levelId"), ("storageFormatType", "Compact")])
            let (name, bytes) = try await Self.download(client, folder)
            #expect(name == "DemoVectorBasemap.mbtiles")
            let file = TestFolders.file("vector.mbtiles")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            try Self.read(file) { db in
                #expect(try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE name = 'format'") == "pbf")
                #expect(try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE name = 'json'")?.contains("vector_layers") == true)
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM tiles") == 21)
                let exported = try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = 2 AND tile_column = 2 AND tile_row = 2")
                #expect(exported.map { [UInt8]($0) } == (try TileServicesTests.sourceTile("demo-vector.mbtiles", level: 2, row: 1, column: 2)))
            }
        }
    }

    @Test func tooManyTilesAreRefusedBeforeAnyJobWithTheLevelsToDrop() async throws {
        try await withFreshDemoApp(options: ServerOptions(maxExportTiles: 20)) { client, store in
            #expect(try await get(client, "\(Self.mapServer)?f=json")["maxExportTilesCount"] == 20)
            let refused = try await post(client, "\(Self.mapServer)/exportTiles", [("f", "json"), ("levels", "0-2")])
            #expect(
                refused["error"]?["message"]
                    == "ERROR 001564: Requested tile count(21) exceeds the maximum allowed number of tiles(20) to be exported for service DemoBasemap:MapServer.",
                "\(refused)")
            #expect(refused["error"]?["details"]?[0]?.stringValue?.contains("Leave out levels 2") == true)
            for bad in [[("storageFormat", "esriMapCacheStorageModeCompact")], [("levels", "9")], [("exportExtent", "north")]] {
                #expect(try await post(client, "\(Self.mapServer)/exportTiles", [("f", "json")] + bad)["error"]?["code"] == 400, "\(bad)")
            }
            let folder = (store.directory as NSString).appendingPathComponent("replicafiles")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty, "nothing written")
        }
    }

    @Test func exportsAreTheirOwnersAndExpireLikeResultFiles() async throws {
        let clock = ManualClock()
        try await withFreshDemoApp(options: ServerOptions(resultFileIdleTime: 60, requireAuth: true), clock: clock) { client, store in
            try store.users.addUser("eve", role: .viewer, password: "viewer-pass", rounds: 1000)
            try store.users.addUser("bob", role: .viewer, password: "viewer-pass", rounds: 1000)
            let eve = try store.users.issueToken(for: ServerUser(name: "eve", role: .viewer), minutes: 10).token
            let bob = try store.users.issueToken(for: ServerUser(name: "bob", role: .viewer), minutes: 10).token
            let (job, _, folder) = try await Self.export(client, Self.mapServer, [("levels", "0-1")], token: eve)
            let listing = Self.path(try #require(folder?.stringValue))
            #expect(try await get(client, "\(listing)?f=json&token=\(eve)")["files"] != nil)
            #expect(try await get(client, "\(listing)?f=json&token=\(bob)")["error"]?["code"] == 404, "another user's export is not found")
            #expect(try await get(client, "\(Self.mapServer)/exportTiles/jobs/\(job)?f=json&token=\(bob)")["error"]?["code"] == 404)
            #expect(try await get(client, "\(listing)?f=json")["error"]?["code"] == 499)
            clock.advance(milliseconds: 59_000)
            #expect(try await get(client, "\(listing)?f=json&token=\(eve)")["files"] != nil, "not yet expired")
            clock.advance(milliseconds: 61_000)
            #expect(try await get(client, "\(listing)?f=json&token=\(eve)")["error"]?["code"] == 404, "expired")
        }
    }

    /// Issue 43: exports had no per-user quota (one viewer kept 1.6 GB in 45 s). Past it a
    /// user's new exports and replica files are refused with 429 and the ArcGIS error; another
    /// user is unaffected, and the first user may export again once theirs expire.
    @Test func aUsersExportsStopAtTheQuotaAndAnotherUserIsUnaffected() async throws {
        let clock = ManualClock()
        let options = ServerOptions(resultFileIdleTime: 60, requireAuth: true, resultQuotaBytes: 2_048)
        try await withFreshDemoApp(options: options, clock: clock) { client, store in
            var tokens: [String: String] = [:]
            for name in ["vic", "val"] {
                try store.users.addUser(name, role: .viewer, password: "viewer-pass", rounds: 1000)
                tokens[name] = try store.users.issueToken(for: ServerUser(name: name, role: .viewer), minutes: 10).token
            }
            let (vic, val) = (try #require(tokens["vic"]), try #require(tokens["val"]))
            let (_, first, _) = try await Self.export(client, Self.mapServer, [("levels", "0-2")], token: vic)
            #expect(first["jobStatus"] == "esriJobSucceeded", "\(first)")
            #expect(try ResultFiles(of: store, idleTime: 60).bytesHeld(by: "vic", registry: store.resultFiles) > 2_048)
            for (path, pairs) in [
                ("\(Self.mapServer)/exportTiles", [("levels", "0-1")]),
                ("/arcgis/rest/services/Demo/FeatureServer/createReplica", [("layers", "0"), ("dataFormat", "sqlite"), ("async", "true")]),
            ] {
                try await client.execute(
                    uri: path, method: .post, headers: formHeaders, body: form([("f", "json"), ("token", vic)] + pairs)
                ) { response in
                    let answer = json(response)
                    #expect(answer["error"]?["code"] == 429, "\(path): \(answer)")
                    #expect(answer["error"]?["details"]?[0]?.stringValue?.contains("quota") == true)
                    #expect(response.headers[.retryAfter] == "60")
                }
            }
            let (_, other, _) = try await Self.export(client, Self.mapServer, [("levels", "0-1")], token: val)
            #expect(other["jobStatus"] == "esriJobSucceeded", "another user is unaffected: \(other)")
            clock.advance(milliseconds: 61_000)
            let (_, again, _) = try await Self.export(client, Self.mapServer, [("levels", "0-1")], token: vic)
            #expect(again["jobStatus"] == "esriJobSucceeded", "once the first expired: \(again)")
        }
    }

    @Test func anExportCutOffByARestartFailsSayingSo() async throws {
        try await withFreshDemoApp { client, store in
            let cutOff = JobRecord(
                id: "jcut0000000000000000000000000000", serviceName: "DemoBasemap", kind: .exportTiles, replicaId: "", replicaName: "",
                submittedAt: store.clock.milliseconds())
            try store.jobs.saveJob(try cutOff.applying(.started, at: store.clock.milliseconds()))
            try store.jobs.failUnfinishedJobs(now: store.clock.milliseconds())
            let status = try await get(client, "\(Self.mapServer)/exportTiles/jobs/\(cutOff.id)?f=json")
            #expect(status["jobStatus"] == "esriJobFailed" && status["results"] == nil, "\(status)")
            let errors = status["messages"]?.arrayValue?.filter { $0["type"] == "esriJobMessageTypeError" } ?? []
            #expect(errors.contains { $0["description"]?.stringValue?.contains("restarted") == true }, "\(errors)")
            #expect(try await get(client, "/arcgis/rest/directories/arcgisoutput/\(cutOff.id)?f=json")["error"]?["code"] == 404)
        }
    }
}

/// `addItem` with `dataUrl` naming a file of this server (docs/portal.md, "Item files").
@Suite struct DataURLItemTests {
    @Test func anExportsPackageBecomesAnItemsFileThroughItsURL() async throws {
        try await withFreshDemoApp(options: ServerOptions(requireAuth: true)) { client, store in
            try store.users.addUser("eve", role: .editor, password: "editor-pass", rounds: 1000)
            try store.users.addUser("bob", role: .editor, password: "editor-pass", rounds: 1000)
            let eve = try store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 10).token
            let bob = try store.users.issueToken(for: ServerUser(name: "bob", role: .editor), minutes: 10).token
            let (_, _, folder) = try await TileExportRoutesTests.export(client, TileExportRoutesTests.mapServer, [("levels", "0-1")], token: eve)
            let listing = try await get(client, "\(TileExportRoutesTests.path(try #require(folder?.stringValue)))?f=json&token=\(eve)")
            let url = try #require(listing["files"]?[0]?["url"]?.stringValue)
            let package = try await TileExportRoutesTests.download(client, folder, token: eve).bytes

            func add(_ token: String, _ user: String, _ dataUrl: String) async throws -> JSONValue {
                try await post(
                    client, "/arcgis/sharing/rest/content/users/\(user)/addItem",
                    [("f", "json"), ("token", token), ("type", "Tile Package"), ("title", "Basemap package"), ("dataUrl", dataUrl)])
            }
            let added = try await add(eve, "eve", url)
            let id = try #require(added["id"]?.stringValue, "\(added)")
            let item = try await get(client, "/arcgis/sharing/rest/content/items/\(id)?f=json&token=\(eve)")
            #expect(item["name"] == "DemoBasemap.tpkx" && item["size"]?.int64Value == Int64(package.count), "\(item)")
            try await client.execute(uri: "/arcgis/sharing/rest/content/items/\(id)/data?token=\(eve)", method: .get) { response in
                #expect(Array(buffer: response.body) == package, "the item's file is the package")
            }
            // Another user's export, another host, and a path that is no file of the server are refused.
            #expect(try await add(bob, "bob", url)["error"]?["code"] == 400)
            #expect(try await add(eve, "eve", "http://elsewhere.example/DemoBasemap.tpkx")["error"]?["code"] == 400)
            #expect(try await add(eve, "eve", "/arcgis/rest/services/Demo/FeatureServer?f=json")["error"]?["code"] == 400)
        }
    }
}
