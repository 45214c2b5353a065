import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostWire
import Testing

@testable import OutpostServer

/// "Make a web map" (`webmap.html`, docs/home.md): chosen layers and a basemap saved through
/// `addItem`, ready for offline use (a map area can be made of it), refused to a viewer.
@Suite struct HomeWebMapTests {
    static let portal = "/arcgis/sharing/rest"

    @Test(arguments: DemoBackend.all)
    func aWebMapOfTwoLayersAndABasemapIsReadyForOfflineUse(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            var eve = HomeBrowser(client)
            _ = try await eve.signIn("eve")
            let form = try await eve.open("webmap.html")
            #expect(form.text.contains("id=\"webmap-form\"") && form.text.contains("/arcgis/rest/services/Demo/FeatureServer/2|"), "\(form)")
            let basemap = try #require(HomeBrowser.Page.firstMatch(#"<option value="([^"]*MapServer[^"]*)""#, in: form.text), "\(form)")
            let saved = try await eve.submit(
                "createWebMap",
                [
                    ("title", "Trees and parcels"), ("tags", "field"), ("layer-1", "/arcgis/rest/services/Demo/FeatureServer/2|Trees"),
                    ("layer-2", "/arcgis/rest/services/Parcels/FeatureServer/0|Parcels"),
                    ("basemap", basemap.replacingOccurrences(of: "&amp;", with: "&")),
                    ("offline", "true"),
                ])
            #expect(saved.visibleText.contains("Web map saved.") && saved.visibleText.contains("Trees and parcels"), "\(saved)")
            let id = try #require(HomeBrowser.Page.firstMatch(#"name="map" value="([0-9a-f]{32})""#, in: saved.text), "\(saved)")
            let data = try await post(client, "\(Self.portal)/content/items/\(id)/data", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(data["operationalLayers"]?.arrayValue?.count == 2, "\(data)")
            #expect(data["baseMap"]?["baseMapLayers"]?[0]?["url"]?.stringValue?.hasSuffix("MapServer") == true, "\(data)")
            #expect(data["applicationProperties"]?["offline"] != nil)
            // Saved with a thumbnail the server drew of the layers, and their extent.
            let item = try await post(client, "\(Self.portal)/content/items/\(id)", [("f", "json"), ("token", tokens["eve"]!)])
            let thumbnail = try #require(item["thumbnail"]?.stringValue, "\(item)")
            #expect(item["extent"]?[0]?[0]?.doubleValue.map { $0 > -180 } == true, "not the whole world: \(item)")
            let picture = try await client.execute(
                uri: "\(Self.portal)/content/items/\(id)/info/\(thumbnail)?token=\(tokens["eve"]!)", method: .get
            ) { Array($0.body.readableBytesView) }
            #expect(Array(picture.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] && picture.count > 80_000, "\(picture.count) bytes")
            // Offline-ready as the packager reads it: a map area is made of it.
            let area = try await eve.submit("createMapArea", [("map", id), ("title", "Centre"), ("extent", "13.3, 52.4, 13.5, 52.6")])
            #expect(area.visibleText.contains("Map area 'Centre' created"), "\(area)")
        }
    }

    @Test func aViewerGetsNoFormAndAHandPostMakesNothing() async throws {
        try await OAuthFlows.with { client, _, tokens in
            var viewer = HomeBrowser(client)
            _ = try await viewer.signIn("vic")
            let page = try await viewer.open("webmap.html")
            #expect(!page.text.contains("webmap-form") && page.visibleText.contains("does not create content"), "\(page)")
            let refused = try await viewer.submit(
                "createWebMap", [("title", "Sneaky"), ("layer-1", "/arcgis/rest/services/Demo/FeatureServer/2|Trees")])
            #expect(refused.text.contains("class=\"flash failed\""), "\(refused)")
            let found = try await post(client, "\(Self.portal)/search", [("f", "json"), ("token", tokens["ada"]!), ("q", "title:Sneaky")])
            #expect(found["total"]?.int64Value == 0, "\(found)")
            var editor = HomeBrowser(client)
            _ = try await editor.signIn("eve")
            _ = try await editor.open("webmap.html")
            let foreign = try await editor.submit("createWebMap", [("title", "Elsewhere"), ("layer-1", "https://evil.example/FeatureServer/0|X")])
            #expect(foreign.visibleText.contains("Choose at least one layer"), "\(foreign)")
        }
    }
}
