import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Registered apps: `registerApp` by the `Application` item's owner only, `apps/<client_id>`
/// to the owner and administrators, their redirects, `client_credentials`, and the app going
/// with its item.
extension OAuthRoutesTests {
    @Test(arguments: DemoBackend.all)
    func onlyTheItemsOwnerRegistersAnAppAndOnlyTheySeeIt(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let item = try await OAuthFlows.applicationItem(client, token: tokens["eve"]!)
            // Another editor: the private item is missing to them; shared, it is not theirs.
            let hidden = try await OAuthFlows.register(client, token: tokens["ed"]!, item: item)
            #expect(hidden["error"]?["code"] == 400 && hidden["client_id"] == nil, "\(hidden)")
            _ = try await post(client, "\(portalURL)/content/items/\(item)/share", [("f", "json"), ("token", tokens["eve"]!), ("org", "true")])
            let forbidden = try await OAuthFlows.register(client, token: tokens["ed"]!, item: item)
            #expect(forbidden["error"]?["code"] == 403, "\(forbidden)")
            let viewer = try await OAuthFlows.register(client, token: tokens["vic"]!, item: item)
            #expect(viewer["error"]?["code"] == 403, "\(viewer)")
            #expect(try store.oauth.app(itemId: item) == nil, "nothing registered")
            // Not an Application, or not a redirect a browser may be sent to.
            let webMap = try await post(
                client, "\(portalURL)/content/users/eve/addItem", [("f", "json"), ("token", tokens["eve"]!), ("type", "Web Map"), ("title", "m")])
            let wrongType = try await OAuthFlows.register(client, token: tokens["eve"]!, item: webMap["id"]?.stringValue ?? "")
            #expect(wrongType["error"]?["code"] == 400, "\(wrongType)")
            for bad in ["javascript:alert(1)", "http://app.example/callback", "https://app.example/cb#x"] {
                let refused = try await OAuthFlows.register(client, token: tokens["eve"]!, item: item, redirects: [bad])
                #expect(refused["error"]?["code"] == 400, "\(bad): \(refused)")
            }

            let registered = try await OAuthFlows.register(client, token: tokens["eve"]!, item: item)
            let clientId = try #require(registered["client_id"]?.stringValue, "\(registered)")
            #expect(clientId.count == 16 && clientId.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
            #expect(registered["client_secret"]?.stringValue?.count == 64 && registered["redirect_uris"]?[0] == "https://app.example/callback")
            let again = try await OAuthFlows.register(client, token: tokens["eve"]!, item: item)
            #expect(again["error"]?["code"] == 400, "registered once: \(again)")

            for (who, sees) in [("eve", true), ("ada", true), ("ed", false), ("vic", false)] {
                let answer = try await get(client, "/arcgis/sharing/rest/oauth2/apps/\(clientId)?f=json&token=\(tokens[who]!)")
                #expect((answer["client_id"]?.stringValue == clientId) == sees, "\(who): \(answer)")
                #expect(answer["client_secret"] == nil && (sees || answer["error"]?["message"] == "Invalid client_id"), "\(who): \(answer)")
            }
            #expect(try await get(client, "/sharing/oauth2/apps/\(clientId)?f=json")["client_id"] == nil, "anonymous")

            // Its sign-in goes only to its registered address (or out of band).
            var browser = OAuthBrowser(client)
            let page = try await browser.open([("response_type", "code"), ("client_id", clientId), ("redirect_uri", "https://app.example/callback")])
            #expect(page.status == 200 && page.oAuthInfo?["appTitle"] == "Field notes", "\(page)")
            #expect(page.headers[.contentSecurityPolicy]?.contains("form-action 'self' https://app.example;") == true, "\(page.headers)")
            let signedIn = try await browser.signIn(
                state: try #require(page.oAuthInfo?["oauth_state"]?.stringValue), user: "ed", password: "ed-password")
            #expect(signedIn.location?.hasPrefix("https://app.example/callback?code=") == true, "\(signedIn)")
            let elsewhere = try await browser.open([("response_type", "code"), ("client_id", clientId), ("redirect_uri", "https://localhost")])
            #expect(elsewhere.status == 400 && elsewhere.text.contains("Invalid redirect_uri"), "\(elsewhere)")

            // Deleting the item removes the app.
            let deleted = try await post(client, "\(portalURL)/content/users/eve/items/\(item)/delete", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(deleted["success"] == true, "\(deleted)")
            #expect(try store.oauth.app(clientId: clientId) == nil)
            let gone = try await browser.open([("response_type", "code"), ("client_id", clientId), ("redirect_uri", "https://app.example/callback")])
            #expect(gone.text.contains("Error: Invalid client_id"), "\(gone)")
        }
    }

    /// `client_credentials`: the app's secret buys a token of its owner's that reads what the
    /// owner reads and edits nothing; a wrong secret, another app's id, or an owner who is no
    /// longer a user buy nothing.
    @Test(arguments: DemoBackend.all)
    func anAppsOwnTokenReadsButNeverEdits(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let item = try await OAuthFlows.applicationItem(client, token: tokens["eve"]!)
            let registered = try await OAuthFlows.register(client, token: tokens["eve"]!, item: item)
            let clientId = try #require(registered["client_id"]?.stringValue, "\(registered)")
            let secret = try #require(registered["client_secret"]?.stringValue)
            let browser = OAuthBrowser(client)
            for (id, wrong) in [(clientId, String(repeating: "0", count: 64)), ("pythonapi", secret), ("ABCDEFGHIJKLMNOP", secret)] {
                let refused = try await browser.exchange([("grant_type", "client_credentials"), ("client_id", id), ("client_secret", wrong)])
                #expect(refused["error"]?["error"] == "invalid_client" && refused["access_token"] == nil, "\(refused)")
            }
            let answer = try await browser.exchange([("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret)])
            let token = try #require(answer["access_token"]?.stringValue, "\(answer)")
            #expect(answer["refresh_token"] == nil && answer["expires_in"] == .int(60 * 60))

            // It reads as eve (her private item too) …
            let own = try await get(client, "\(portalURL)/content/items/\(item)?f=json&token=\(token)")
            #expect(own["id"]?.stringValue == item, "\(own)")
            let query = try await get(client, "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json&token=\(token)")
            #expect(query["count"] != nil, "\(query)")
            // … and edits nothing, features or items.
            let edits = try await OAuthFlows.addsAFeature(client, bearer: token)
            #expect(edits["error"]?["code"] == 403, "\(edits)")
            let update = try await post(
                client, "\(portalURL)/content/users/eve/items/\(item)/update", [("f", "json"), ("token", token), ("title", "taken")])
            #expect(update["error"]?["code"] == 403, "\(update)")

            try store.users.removeUser("eve")
            let orphan = try await browser.exchange([("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret)])
            #expect(orphan["error"]?["error"] == "invalid_client", "\(orphan)")
        }
    }
}
