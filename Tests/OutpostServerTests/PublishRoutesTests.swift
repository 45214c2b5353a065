import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostTilePackage
import OutpostWire
import Testing

@testable import OutpostServer

/// The portal's `publish` (docs/portal.md, "Publishing"): a file item of one's own becomes a
/// feature service through the CLI's import, as a job `status` follows; what can be refused is
/// refused before the job, and a file cannot make GDAL read anything but itself.
@Suite struct PublishRoutesTests {
    static let portal = "/arcgis/sharing/rest"

    /// A zipped Shapefile of the demo's cities, made by GDAL (as a user would make one).
    static func zippedShapefile() async throws -> [UInt8] {
        let folder = TestFolders.make("shapefile")
        let made = try await ExternalTool.run(
            "/usr/bin/ogr2ogr", ["-f", "ESRI Shapefile", folder + "/cities.shp", TestFolders.testdata + "/naturalearth_cities.geojson"],
            mergingErrors: true)
        #expect(made.exitCode == 0, "\(made.text)")
        return try zip(folder: folder, names: ["cities.shp", "cities.shx", "cities.dbf", "cities.prj"])
    }

    /// A stored ZIP of `names` in `folder`.
    static func zip(folder: String, names: [String], prefix: String = "") throws -> [UInt8] {
        let path = TestFolders.file("upload.zip")
        let writer = try StoredZipWriter(path: path)
        for name in names {
            try writer.addEntry(prefix + name, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))))
        }
        try writer.finish()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func addFile(
        _ client: any TestClientProtocol, token: String, owner: String, type: String, name: String, bytes: [UInt8]
    ) async throws -> String {
        let (headers, body) = multipart(
            fields: [("f", "json"), ("token", token), ("type", type), ("title", name)], file: ("file", name, "application/octet-stream", bytes))
        let added = try await client.execute(uri: "\(portal)/content/users/\(owner)/addItem", method: .post, headers: headers, body: body) {
            json($0)
        }
        return try #require(added["id"]?.stringValue, "\(added)")
    }

    static func publish(
        _ client: any TestClientProtocol, token: String, owner: String, item: String, filetype: String, name: String
    ) async throws -> JSONValue {
        try await post(
            client, "\(portal)/content/users/\(owner)/publish",
            [("f", "json"), ("token", token), ("itemID", item), ("filetype", filetype), ("publishParameters", #"{"name":"\#(name)"}"#)])
    }

    /// The job's status once it has ended (polled; bounded by a count, not by time).
    static func finished(_ client: any TestClientProtocol, token: String, owner: String, _ answer: JSONValue) async throws -> JSONValue {
        let service = try #require(answer["services"]?[0], "\(answer)")
        let path = "\(portal)/content/users/\(owner)/items/\(service["serviceItemId"]?.stringValue ?? "")/status"
        for _ in 0..<3000 {
            let status = try await post(
                client, path, [("f", "json"), ("token", token), ("jobType", "publish"), ("jobId", service["jobId"]?.stringValue ?? "")])
            if status["status"]?.stringValue != "processing" { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the publish job did not end")
        return .null
    }

    @Test(arguments: DemoBackend.all)
    func aZippedShapefileBecomesAServiceRelatedToItsFile(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            let eve = tokens["eve"]!
            let item = try await Self.addFile(
                client, token: eve, owner: "eve", type: "Shapefile", name: "cities.zip", bytes: try await Self.zippedShapefile())
            let answer = try await Self.publish(client, token: eve, owner: "eve", item: item, filetype: "shapefile", name: "Cities")
            let service = try #require(answer["services"]?[0], "\(answer)")
            #expect(service["type"]?.stringValue == "Feature Service")
            #expect(service["serviceurl"]?.stringValue?.hasSuffix("/arcgis/rest/services/Cities/FeatureServer") == true, "\(service)")
            let status = try await Self.finished(client, token: eve, owner: "eve", answer)
            #expect(status["status"]?.stringValue == "completed" && status["progress"]?.int64Value == 100, "\(status)")
            let count = try await post(
                client, "/arcgis/rest/services/Cities/FeatureServer/0/query",
                [("f", "json"), ("token", eve), ("where", "1=1"), ("returnCountOnly", "true")])
            #expect(count["count"]?.int64Value == 243, "\(count)")
            let related = try await post(
                client, "\(Self.portal)/content/items/\(service["serviceItemId"]?.stringValue ?? "")/relatedItems",
                [("f", "json"), ("token", eve), ("relationshipType", "Service2Data")])
            #expect(related["relatedItems"]?[0]?["id"]?.stringValue == item, "\(related)")
            // Another editor cannot follow eve's job.
            let foreign = try await post(
                client, "\(Self.portal)/content/users/ed/items/\(service["serviceItemId"]?.stringValue ?? "")/status",
                [("f", "json"), ("token", tokens["ed"]!), ("jobType", "publish"), ("jobId", service["jobId"]?.stringValue ?? "")])
            #expect(foreign["error"]?["code"]?.int64Value == 404, "\(foreign)")
        }
    }

    /// Refusals before any job: each changes nothing (no service appears).
    @Test func whatCannotBePublishedIsRefusedBeforeTheJob() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let shapefile = try await Self.zippedShapefile()
            let item = try await Self.addFile(client, token: eve, owner: "eve", type: "Shapefile", name: "cities.zip", bytes: shapefile)
            let csv = try await Self.addFile(
                client, token: eve, owner: "eve", type: "CSV", name: "p.csv", bytes: Array("name,longitude,latitude\nA,1,2\n".utf8))
            let notZip = try await Self.addFile(client, token: eve, owner: "eve", type: "Shapefile", name: "x.zip", bytes: Array("nope".utf8))
            var hostile = Array(shapefile)
            // The first entry's name made to climb out of the archive, in the central directory.
            let directoryName = try #require(Self.lastRange(of: Array("cities.shp".utf8), in: hostile))
            hostile.replaceSubrange(directoryName.lowerBound..<directoryName.lowerBound + 3, with: Array("../".utf8))
            let climbing = try await Self.addFile(client, token: eve, owner: "eve", type: "Shapefile", name: "y.zip", bytes: hostile)
            let cases: [(String, String, String, String, String, String)] = [
                ("ed", "eve", item, "shapefile", "Taken", "400"),  // not the owner: a private item is not found
                ("vic", "vic", item, "shapefile", "Viewer", "403"),  // a viewer publishes nothing
                ("eve", "eve", item, "excel", "Excel", "400"),  // a filetype Outpost does not publish
                ("eve", "eve", csv, "shapefile", "Mismatch", "400"),  // the item is not that type
                ("eve", "eve", item, "shapefile", "Demo", "409"),  // the name is taken
                ("eve", "eve", item, "shapefile", "Bad/Name", "400"),  // not a service name
                ("eve", "eve", notZip, "shapefile", "NotZip", "400"),  // not a ZIP archive
                ("eve", "eve", climbing, "shapefile", "Climbing", "400"),  // a name leaves the archive
                ("eve", "eve", "0123456789abcdef0123456789abcdef", "shapefile", "Nothing", "400"),
            ]
            for (user, owner, id, filetype, name, code) in cases {
                let answer = try await Self.publish(client, token: tokens[user]!, owner: owner, item: id, filetype: filetype, name: name)
                #expect(answer["error"]?["code"]?.int64Value.map(String.init) == code, "\(user) \(filetype) \(name): \(answer)")
                #expect(answer["services"] == nil)
            }
            let names = try store.catalog().services.map(\.definition.name)
            #expect(!names.contains { ["Taken", "Viewer", "Excel", "Mismatch", "NotZip", "Climbing", "Nothing"].contains($0) }, "\(names)")
        }
    }

    /// A file that says "CSV" but is GDAL's VRT pointing at another file on the server: only the
    /// CSV driver may open it, so the other file's contents never reach the service.
    @Test func aFileCannotMakeGDALReadAnotherFile() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let secret = TestFolders.file("secret.csv")
            try "name,longitude,latitude\nTOPSECRET,1,2\n".write(toFile: secret, atomically: true, encoding: .utf8)
            let vrt = """
                <OGRVRTDataSource><OGRVRTLayer name="stolen"><SrcDataSource>\(secret)</SrcDataSource><SrcLayer>secret</SrcLayer>\
                </OGRVRTLayer></OGRVRTDataSource>
                """
            let item = try await Self.addFile(client, token: eve, owner: "eve", type: "CSV", name: "points.csv", bytes: Array(vrt.utf8))
            let answer = try await Self.publish(client, token: eve, owner: "eve", item: item, filetype: "csv", name: "Stolen")
            let status = try await Self.finished(client, token: eve, owner: "eve", answer)
            #expect(!status.jsonText.contains(secret), "the server's paths are not shown: \(status)")
            if status["status"]?.stringValue == "completed" {
                let rows = try await post(
                    client, "/arcgis/rest/services/Stolen/FeatureServer/0/query",
                    [("f", "json"), ("token", eve), ("where", "1=1"), ("outFields", "*")])
                #expect(!rows.jsonText.contains("TOPSECRET"), "\(rows)")
            }
            _ = store
        }
    }

    /// A GeoPackage of the cities with `schema` added (a virtual table written into its
    /// `sqlite_master` by hand, as a hostile uploader does), listed in `gpkg_contents` as attributes.
    static func geoPackage(adding name: String, _ schema: String, type: String = "table") async throws -> [UInt8] {
        let path = TestFolders.file("upload.gpkg")
        let made = try await ExternalTool.run(
            "/usr/bin/ogr2ogr", ["-f", "GPKG", path, TestFolders.testdata + "/naturalearth_cities.geojson"], mergingErrors: true)
        #expect(made.exitCode == 0, "\(made.text)")
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            if schema.hasPrefix("CREATE VIRTUAL") {
                // A module this SQLite lacks (SpatiaLite's): written into the schema as such a file holds it.
                try db.execute(sql: "PRAGMA writable_schema = ON")
                try db.execute(
                    sql: "INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES (?, ?, ?, 0, ?)",
                    arguments: [type, name, name, schema])
            } else {
                try db.execute(sql: schema)
            }
            try db.execute(sql: "INSERT INTO gpkg_contents(table_name, data_type, identifier) VALUES (?, 'attributes', ?)", arguments: [name, name])
        }
        try queue.close()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The same GeoPackage handed in as CSV, GeoJSON or KML under any name: GDAL's GPKG driver
    /// would take it by its header and SpatiaLite would read the other file; refused before GDAL.
    /// A zipped "Shapefile" of one file (GDAL would open that file by any driver) too.
    @Test func aGeoPackageCannotPassAsAnotherKindOfFile() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let secret = TestFolders.file("secret.txt")
            try "TOPSECRET:x:0:0\n".write(toFile: secret, atomically: true, encoding: .utf8)
            let bytes = try await Self.geoPackage(
                adding: "vt", "CREATE VIRTUAL TABLE vt USING VirtualText('\(secret)', 'UTF-8', 0, POINT, NONE, ':')")
            for (type, filetype, name) in [("CSV", "csv", "leak.txt"), ("GeoJson", "geojson", "leak.geojson"), ("KML", "kml", "leak.kml")] {
                let item = try await Self.addFile(client, token: eve, owner: "eve", type: type, name: name, bytes: bytes)
                let answer = try await Self.publish(client, token: eve, owner: "eve", item: item, filetype: filetype, name: "Leak_\(filetype)")
                #expect(answer["error"]?["code"]?.int64Value == 400 && "\(answer)".contains("SQLite database"), "\(filetype): \(answer)")
            }
            let folder = TestFolders.make("one-file")
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/leak.shp"))
            let zip = try Self.zip(folder: folder, names: ["leak.shp"])
            let item = try await Self.addFile(client, token: eve, owner: "eve", type: "Shapefile", name: "leak.zip", bytes: zip)
            let answer = try await Self.publish(client, token: eve, owner: "eve", item: item, filetype: "shapefile", name: "Leak_zip")
            #expect(answer["error"]?["code"]?.int64Value == 400, "\(answer)")
            #expect(try !store.catalog().services.contains { $0.definition.name.hasPrefix("Leak") })
        }
    }

    /// SpatiaLite's virtual tables read other files (GDAL's GPKG driver loads SpatiaLite): a
    /// GeoPackage holding one, or a view, is refused before GDAL opens it.
    @Test func aGeoPackageCannotMakeSpatiaLiteReadAnotherFile() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let secret = TestFolders.file("secret.txt")
            try "TOPSECRET:x:0:0\n".write(toFile: secret, atomically: true, encoding: .utf8)
            let hostile = [
                ("vt", "CREATE VIRTUAL TABLE vt USING VirtualText('\(secret)', 'UTF-8', 0, POINT, NONE, ':')", "table"),
                ("leak", "CREATE VIEW leak AS SELECT 1 AS fid", "view"),
            ]
            for (name, schema, type) in hostile {
                let bytes = try await Self.geoPackage(adding: name, schema, type: type)
                let item = try await Self.addFile(client, token: eve, owner: "eve", type: "GeoPackage", name: "\(name).gpkg", bytes: bytes)
                let answer = try await Self.publish(client, token: eve, owner: "eve", item: item, filetype: "geoPackage", name: "Hostile_\(name)")
                #expect(answer["error"]?["code"]?.int64Value == 400, "\(name): \(answer)")
                #expect(!answer.jsonText.contains("TOPSECRET"))
            }
            #expect(try !store.catalog().services.contains { $0.definition.name.hasPrefix("Hostile") })
            // A GeoPackage as GDAL writes one (its R-tree a virtual table) with an attribute table publishes.
            let plain = try await Self.addFile(
                client, token: eve, owner: "eve", type: "GeoPackage", name: "plain.gpkg",
                bytes: try await Self.geoPackage(adding: "notes", "CREATE TABLE notes(fid INTEGER PRIMARY KEY, note TEXT)"))
            let published = try await Self.publish(client, token: eve, owner: "eve", item: plain, filetype: "geoPackage", name: "Plain")
            let status = try await Self.finished(client, token: eve, owner: "eve", published)
            #expect(status["status"]?.stringValue == "completed", "\(status)")
        }
    }

    @Test func anAnonymousCallerFollowsNoJobUnderTokenSecurity() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let eve = tokens["eve"]!
            let item = try await Self.addFile(
                client, token: eve, owner: "eve", type: "GeoJson", name: "a.geojson",
                bytes: Array(
                    #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}}]}"#
                        .utf8))
            let answer = try await Self.publish(client, token: eve, owner: "eve", item: item, filetype: "geojson", name: "Followed")
            let service = try #require(answer["services"]?[0], "\(answer)")
            let path = "\(Self.portal)/content/users/eve/items/\(service["serviceItemId"]?.stringValue ?? "")/status"
            let anonymous = try await post(client, path, [("f", "json"), ("jobType", "publish"), ("jobId", service["jobId"]?.stringValue ?? "")])
            #expect(anonymous["status"] == nil && anonymous["error"] != nil, "\(anonymous)")
            _ = try await Self.finished(client, token: eve, owner: "eve", answer)
        }
    }

    static func lastRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        for start in stride(from: haystack.count - needle.count, through: 0, by: -1) where Array(haystack[start..<start + needle.count]) == needle {
            return start..<start + needle.count
        }
        return nil
    }
}
