import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostWire
import Testing

@testable import OutpostServer

/// "My content" (`content.html`, docs/home.md): the user's items with their sharing, folders,
/// sharing and deleting through the portal's own operations, refused to whom the portal refuses.
@Suite struct HomeContentTests {
    static let portal = "/arcgis/sharing/rest"

    static func addItem(_ client: any TestClientProtocol, _ token: String, owner: String, title: String) async throws -> String {
        let added = try await post(
            client, "\(portal)/content/users/\(owner)/addItem",
            [("f", "json"), ("token", token), ("type", "Web Mapping Application"), ("title", title), ("url", "https://example.com")])
        return try #require(added["id"]?.stringValue, "\(added)")
    }

    static func item(_ client: any TestClientProtocol, _ token: String, _ id: String) async throws -> JSONValue {
        try await post(client, "\(portal)/content/items/\(id)", [("f", "json"), ("token", token)])
    }

    @Test(arguments: DemoBackend.all)
    func theListingShowsOnesOwnItemsAndTheirSharing(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            _ = try await Self.addItem(client, tokens["eve"]!, owner: "eve", title: "Eve's notes")
            _ = try await Self.addItem(client, tokens["ed"]!, owner: "ed", title: "Ed's secret")
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("eve")
            let page = try await browser.open("content.html")
            #expect(page.visibleText.contains("Eve's notes") && page.visibleText.contains("Private (owner)"), "\(page)")
            #expect(!page.visibleText.contains("Ed's secret"))
            #expect(page.text.contains("action=\"/arcgis/home/actions/share\""))
        }
    }

    @Test func foldersAreMadeSharingChangedAndItemsDeletedThroughTheForms() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let id = try await Self.addItem(client, tokens["eve"]!, owner: "eve", title: "Field app")
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("eve")
            _ = try await browser.open("content.html")
            let made = try await browser.submit("createFolder", [("title", "Surveys"), ("return", "content.html")])
            #expect(made.visibleText.contains("Folder 'Surveys' created"), "\(made)")
            let content = try await post(client, "\(Self.portal)/content/users/eve", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(content["folders"]?.arrayValue?.contains { $0["title"]?.stringValue == "Surveys" } == true, "\(content)")
            _ = try await browser.submit("share", [("id", id), ("access", "org"), ("return", "content.html")])
            #expect(try await Self.item(client, tokens["eve"]!, id)["access"]?.stringValue == "org")
            let shared = try await browser.submit("share", [("id", id), ("access", "public"), ("return", "content.html")])
            #expect(shared.visibleText.contains("Sharing changed: Everyone"), "\(shared)")
            #expect(try await Self.item(client, tokens["eve"]!, id)["access"]?.stringValue == "public")
            let confirm = try await browser.open("content.html?confirm=delete&id=\(id)")
            #expect(confirm.text.contains("id=\"confirm-delete\"") && confirm.visibleText.contains("Delete 'Field app'"), "\(confirm)")
            let deleted = try await browser.submit("deleteItem", [("id", id), ("return", "content.html")])
            #expect(deleted.visibleText.contains("'Field app' deleted"), "\(deleted)")
            #expect(try await Self.item(client, tokens["eve"]!, id)["error"] != nil, "gone from the portal")
        }
    }

    /// A feature service's item: its confirmation names the devices page; the delete is
    /// refused with the server's reason while a replica is registered, done once it is not.
    @Test func anAdministratorDeletesAFeatureServiceOnceItsDevicesAreUnregistered() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let demo = "/arcgis/rest/services/Demo/FeatureServer"
            let replica = try await post(
                client, "\(demo)/createReplica",
                [
                    ("f", "json"), ("token", tokens["eve"]!), ("replicaName", "tablet"), ("layers", "0"), ("syncModel", "perLayer"),
                    ("transportType", "esriTransportTypeEmbedded"), ("returnAttachments", "false"),
                ])
            let replicaId = try #require(replica["replicaID"]?.stringValue, "\(replica)")
            let id = ServiceItems.id(forService: "Demo")
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("ada")
            let confirm = try await browser.open("content.html?confirm=delete&id=\(id)")
            #expect(confirm.text.contains("href=\"/arcgis/home/devices.html?service=Demo\""), "\(confirm)")
            let refused = try await browser.submit("deleteItem", [("id", id), ("return", "content.html")])
            #expect(refused.visibleText.contains("1 replica(s) are registered"), "\(refused)")
            #expect(try store.schema.catalog().service(named: "Demo") != nil)
            _ = try await post(client, "\(demo)/unRegisterReplica", [("f", "json"), ("token", tokens["ada"]!), ("replicaID", replicaId)])
            let deleted = try await browser.submit("deleteItem", [("id", id), ("return", "content.html")])
            #expect(deleted.visibleText.contains("'Demo' deleted"), "\(deleted)")
            #expect(try store.schema.catalog().service(named: "Demo") == nil)
        }
    }

    @Test(arguments: DemoBackend.all)
    func aViewerSeesNoControlsAndTheFormsPostedByHandChangeNothing(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            let id = try await Self.addItem(client, tokens["eve"]!, owner: "eve", title: "Eve's map")
            _ = try await post(client, "\(Self.portal)/content/items/\(id)/share", [("f", "json"), ("token", tokens["eve"]!), ("org", "true")])
            var viewer = HomeBrowser(client)
            _ = try await viewer.signIn("vic")
            let page = try await viewer.open("content.html")
            #expect(!page.text.contains("actions/share") && !page.text.contains("actions/createFolder"), "\(page)")
            let refused = try await viewer.submit("deleteItem", [("id", id), ("return", "content.html")])
            #expect(refused.text.contains("role=\"alert\""), "\(refused)")
            let shared = try await viewer.submit("share", [("id", id), ("access", "public"), ("return", "content.html")])
            #expect(shared.text.contains("class=\"flash failed\""), "\(shared)")
            var editor = HomeBrowser(client)
            _ = try await editor.signIn("ed")
            _ = try await editor.open("content.html")
            let other = try await editor.submit("deleteItem", [("id", id), ("return", "content.html")])
            #expect(other.text.contains("class=\"flash failed\""), "\(other)")
            let item = try await Self.item(client, tokens["eve"]!, id)
            #expect(item["title"]?.stringValue == "Eve's map" && item["access"]?.stringValue == "org", "unchanged: \(item)")
        }
    }

    @Test func aLongListingIsPaged() async throws {
        try await OAuthFlows.with { client, _, tokens in
            for n in 0..<105 { _ = try await Self.addItem(client, tokens["eve"]!, owner: "eve", title: "Item \(n)") }
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("eve")
            let first = try await browser.open("content.html")
            #expect(first.visibleText.contains("Items 1–100 of 105"), "\(first)")
            #expect(first.text.contains("content.html?page=2\">Next"), "\(first)")
            let second = try await browser.open("content.html?page=2")
            #expect(second.visibleText.contains("Items 101–105 of 105") && second.text.contains(">Previous<"), "\(second)")
        }
    }

    @Test(arguments: DemoBackend.all)
    func theListingSortsThroughThePortalAndAnAdministratorReachesAllItems(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            for title in ["Bravo", "Charlie", "Alpha"] {
                _ = try await Self.addItem(client, tokens["eve"]!, owner: "eve", title: title)
                // Modified times a millisecond apart at least, so "newest first" has one answer.
                try await Task.sleep(for: .milliseconds(3))
            }
            _ = try await Self.addItem(client, tokens["ed"]!, owner: "ed", title: "Delta of Ed")
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("eve")
            let byTitle = try await browser.open("content.html?sort=title").visibleText
            let alpha = try #require(byTitle.range(of: "Alpha"))
            let bravo = try #require(byTitle.range(of: "Bravo"))
            let charlie = try #require(byTitle.range(of: "Charlie"))
            #expect(alpha.lowerBound < bravo.lowerBound && bravo.lowerBound < charlie.lowerBound, "\(byTitle)")
            let newest = try await browser.open("content.html?sort=modified").visibleText
            #expect(try #require(newest.range(of: "Alpha")).lowerBound < #require(newest.range(of: "Bravo")).lowerBound, "\(newest)")
            let refused = try await post(
                client, "\(Self.portal)/content/users/eve", [("f", "json"), ("token", tokens["eve"]!), ("sortField", "colour")])
            #expect(refused["error"]?["code"]?.int64Value == 400, "\(refused)")
            #expect(!(try await browser.open("content.html").text.contains("id=\"all-items\"")), "only an administrator")
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            #expect(try await admin.open("content.html").text.contains("id=\"all-items\""))
            let all = try await admin.open("content.html?view=all")
            #expect(all.visibleText.contains("Delta of Ed") && all.visibleText.contains("Alpha"), "\(all)")
        }
    }
}
