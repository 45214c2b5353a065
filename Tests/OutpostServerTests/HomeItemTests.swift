import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostWire
import Testing

@testable import OutpostServer

/// The item page (`item.html`, docs/home.md): an item's details edited by its owner through the
/// portal's `update`, a feature service's layers with fields and domains, a web map's layers and
/// its map areas made, refreshed and deleted through the OfflinePackaging service.
@Suite struct HomeItemTests {
    static let portal = "/arcgis/sharing/rest"

    @Test(arguments: DemoBackend.all)
    func theOwnerEditsTheDetailsAndOthersCannot(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            let id = try await HomeContentTests.addItem(client, tokens["eve"]!, owner: "eve", title: "Survey app")
            _ = try await post(client, "\(Self.portal)/content/items/\(id)/share", [("f", "json"), ("token", tokens["eve"]!), ("org", "true")])
            var owner = HomeBrowser(client)
            _ = try await owner.signIn("eve")
            let page = try await owner.open("item.html?id=\(id)")
            #expect(page.text.contains("id=\"item-form\"") && page.visibleText.contains("Owner eve"), "\(page)")
            let saved = try await owner.submit(
                "updateItem", [("id", id), ("title", "Survey app 2"), ("description", "<script>alert(1)</script>"), ("tags", "a, b")])
            #expect(saved.visibleText.contains("Saved."), "\(saved)")
            #expect(!saved.text.contains("<script>alert(1)"), "a description is shown as text")
            #expect(saved.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            let item = try await HomeContentTests.item(client, tokens["eve"]!, id)
            #expect(item["title"]?.stringValue == "Survey app 2" && item["tags"]?.arrayValue?.count == 2, "\(item)")
            for user in ["vic", "ed"] {
                var other = HomeBrowser(client)
                _ = try await other.signIn(user)
                let seen = try await other.open("item.html?id=\(id)")
                #expect(seen.visibleText.contains("Survey app 2") && !seen.text.contains("item-form"), "\(user): \(seen)")
                let refused = try await other.submit("updateItem", [("id", id), ("title", "Taken over")])
                #expect(refused.text.contains("class=\"flash failed\""), "\(user): \(refused)")
            }
            let after = try await HomeContentTests.item(client, tokens["eve"]!, id)
            #expect(after["title"]?.stringValue == "Survey app 2", "unchanged by others: \(after)")
        }
    }

    @Test func theOwnerGivesTheItemAThumbnailAndTheImageIsChecked() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let id = try await HomeContentTests.addItem(client, tokens["eve"]!, owner: "eve", title: "Survey app")
            var owner = HomeBrowser(client)
            _ = try await owner.signIn("eve")
            let page = try await owner.open("item.html?id=\(id)")
            #expect(page.text.contains("id=\"item-thumbnail\"") && page.text.contains("enctype=\"multipart/form-data\""), "\(page)")
            var picture = PNGImage(width: 4, height: 3, background: .init(1, 2, 3))
            picture.set(0, 0, .init(200, 0, 0))
            let saved = try await owner.submitMultipart(
                "updateItem", [("id", id), ("title", "Survey app")], files: [("thumbnail", "survey.png", "image/png", picture.bytes)])
            #expect(saved.visibleText.contains("Saved."), "\(saved)")
            let item = try await HomeContentTests.item(client, tokens["eve"]!, id)
            #expect(item["thumbnail"]?.stringValue == "thumbnail/survey.png", "\(item)")
            let served = try await client.execute(
                uri: "\(Self.portal)/content/items/\(id)/info/thumbnail/survey.png?token=\(tokens["eve"]!)", method: .get
            ) { Array($0.body.readableBytesView) }
            #expect(served == picture.bytes)
            // The page shows it through the home, as the signed-in owner (the REST API reads no cookie).
            let shown = try await owner.open("item.html?id=\(id)")
            let source = try #require(HomeBrowser.Page.firstMatch(#"<img class="thumb large"[^>]*src="([^"]+)""#, in: shown.text), "\(shown)")
            let image = try await owner.open(source.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(image.status == 200 && image.headers[.contentType] == "image/png", "\(image.status) \(image.headers)")
            var stranger = HomeBrowser(client)
            _ = try await stranger.signIn("ed")
            let hidden = try await stranger.open(source.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(hidden.headers[.contentType] != "image/png", "a private item's thumbnail to another user: \(hidden.status)")
            // Text named .png is not an image: refused, the thumbnail kept.
            let refused = try await owner.submitMultipart(
                "updateItem", [("id", id), ("title", "Survey app")], files: [("thumbnail", "evil.png", "image/png", Array("<svg/>".utf8))])
            #expect(refused.text.contains("class=\"flash failed\""), "\(refused)")
            #expect(try await HomeContentTests.item(client, tokens["eve"]!, id)["thumbnail"]?.stringValue == "thumbnail/survey.png")
        }
    }

    @Test func anItemOneMayNotSeeShowsNothingOfIt() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let id = try await HomeContentTests.addItem(client, tokens["eve"]!, owner: "eve", title: "Eve's private plan")
            var other = HomeBrowser(client)
            _ = try await other.signIn("ed")
            let page = try await other.open("item.html?id=\(id)")
            #expect(!page.visibleText.contains("Eve's private plan") && page.text.contains("role=\"alert\""), "\(page)")
        }
    }

    @Test func aFeatureServicesLayersAreListedWithFieldsAndDomains() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let found = try await post(
                client, "\(Self.portal)/search", [("f", "json"), ("token", tokens["eve"]!), ("q", "title:Demo AND type:\"Feature Service\"")])
            let id = try #require(found["results"]?.arrayValue?.first(where: { $0["title"]?.stringValue == "Demo" })?["id"]?.stringValue, "\(found)")
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("eve")
            let page = try await browser.open("item.html?id=\(id)")
            #expect(page.visibleText.contains("Fields of Trees"), "\(page)")
            #expect(page.visibleText.contains("YesNo") && page.visibleText.contains("1: Yes"), "the coded values")
            #expect(page.visibleText.contains("TreeHeight (0 to 150)"), "the range")
            #expect(page.text.contains("/arcgis/rest/services/Demo/FeatureServer/0"))
        }
    }

    @Test(arguments: DemoBackend.all)
    func aWebMapsAreasAreMadeRefreshedAndDeletedFromItsPage(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            let map = DemoData.demoMapId
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            let page = try await admin.open("item.html?id=\(map)")
            #expect(page.text.contains("id=\"open-viewer\"") && page.text.contains("id=\"area-form\""), "\(page)")
            let bad = try await admin.submit("createMapArea", [("map", map), ("title", "Nowhere"), ("extent", "1, 2, 0, 3")])
            #expect(bad.visibleText.contains("The extent must be four numbers"), "\(bad)")
            let made = try await admin.submit(
                "createMapArea", [("map", map), ("title", "Centre"), ("extent", "13.3, 52.4, 13.5, 52.6"), ("schedule", "0 0 2 * * ?")])
            #expect(made.visibleText.contains("Map area 'Centre' created"), "\(made)")
            #expect(made.text.contains("id=\"map-areas\"") && made.visibleText.contains("0 0 2 * * ?"), "\(made)")
            let related = try await post(
                client, "\(Self.portal)/content/items/\(map)/relatedItems",
                [("f", "json"), ("token", tokens["ada"]!), ("relationshipTypes", "Map2Area"), ("direction", "forward")])
            let area = try #require(related["relatedItems"]?.arrayValue?.first?["id"]?.stringValue, "\(related)")
            // Refreshed once its packages exist (SetupMapArea runs on after the page answered).
            for _ in 0..<600 {
                let item = try await HomeContentTests.item(client, tokens["ada"]!, area)
                if item["properties"]?["status"]?.stringValue == "complete" { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let refreshed = try await admin.submit("refreshMapArea", [("area", area), ("return", "item.html?id=\(map)")])
            #expect(refreshed.visibleText.contains("being refreshed"), "\(refreshed)")
            let deleted = try await admin.submit("deleteMapArea", [("area", area), ("return", "item.html?id=\(map)")])
            #expect(deleted.visibleText.contains("Map area 'Centre' deleted"), "\(deleted)")
            let gone = try await HomeContentTests.item(client, tokens["ada"]!, area)
            #expect(gone["error"] != nil, "\(gone)")
        }
    }
}
