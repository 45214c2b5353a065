import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// Services in folders (`services/<folder>/<name>/FeatureServer`, ArcGIS Server's one level of
/// folders): listed by folder, and every resource reached through the folder's path.
@Suite struct FolderRoutesTests {
    static let folderService = "/arcgis/rest/services/Field/Cities/FeatureServer"

    /// The demo services plus the cities twice: in the folder Field and at the root.
    func withFolderApp(_ body: @Sendable (any TestClientProtocol, SpatiaLiteBackend) async throws -> Void) async throws {
        try await withFreshDemoApp { client, store in
            let cities = TestFolders.testdata + "/naturalearth_cities.geojson"
            var options = FeatureImportOptions(serviceName: "Field/Cities", layerName: "Cities")
            options.hasAttachments = true
            _ = try await FeatureImporter(store: store).importFile(at: cities, options: options)
            _ = try await FeatureImporter(store: store).importFile(
                at: cities, options: FeatureImportOptions(serviceName: "Cities", layerName: "Cities"))
            try await body(client, store)
        }
    }

    @Test func theRootListsFoldersAndAFolderListsItsServicesByFullName() async throws {
        try await withFolderApp { client, _ in
            let root = try await get(client, "/arcgis/rest/services?f=json")
            #expect(root["folders"] == ["Field"])
            #expect(
                root["services"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                    "Cities", "Demo", "Parcels", "DemoBasemap", "DemoVectorBasemap", "DemoPlaces",
                ])
            let folder = try await get(client, "/arcgis/rest/services/Field?f=json")
            #expect(folder["services"] == [["name": "Field/Cities", "type": "FeatureServer"]])
            #expect(folder["folders"] == [])
            // Folder names match case-insensitively, as service names do.
            #expect(try await get(client, "/arcgis/rest/services/field?f=json")["services"] == folder["services"])
            for missing in ["Nowhere", "Demo"] {
                let answer = try await get(client, "/arcgis/rest/services/\(missing)?f=json")
                #expect(answer["error"]?["code"] == 404 && answer["error"]?["message"] == "Folder not found.", "\(missing)")
            }
            let unknown = try await get(client, "/arcgis/rest/services/Field/Nothing/FeatureServer?f=json")
            #expect(unknown["error"]?["code"] == 404)
        }
    }

    @Test func aServiceInAFolderAnswersEveryOperationThroughTheFolderPath() async throws {
        try await withFolderApp { client, store in
            let service = Self.folderService
            #expect(try await get(client, "\(service)?f=json")["layers"]?[0]?["name"] == "Cities")
            #expect(try await get(client, "\(service)/0?f=json")["hasAttachments"] == true)
            #expect(try await get(client, "\(service)/0/query?where=1%3D1&returnCountOnly=true&f=json")["count"] == 243)

            let added = try await post(
                client, "\(service)/0/applyEdits",
                [
                    ("f", "json"), ("adds", #"[{"attributes":{"name":"Base camp"},"geometry":{"x":7.5,"y":46.5}}]"#),
                ])
            let oid = try #require(added["addResults"]?[0]?["objectId"]?.int64Value)
            #expect(try store.features.count(service: "Field/Cities", layer: 0) == 244)
            #expect(try store.features.count(service: "Cities", layer: 0) == 243, "the root service of the same name is another service")
            let feature = try await get(client, "\(service)/0/\(oid)?f=json")
            #expect(feature["feature"]?["attributes"]?["name"] == "Base camp")

            // A replica file by URL: the URL names the folder and serves a whole GeoPackage.
            let replica = try await post(
                client, "\(service)/createReplica",
                [
                    ("f", "json"), ("replicaName", "field-crew"), ("layers", "0"), ("syncModel", "perLayer"),
                    ("transportType", "esriTransportTypeUrl"), ("dataFormat", "sqlite"), ("returnAttachments", "true"),
                    ("attachmentsSyncDirection", "bidirectional"),
                ])
            let fileURL = try #require(replica["URL"]?.stringValue)
            #expect(path(of: fileURL).hasPrefix("/arcgis/rest/services/Field/Cities/replicafiles/"))
            let file = try await downloadFile(client, fileURL)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(16) == Data("SQLite format 3\0".utf8))
            let id = try #require(replica["replicaID"]?.stringValue)
            let generation = try #require(replica["layerServerGens"]?[0]?["serverGen"]?.int64Value)

            let synced = try await post(
                client, "\(service)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", id), ("syncLayers", #"[{"id":0,"serverGen":\#(generation),"syncDirection":"bidirectional"}]"#),
                    (
                        "edits",
                        #"[{"id":0,"features":{"adds":[{"attributes":{"name":"Hut","GlobalID":"{5C3B3A0E-2F57-4C8B-9E51-3B1F1D8E2A11}"},"geometry":{"x":8,"y":46}}]}}]"#
                    ),
                    ("transportType", "esriTransportTypeEmbedded"),
                ])
            #expect(synced["error"] == nil, "\(synced)")
            #expect(try store.features.count(service: "Field/Cities", layer: 0) == 245)
            let replicas = try await get(client, "\(service)/replicas?f=json")
            #expect(replicas.arrayValue?.compactMap { $0["replicaID"]?.stringValue } == [id])
            #expect(try await get(client, "\(service)/replicas/\(id)?f=json")["replicaName"] == "field-crew")
            #expect(try await get(client, "/arcgis/rest/services/Cities/FeatureServer/replicas?f=json") == [])

            // An asynchronous job's status URL names the folder too.
            let job = try await post(
                client, "\(service)/createReplica",
                [
                    ("f", "json"), ("replicaName", "async-crew"), ("layers", "0"), ("syncModel", "perLayer"), ("async", "true"),
                    ("transportType", "esriTransportTypeUrl"), ("dataFormat", "sqlite"),
                ])
            let status = try #require(job["statusUrl"]?.stringValue)
            #expect(path(of: status).hasPrefix("\(service)/jobs/"))
            var finished = JSONValue.null
            for _ in 0..<200 {
                finished = try await get(client, "\(path(of: status))?f=json")
                if finished["status"] != "Pending", finished["status"] != "InProgress", finished["status"] != "ExportingData" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(finished["status"] == "Completed", "\(finished)")

            #expect(try await post(client, "\(service)/unRegisterReplica", [("f", "json"), ("replicaID", id)])["success"] == true)
            #expect(try store.replicas.replicas(service: "Field/Cities").count == 1)
        }
    }

    @Test func theHTMLDirectoryLinksFoldersAndShowsThemInBreadcrumbs() async throws {
        try await withFolderApp { client, _ in
            try await client.execute(uri: "/arcgis/rest/services?f=html", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains(#"<a href="/arcgis/rest/services/Field?f=html">Field</a>"#))
                #expect(!page.contains("Field/Cities"))
            }
            try await client.execute(uri: "/arcgis/rest/services/Field?f=html", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains(#"<a href="/arcgis/rest/services/Field/Cities/FeatureServer?f=html">Field/Cities (FeatureServer)</a>"#))
                #expect(page.contains(#"<nav class="breadcrumbs"><a href="/arcgis/rest/services?f=html">Home</a> &gt; Field</nav>"#))
            }
            try await client.execute(uri: "\(Self.folderService)/0?f=html", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(
                    page.contains(
                        #"<nav class="breadcrumbs"><a href="/arcgis/rest/services?f=html">Home</a> &gt; <a href="/arcgis/rest/services/Field?f=html">Field</a> &gt; <a href="/arcgis/rest/services/Field/Cities/FeatureServer?f=html">Cities (FeatureServer)</a> &gt; 0</nav>"#
                    ))
                #expect(page.contains(#"<a href="/arcgis/rest/services/Field/Cities/FeatureServer/0/query?f=html">query</a>"#))
            }
        }
    }
}
