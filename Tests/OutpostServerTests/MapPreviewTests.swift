import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Map previews (docs/tiles.md, "Map preview"): what each page is told to draw, its content
/// security policy, and the files served for it. Drawn in a real browser by test_browser.py.
@Suite struct MapPreviewTests {
    /// The page's embedded configuration.
    static func config(_ client: any TestClientProtocol, _ uri: String) async throws -> (JSONValue, HTTPFields) {
        try await client.execute(uri: uri, method: .get) { response in
            let html = String(buffer: response.body)
            #expect(response.status == .ok && response.headers[.contentType] == "text/html; charset=utf-8", "\(uri): \(html.prefix(300))")
            let start = try #require(html.range(of: #"<script id="preview-config" type="application/json">"#))
            let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
            return (try JSONParser.parse(String(html[start.upperBound..<end.lowerBound])), response.headers)
        }
    }

    @Test func eachServicesPreviewDrawsWhatTheServiceIs() async throws {
        try await withFreshDemoApp { client, _ in
            let (raster, headers) = try await Self.config(client, "/arcgis/rest/services/DemoBasemap/MapServer?f=jsapi")
            #expect(raster["rasterTiles"] == ["/arcgis/rest/services/DemoBasemap/MapServer"] && raster["featureLayers"] == [])
            #expect(raster["maxZoom"] == 5 && raster["extent"]?.arrayValue?.count == 4)
            #expect(headers[.contentSecurityPolicy] == MapPreview.contentSecurityPolicy, "scripts from this server only")
            let (vector, _) = try await Self.config(client, "/arcgis/rest/services/DemoVectorBasemap/VectorTileServer?f=jsapi")
            #expect(vector["vectorTiles"] == ["/arcgis/rest/services/DemoVectorBasemap/VectorTileServer"])
            let (layer, _) = try await Self.config(client, "/arcgis/rest/services/Demo/FeatureServer/0?f=jsapi&token=abc%3C%2Fscript%3E")
            #expect(layer["featureLayers"] == ["/arcgis/rest/services/Demo/FeatureServer/0"] && layer["token"] == "abc</script>")
            // Not a map: the operation's own answer (here, its refusal of the format); an unknown service: its error.
            let query = try await get(client, "/arcgis/rest/services/Demo/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=jsapi")
            #expect(query["error"]?["code"] == 400)
            #expect(try await get(client, "/arcgis/rest/services/Nowhere/MapServer?f=jsapi")["error"]?["code"] == 404)
        }
    }

    @Test func theWebMapViewerDrawsTheMapsBasemapAndOperationalLayers() async throws {
        try await withFreshDemoApp { client, _ in
            let (map, _) = try await Self.config(client, "/arcgis/home/webmap/viewer.html?webmap=de3000000000000000000000000000a1")
            #expect(map["rasterTiles"]?.arrayValue?.count == 1 && map["rasterTiles"]?[0]?.stringValue?.hasSuffix("/DemoBasemap/MapServer") == true)
            #expect(map["featureLayers"]?.arrayValue?.count == 4, "\(map)")
            let item = try await client.execute(uri: "/arcgis/sharing/rest/content/items/de3000000000000000000000000000a1?f=html", method: .get) {
                String(buffer: $0.body)
            }
            #expect(item.contains("/arcgis/home/webmap/viewer.html?webmap=de3000000000000000000000000000a1"), "the item's page links its viewer")
            let notAMap = try await get(client, "/arcgis/home/webmap/viewer.html?webmap=nothere&f=json")
            #expect(notAMap["error"]?["message"] == "Item does not exist or is inaccessible.", "as the portal answers for any item")
            let service = try await get(client, "/arcgis/sharing/rest/search?q=type%3A%22Map%20Service%22&f=json")["results"]?[0]?["id"]?.stringValue
            let notAWebMap = try await get(client, "/arcgis/home/webmap/viewer.html?webmap=\(try #require(service))&f=json")
            #expect(notAWebMap["error"]?["code"] == 404, "a service item is not a web map")
        }
    }

    @Test func onlyTheScriptAndLeafletsOwnFilesAreServed() async throws {
        try await withFreshDemoApp { client, _ in
            try await client.execute(uri: "/arcgis/rest/static/preview.js", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body).contains("preview-config"))
            }
            for path in ["leaflet/leaflet.js.map", "leaflet/..%2F..%2F..%2Fetc%2Fpasswd", "leaflet/images/../../leaflet.js.gz"] {
                try await client.execute(uri: "/arcgis/rest/static/\(path)", method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
            let leafletInstalled = FileManager.default.fileExists(atPath: MapPreview.leafletDirectory + "/leaflet.js")
            try await client.execute(uri: "/arcgis/rest/static/leaflet/leaflet.js", method: .get) { response in
                #expect(response.status == (leafletInstalled ? .ok : .notFound))
            }
        }
    }
}
