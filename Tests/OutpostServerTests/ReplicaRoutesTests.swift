import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OutpostGeoPackage
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import ServiceLifecycle
import Testing

@testable import OutpostServer

let serviceURL = "/arcgis/rest/services/Demo/FeatureServer"

/// Posts a form and returns the JSON answer.
func post(_ client: any TestClientProtocol, _ path: String, _ pairs: [(String, String)]) async throws -> JSONValue {
    try await client.execute(uri: path, method: .post, headers: formHeaders, body: form(pairs)) { json($0) }
}

func get(_ client: any TestClientProtocol, _ path: String) async throws -> JSONValue {
    try await client.execute(uri: path, method: .get) { json($0) }
}

/// The path part of an absolute URL the server handed out.
func path(of url: String) -> String {
    URL(string: url).map { $0.path } ?? url
}

@Suite struct ReplicaRoutesTests {
    @Test func embeddedJSONReplicaHoldsTheFilteredRowsAndIsRegistered() async throws {
        try await withFreshDemoApp { client, store in
            let answer = try await post(
                client, "\(serviceURL)/createReplica",
                [
                    ("f", "json"), ("replicaName", "berlin"), ("layers", "[0, 2, 3]"),
                    ("layerQueries", #"{"2":{"queryOption":"useFilter","where":"height_m > 25"},"3":{"queryOption":"none","includeRelated":true}}"#),
                    ("geometry", "5,45,20,56"), ("geometryType", "esriGeometryEnvelope"), ("inSR", "4326"),
                    ("returnAttachments", "true"), ("returnAttachmentsDataByUrl", "false"),
                    ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
                ])
            #expect(answer["replicaName"] == "berlin")
            #expect(answer["responseType"] == "esriReplicaResponseTypeData")
            #expect(answer["transportType"] == "esriTransportTypeEmbedded")
            let id = try #require(answer["replicaID"]?.stringValue)
            let generation = try store.edits.currentGeneration()
            #expect(answer["layerServerGens"]?.arrayValue?.map { $0["serverGen"] } == [.int(generation), .int(generation), .int(generation)])
            let layers = try #require(answer["layers"]?.arrayValue)
            #expect(layers.map { $0["id"] } == [0, 2, 3])

            // The same rows as the equivalent queries.
            func count(_ layer: Int, _ query: String) async throws -> Int64 {
                try await get(client, "\(serviceURL)/\(layer)/query?\(query)&returnCountOnly=true&f=json")["count"]?.int64Value ?? -1
            }
            let cities = layers[0]["features"]?.arrayValue ?? []
            #expect(Int64(cities.count) == (try await count(0, "where=1%3D1&geometry=5,45,20,56")))
            #expect(!cities.isEmpty)
            let trees = layers[1]["features"]?.arrayValue ?? []
            #expect(Int64(trees.count) == (try await count(2, "where=height_m%20%3E%2025&geometry=5,45,20,56")))
            #expect(trees.allSatisfy { ($0["attributes"]?["height_m"]?.doubleValue ?? 0) > 25 })
            // includeRelated: exactly the inspections of the cities in the replica.
            let cityIDs = Set(cities.compactMap { $0["attributes"]?["GlobalID"]?.stringValue })
            let inspections = layers[2]["features"]?.arrayValue ?? []
            #expect(!inspections.isEmpty)
            #expect(inspections.allSatisfy { cityIDs.contains($0["attributes"]?["CityGlobalID"]?.stringValue ?? "") })
            let related = try await get(client, "\(serviceURL)/3/query?where=1%3D1&outFields=CityGlobalID&f=json")["features"]?.arrayValue ?? []
            #expect(inspections.count == related.filter { cityIDs.contains($0["attributes"]?["CityGlobalID"]?.stringValue ?? "") }.count)
            // Attachments embedded as base64.
            let attachments = layers[0]["attachments"]?.arrayValue ?? []
            #expect(!attachments.isEmpty)
            #expect(attachments.allSatisfy { $0["data"]?.stringValue != nil && cityIDs.contains($0["parentGlobalId"]?.stringValue ?? "") })

            let list = try await get(client, "\(serviceURL)/replicas?f=json")
            #expect(list == [["replicaName": "berlin", "replicaID": .string(id)]])
            #expect(try await get(client, "\(serviceURL)/replicas/\(FormURLEncoding.percentEncode(id))?f=json")["replicaID"] == .string(id))
            let info = try await get(client, "\(serviceURL)/replicas/\(id)?f=json")
            #expect(info["replicaName"] == "berlin" && info["syncModel"] == "perLayer" && info["replicaOwner"] == "")
            #expect(info["attachmentsSyncDirection"] == "bidirectional" && info["returnAttachments"] == true)
            #expect(info["layers"]?.arrayValue?[1]["where"] == "height_m > 25")
            #expect(info["geometry"]?["xmin"]?.doubleValue == 5)
            #expect(info["creationDate"]?.int64Value ?? 0 > 1_700_000_000_000)
        }
    }

    @Test func geoPackageByURLMatchesTheStoreAndReprojects() async throws {
        try await withFreshDemoApp { client, store in
            let answer = try await post(
                client, "\(serviceURL)/createReplica",
                [
                    ("f", "json"), ("replicaName", "gpkg"), ("layers", "0,1"), ("dataFormat", "sqlite"), ("returnAttachments", "true"),
                    ("replicaSR", #"{"wkid":102100,"latestWkid":3857}"#), ("transportType", "esriTransportTypeEmbedded"),
                ])
            #expect(answer["transportType"] == "esriTransportTypeUrl")
            let url = try #require(answer["URL"]?.stringValue)
            #expect(answer["responseUrl"]?.stringValue == url)
            #expect(url.hasSuffix(".gpkg") && url.contains("/arcgis/rest/services/Demo/replicafiles/"))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("dl-\(UUID().uuidString).gpkg").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await client.execute(uri: path(of: url), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/geopackage+sqlite3")
                _ = FileManager.default.createFile(atPath: file, contents: Data(buffer: response.body))
            }
            let info = try ReplicaFile.info(file)
            #expect(info.replicaId == answer["replicaID"]?.stringValue)
            // Ranged requests resume a download: 206 with the slice and where it lies.
            let whole = try Data(contentsOf: URL(fileURLWithPath: file))
            try await client.execute(uri: path(of: url), method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-199/\(whole.count)")
                #expect(Data(buffer: response.body) == whole.subdata(in: 100..<200))
            }
            try await client.execute(uri: path(of: url), method: .get, headers: [.range: "bytes=\(whole.count - 5)-"]) { response in
                #expect(response.status == .partialContent && Data(buffer: response.body) == whole.suffix(5))
            }
            // A range past the end, or several ranges: the whole file.
            try await client.execute(uri: path(of: url), method: .get, headers: [.range: "bytes=\(whole.count)-"]) { response in
                #expect(response.status == .ok && response.body.readableBytes == whole.count)
            }
            #expect(info.layers.map(\.name) == ["Cities", "Countries"])
            #expect(info.spatialReference == SpatialReference(wkid: 102100))
            let queue = try ReplicaFile.open(file, readonly: true)
            try await queue.read { db throws in
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Cities") == (try store.features.count(service: "Demo", layer: 0)))
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Countries") == (try store.features.count(service: "Demo", layer: 1)))
                #expect(try Int.fetchOne(db, sql: "SELECT srs_id FROM gpkg_geometry_columns WHERE table_name = 'Cities'") == 3857)
                // Web Mercator metres, not degrees.
                let maxX = try Double.fetchOne(db, sql: "SELECT max(maxx) FROM rtree_Cities_shape") ?? 0
                #expect(maxX > 1_000_000)
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Cities__ATTACH") ?? 0 > 0)
            }
            try queue.close()
        }
    }

    @Test func asyncJobsReportStatusAndAResult() async throws {
        try await withFreshDemoApp { client, _ in
            let answer = try await post(
                client, "\(serviceURL)/createReplica",
                [
                    ("f", "json"), ("layers", "2"), ("dataFormat", "json"), ("async", "true"), ("replicaName", "later"),
                ])
            let statusURL = try #require(answer["statusUrl"]?.stringValue)
            #expect(statusURL.contains("/FeatureServer/jobs/j") && !statusURL.hasSuffix("/status"))
            #expect(answer["replicaID"]?.stringValue?.hasPrefix("{") == true && answer["targetType"] == "client")
            var status: JSONValue = .null
            for _ in 0..<200 {
                status = try await get(client, "\(path(of: statusURL))?f=json")
                if status["status"] == "Completed" || status["status"] == "Failed" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(status["status"] == "Completed")
            #expect(status["replicaID"] == answer["replicaID"] && status["replicaName"] == "later")
            #expect(status["submissionTime"]?.int64Value ?? 0 <= status["lastUpdatedTime"]?.int64Value ?? -1)
            // ArcREST polls `<statusUrl>/status`.
            #expect(try await get(client, "\(path(of: statusURL))/status?f=json")["status"] == "Completed")
            let resultURL = try #require(status["resultUrl"]?.stringValue)
            let document = try await get(client, path(of: resultURL))
            #expect(document["replicaID"] == answer["replicaID"])
            #expect(document["layers"]?.arrayValue?.first?["features"]?.arrayValue?.count == 2500)
            let missing = try await get(client, "\(serviceURL)/jobs/jnothere?f=json")
            #expect(missing["error"]?["code"] == 404)
        }
    }

    /// Each bad request answers a clear error envelope and registers nothing.
    @Test(
        arguments: [
            ([("layers", "9")], "layers"),
            ([("layers", "0"), ("syncModel", "perReplica")], "syncModel"),
            ([("layers", "0"), ("returnAttachments", "true"), ("attachmentsSyncDirection", "none")], "attachmentsSyncDirection"),
            ([("layers", "0"), ("returnAttachments", "false"), ("attachmentsSyncDirection", "bidirectional")], "attachmentsSyncDirection"),
            ([("layers", "0"), ("dataFormat", "shapefile")], "dataFormat"),
            ([("layers", "0"), ("layerQueries", #"{"0":{"where":"name = 'x' OR 1=1; --"}}"#)], "layerQueries"),
            ([("layers", "0"), ("geometry", "1,2,3")], "geometry"),
            ([("layers", "0"), ("replicaSR", "999999")], "replicaSR"),
            ([("layers", "0"), ("geometry", "0,0,1,1"), ("inSR", "999999")], "inSR"),
            ([("layers", "0"), ("targetType", "server"), ("syncDirection", "bidirectional")], "syncDirection"),
            ([("layers", "0"), ("replicaOptions", #"{"registerExistingData":true}"#)], "replicaOptions"),
        ] as [([(String, String)], String)])
    func invalidRequestsRegisterNothing(pairs: [(String, String)], parameter: String) async throws {
        try await withFreshDemoApp { client, store in
            let answer = try await post(client, "\(serviceURL)/createReplica", [("f", "json")] + pairs)
            let error = try #require(answer["error"])
            #expect(error["code"] == 400)
            #expect(error["details"]?.arrayValue?.compactMap(\.stringValue).joined().contains(parameter) == true, "\(answer)")
            #expect(try store.replicas.replicas(service: "Demo").isEmpty)
            #expect(try await get(client, "\(serviceURL)/replicas?f=json") == [])
        }
    }

    @Test func syncDisabledServicesRefuse() async throws {
        try await withFreshDemoApp { client, store in
            try store.schema.createService(
                ServiceDefinition(
                    name: "Plain", capabilities: ["Query"],
                    layers: [
                        LayerDefinition(
                            id: 0, name: "T", kind: .table, geometryType: nil, spatialReference: .wgs84,
                            fields: LayerDefinition.withSystemFields([]))
                    ]))
            let answer = try await post(client, "/arcgis/rest/services/Plain/FeatureServer/createReplica", [("f", "json"), ("layers", "0")])
            #expect(answer["error"]?["details"]?.arrayValue?.first?.stringValue?.contains("Sync is not enabled") == true)
        }
    }

    @Test func exportsWithSyncModelNoneRegisterNothing() async throws {
        try await withFreshDemoApp { client, store in
            let answer = try await post(
                client, "\(serviceURL)/createReplica",
                [
                    ("f", "json"), ("layers", "1"), ("syncModel", "none"), ("transportType", "esriTransportTypeEmbedded"),
                ])
            #expect(answer["replicaID"] == "")
            #expect(answer["layerServerGens"] == nil && answer["replicaServerGen"] == nil)
            #expect(answer["layers"]?.arrayValue?.first?["features"]?.arrayValue?.count == (try store.features.count(service: "Demo", layer: 1)))
            #expect(try store.replicas.replicas(service: "Demo").isEmpty)
        }
    }

    @Test func namesAreMadeUniqueAndGetWorksForRestapi() async throws {
        try await withFreshDemoApp { client, _ in
            for _ in 0..<2 {
                _ = try await post(
                    client, "\(serviceURL)/createReplica",
                    [
                        ("f", "json"), ("layers", "1"), ("replicaName", "same"),
                        ("transportType", "esriTransportTypeEmbedded"),
                    ])
            }
            // restapi sends replica operations as GET with empty parameters.
            let viaGet = try await get(
                client,
                "\(serviceURL)/createReplica?replicaName=same&layers=1&layerQueries=&replicaOptions=&f=pjson&transportType=esriTransportTypeUrl")
            #expect(viaGet["replicaName"] == "same_1")
            let names = try await get(client, "\(serviceURL)/replicas?f=json").arrayValue?.compactMap { $0["replicaName"]?.stringValue }
            #expect(names == ["same", "same_0", "same_1"])
        }
    }

    @Test func unregisterOneOrAll() async throws {
        try await withFreshDemoApp { client, store in
            var ids: [String] = []
            for name in ["a", "b", "c"] {
                let answer = try await post(
                    client, "\(serviceURL)/createReplica",
                    [
                        ("f", "json"), ("layers", "1"), ("replicaName", name),
                        ("transportType", "esriTransportTypeEmbedded"),
                    ])
                ids.append(try #require(answer["replicaID"]?.stringValue))
            }
            // Any GUID spelling names the replica.
            let bare = String(ids[0].dropFirst().dropLast()).lowercased()
            #expect(try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("replicaID", bare)]) == ["success": true])
            let again = try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("replicaID", bare)])
            #expect(again["error"]?["code"] == 404)
            #expect(try await get(client, "\(serviceURL)/replicas/\(ids[0])?f=json")["error"]?["code"] == 404)
            let junk = try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("replicaID", "nonsense")])
            #expect(junk["error"]?["code"] == 400)
            #expect(try store.replicas.replicas(service: "Demo").map(\.id) == [ids[1], ids[2]])
            #expect(try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("replicaID", "*")]) == ["success": true])
            #expect(try store.replicas.replicas(service: "Demo").isEmpty)
        }
    }

    @Test func registeringACopyGivesANewIdAndNoData() async throws {
        try await withFreshDemoApp { client, store in
            let original = try await post(
                client, "\(serviceURL)/createReplica",
                [
                    ("f", "json"), ("layers", "0,2"), ("replicaName", "master"), ("dataFormat", "sqlite"),
                    ("layerQueries", #"{"2":{"where":"healthy = 1"}}"#),
                ])
            let originalId = try #require(original["replicaID"]?.stringValue)
            let generation = try #require(original["layerServerGens"]?.arrayValue?.first?["serverGen"]?.int64Value)
            // The server moves on before the copy is registered.
            _ = try await post(
                client, "\(serviceURL)/2/applyEdits", [("f", "json"), ("adds", #"[{"attributes":{"species":"x"},"geometry":{"x":13,"y":52}}]"#)])
            let options =
                #"{"registerExistingData":true,"refReplicaId":"\#(originalId)","layerServerGens":[{"id":0,"serverGen":\#(generation)},{"id":2,"serverGen":\#(generation)}]}"#
            let copy = try await post(
                client, "\(serviceURL)/createReplica", [("f", "json"), ("replicaName", "device-7"), ("replicaOptions", options)])
            #expect(copy["responseType"] == "esriReplicaResponseTypeInfo")
            #expect(copy["layers"] == nil && copy["URL"] == nil)
            let copyId = try #require(copy["replicaID"]?.stringValue)
            #expect(copyId != originalId)
            #expect(copy["layerServerGens"]?.arrayValue?.map { $0["serverGen"] } == [.int(generation), .int(generation)])
            #expect(try store.edits.currentGeneration() > generation)
            let info = try await get(client, "\(serviceURL)/replicas/\(copyId)?f=json")
            #expect(info["replicaName"] == "device-7")
            #expect(info["layers"]?.arrayValue?.map { $0["id"] } == [0, 2])
            #expect(info["layers"]?.arrayValue?[1]["where"] == "healthy = 1")
            #expect(try store.replicas.replicas(service: "Demo").count == 2)
        }
    }
}

@Suite struct ResultFilesTests {
    @Test func filesExpireAfterTheirIdleTimeAndNamesCannotEscape() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("results-\(UUID().uuidString)").path
        let clock = ManualClock()
        let files = ResultFiles(
            blobs: .folder(directory), workDirectory: (directory as NSString).appendingPathComponent("replicafiles"), idleTime: 60, clock: clock)
        let name = ResultFiles.newName(extension: "json")
        #expect(ResultFiles.isValidName(name))
        _ = FileManager.default.createFile(atPath: try files.temporaryPath(for: name), contents: Data("{}".utf8))
        #expect(files.open(name) == nil, "not served before it is published")
        clock.advance(milliseconds: 3_600_000)
        // The idle clock starts at publication, however long the file took to write.
        try files.publish(name)
        clock.advance(milliseconds: 30_000)
        #expect(files.open(name) != nil)
        clock.advance(milliseconds: 50_000)
        // Downloading restarted the idle clock.
        #expect(files.open(name) != nil)
        clock.advance(milliseconds: 20_000)
        #expect(files.sweep().isEmpty)
        clock.advance(milliseconds: 100_000)
        #expect(files.open(name) == nil)
        #expect(files.sweep() == [name])
        #expect((try? files.file(name)) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory + "/replicafiles/" + name))
        for bad in ["../outpost.sqlite", "x.json", "\(String(repeating: "a", count: 32)).sqlite", "/etc/passwd", ".tmp-\(name)"] {
            #expect(!ResultFiles.isValidName(bad), "\(bad)")
            #expect(files.open(bad) == nil)
        }
    }
    /// The sweeper is a service of the application: it removes idle files and forgets their
    /// owners while the server runs, with no request to trigger it, and stops at shutdown.
    @Test func theSweeperServiceRemovesIdleFilesWithoutARequest() async throws {
        let store = try makeTemporaryStore()
        let files = ResultFiles(of: store, idleTime: 0)
        let name = ResultFiles.newName(extension: "json")
        _ = FileManager.default.createFile(atPath: try files.temporaryPath(for: name), contents: Data("{}".utf8))
        try files.publish(name)
        try store.resultFiles.recordResultFile(name, owner: "ada", service: nil)
        let sweeper = ResultFileSweeper(
            files: files, store: store, interval: .milliseconds(20), logger: Logger(label: "test"))
        let group = ServiceGroup(services: [sweeper], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        // The sweep waits its turn on the blocking pool (`StoreCall`), which the whole suite's
        // servers share: under the parallel suite that turn may come tens of seconds later.
        let deadline = ContinuousClock.now + .seconds(120)
        while (try? files.file(name)) != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        await group.triggerGracefulShutdown()
        try await running.value
        #expect((try? files.file(name)) == nil)
        #expect(try store.resultFiles.resultFileOwner(name) == "")
    }

    @Test func sweptFilesLeaveNoOwnerBehind() async throws {
        try await withFreshDemoApp { _, store in
            // A work folder of its own: the once-a-minute sweep is due there.
            let files = ResultFiles(
                blobs: store.blobs, workDirectory: (store.directory as NSString).appendingPathComponent("replicafiles-\(UUID().uuidString)"),
                idleTime: 0)
            let controller = ReplicasController(
                store: store, files: files, runner: JobRunner(), origin: ServerOrigin(servedScheme: "http"), syncLimits: .standard,
                resultQuotaBytes: 0, logger: .outpostDefault)
            let name = ResultFiles.newName(extension: "json")
            _ = FileManager.default.createFile(atPath: try files.temporaryPath(for: name), contents: Data("{}".utf8))
            try store.resultFiles.recordResultFile(name, owner: "eve", service: nil)
            try files.publish(name)
            #expect(try store.resultFiles.resultFileOwner(name) == "eve")
            try await Task.sleep(for: .milliseconds(20))
            controller.sweepResultFiles()
            #expect((try? files.file(name)) == nil)
            #expect(try store.resultFiles.resultFileOwner(name) == "")
        }
    }
}
