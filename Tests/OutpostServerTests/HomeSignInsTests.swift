import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostWire
import Testing

@testable import OutpostServer

/// Sign-ins on `user.html` (docs/home.md; docs/identity.md, "Sessions"): one's live sessions,
/// each ended in two steps; an administrator reaches a member's; nobody else ends them.
@Suite struct HomeSignInsTests {
    static let portal = "/arcgis/sharing/rest"

    @Test(arguments: DemoBackend.all)
    func aMemberSeesAndEndsTheirSignInsAndNobodyElseCan(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            var laptop = HomeBrowser(client)
            _ = try await laptop.signIn("eve")
            var phone = HomeBrowser(client)
            _ = try await phone.signIn("eve")
            let page = try await laptop.open("user.html")
            let ids = page.text.ranges(of: #/name="session" value="([^"]+)"/#).count
            #expect(ids == 2 && page.visibleText.contains("the home (this server's pages) (arcgisonline)"), "\(page)")
            // Another editor's hand-posted end of eve's sign-in is refused and ends nothing.
            let family = try #require(store.oauth.sessions(user: "eve").first?.family)
            var ed = HomeBrowser(client)
            _ = try await ed.signIn("ed")
            _ = try await ed.open("user.html")
            let refused = try await ed.submit("endSession", [("user", "eve"), ("session", family)])
            #expect(refused.text.contains("class=\"flash failed\""), "\(refused)")
            #expect(try store.oauth.sessions(user: "eve").count == 2)
            let notTheirs = try await ed.open("user.html?user=eve")
            #expect(!notTheirs.text.contains("name=\"session\""), "\(notTheirs)")
            // The administrator sees eve's and ends the newest (the phone's); the laptop stays signed in.
            var ada = HomeBrowser(client)
            _ = try await ada.signIn("ada")
            let hers = try await ada.open("user.html?user=eve")
            #expect(hers.text.contains("value=\"\(family)\""), "\(hers)")
            let ended = try await ada.submit("endSession", [("user", "eve"), ("session", family)])
            #expect(ended.visibleText.contains("The sign-in ended."), "\(ended)")
            #expect(try store.oauth.sessions(user: "eve").count == 1)
            // Eve ends her last one from her own page: the REST API no longer takes that browser's token.
            let own = try await laptop.open("user.html")
            let last = try #require(HomeBrowser.Page.firstMatch(#"name="session" value="([^"]+)""#, in: own.text), "\(own)")
            _ = try await laptop.submit("endSession", [("user", "eve"), ("session", last)])
            #expect(try store.oauth.sessions(user: "eve").isEmpty)
            let after = try await laptop.open("content.html")
            #expect(!after.visibleText.contains("Items of"), "signed out: \(after.visibleText.prefix(300))")
            _ = tokens
        }
    }
}
