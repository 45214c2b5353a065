import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Data in from the browser (`content.html`'s upload form, `publishing.html`; docs/home.md): a
/// file added through `addItem` and published through `publish` as the signed-in user, its
/// progress followed through the item's `status`; refused to whom the portal refuses.
@Suite struct HomeUploadTests {
    static let portal = "/arcgis/sharing/rest"

    /// The publishing page once its job has ended (reloaded a bounded number of times).
    static func published(_ browser: inout HomeBrowser, _ first: HomeBrowser.Page) async throws -> HomeBrowser.Page {
        var page = first
        for _ in 0..<600 where page.text.contains("data-state=\"processing\"") {
            try await Task.sleep(for: .milliseconds(50))
            let here = try #require(HomeBrowser.Page.firstMatch(#"id="publish-refresh" href="/arcgis/home/([^"]+)""#, in: page.text), "\(page)")
            page = try await browser.open(here.replacingOccurrences(of: "&amp;", with: "&"))
        }
        return page
    }

    @Test(arguments: DemoBackend.all)
    func anEditorUploadsAZippedShapefileAndSeesItBecomeAService(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            var eve = HomeBrowser(client)
            _ = try await eve.signIn("eve")
            let content = try await eve.open("content.html")
            #expect(content.text.contains("action=\"/arcgis/home/actions/upload\"") && content.text.contains("enctype=\"multipart/form-data\""))
            let zip = try await PublishRoutesTests.zippedShapefile()
            let first = try await eve.submitMultipart(
                "upload", [("filetype", "shapefile"), ("title", "Cities of the world"), ("name", "WorldCities")],
                files: [("file", "cities.zip", "application/zip", zip)])
            #expect(first.text.contains("id=\"publish-status\""), "\(first)")
            let done = try await Self.published(&eve, first)
            #expect(done.visibleText.contains("The service WorldCities is published."), "\(done)")
            #expect(done.text.contains("id=\"published-item\""))
            let count = try await post(
                client, "/arcgis/rest/services/WorldCities/FeatureServer/0/query",
                [("f", "json"), ("token", tokens["eve"]!), ("where", "1=1"), ("returnCountOnly", "true")])
            #expect(count["count"]?.int64Value == 243, "\(count)")
            let mine = try await post(client, "\(Self.portal)/content/users/eve", [("f", "json"), ("token", tokens["eve"]!)])
            let upload = mine["items"]?.arrayValue?.first { $0["title"]?.stringValue == "Cities of the world" }
            #expect(upload?["type"]?.stringValue == "Shapefile" && upload?["size"]?.int64Value == Int64(zip.count), "\(mine)")
        }
    }

    /// MBTiles from the same form: a tile service, and the page links its item.
    @Test func anMBTilesUploadBecomesATileService() async throws {
        try await OAuthFlows.with { client, store, _ in
            var eve = HomeBrowser(client)
            _ = try await eve.signIn("eve")
            let content = try await eve.open("content.html")
            #expect(content.text.contains("<option value=\"mbtiles\">") && content.text.contains(".mbtiles"), "\(content)")
            let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try MBTilesFixtures.make())))
            let first = try await eve.submitMultipart(
                "upload", [("filetype", "mbtiles"), ("title", "Orthophoto"), ("name", "Orthophoto")],
                files: [("file", "ortho.mbtiles", "application/vnd.sqlite3", file)])
            let done = try await Self.published(&eve, first)
            #expect(done.visibleText.contains("The service Orthophoto is published."), "\(done)")
            #expect(try store.tiles.tileSet(named: "Orthophoto")?.kind == .raster)
            let item = try #require(HomeBrowser.Page.firstMatch(#"id="published-item" href="/arcgis/home/([^"]+)""#, in: done.text))
            let itemPage = try await eve.open(item)
            #expect(itemPage.visibleText.contains("Map Service"), "\(itemPage.visibleText.prefix(1_500))")
        }
    }

    @Test func aRefusedPublishLeavesNoItemAndSaysWhy() async throws {
        try await OAuthFlows.with { client, _, tokens in
            var eve = HomeBrowser(client)
            _ = try await eve.signIn("eve")
            _ = try await eve.open("content.html")
            let refused = try await eve.submitMultipart(
                "upload", [("filetype", "shapefile"), ("title", "Again"), ("name", "Demo")],
                files: [("file", "cities.zip", "application/zip", try await PublishRoutesTests.zippedShapefile())])
            #expect(refused.text.contains("class=\"flash failed\"") && refused.visibleText.contains("already exists"), "\(refused)")
            let mine = try await post(client, "\(Self.portal)/content/users/eve", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(mine["items"]?.arrayValue?.contains { $0["title"]?.stringValue == "Again" } == false, "\(mine)")
        }
    }

    @Test func aViewerGetsNoUploadFormAndAHandPostAddsNothing() async throws {
        try await OAuthFlows.with { client, _, tokens in
            var vic = HomeBrowser(client)
            _ = try await vic.signIn("vic")
            let content = try await vic.open("content.html")
            #expect(!content.text.contains("actions/upload"), "\(content)")
            let refused = try await vic.submitMultipart(
                "upload", [("filetype", "geojson"), ("title", "Sneaky upload")],
                files: [("file", "a.geojson", "application/geo+json", Array(#"{"type":"FeatureCollection","features":[]}"#.utf8))])
            #expect(refused.text.contains("class=\"flash failed\""), "\(refused)")
            let found = try await post(client, "\(Self.portal)/search", [("f", "json"), ("token", tokens["ada"]!), ("q", "title:Sneaky")])
            #expect(found["total"]?.int64Value == 0, "\(found)")
            // Another user's job is not theirs to follow.
            let page = try await vic.open("publishing.html?id=0123456789abcdef0123456789abcdef&job=j0123")
            #expect(page.text.contains("role=\"alert\"") && !page.text.contains("publish-progress"), "\(page)")
        }
    }
}
