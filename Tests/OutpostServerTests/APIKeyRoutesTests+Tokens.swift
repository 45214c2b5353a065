import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostIdentity
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// ArcGIS REST JS's `createApiKey`: an `Application` registered `multiple`, the slots' dates set
/// by `updateItem`, `apiToken` slots issued by `oauth2/token` and ended by `revokeToken`.
extension APIKeyRoutesTests {
    @Test(arguments: DemoBackend.all)
    func apiTokenSlotsAreIssuedWithTheSecretOnePerSlotUntilTheirDate(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let item = try await OAuthFlows.applicationItem(client, token: tokens["eve"]!)
            let registered = try await post(
                client, "\(Self.sharing)/oauth2/registerApp",
                [
                    ("f", "json"), ("token", tokens["eve"]!), ("itemId", item), ("appType", "multiple"),
                    ("redirect_uris", #"["urn:ietf:wg:oauth:2.0:oob"]"#),
                    ("httpReferrers", "[]"), ("privileges", "[\"portal:app:access:item:\(Self.demoItem)\"]"),
                ])
            let clientId = try #require(registered["client_id"]?.stringValue, "\(registered)")
            #expect(registered["apiKey"] == nil, "apiToken apps get no apiKey at registration")
            // REST JS reads the secret back from registeredAppInfo.
            let info = try await Self.appInfo(client, item: item, token: tokens["eve"]!)
            let secret = try #require(info["client_secret"]?.stringValue, "\(info)")
            #expect(secret == registered["client_secret"]?.stringValue)

            // updateItem's dates: past or beyond a year is 400, nothing changed.
            let now = store.clock.milliseconds()
            let update = "\(portalURL)/content/users/eve/items/\(item)/update"
            for bad in [now - 60_000, now + APIKeyToken.maximumLifetime + 3_600_000] {
                let refused = try await post(
                    client, update,
                    [
                        ("f", "json"), ("token", tokens["eve"]!), ("title", "changed"), ("apiToken1ExpirationDate", "-1"),
                        ("apiToken2ExpirationDate", String(bad)),
                    ])
                #expect(refused["error"]?["code"] == 400, "\(refused)")
            }
            #expect(
                try store.oauth.app(clientId: clientId)?.apiTokenExpirations == [nil, nil] && store.portal.item(id: item)?.title == "Field notes")
            let date = now + 7 * 86_400_000
            let set = try await post(client, update, [("f", "json"), ("token", tokens["eve"]!), ("apiToken1ExpirationDate", String(date))])
            #expect(set["success"] == true, "\(set)")
            #expect(try store.oauth.app(clientId: clientId)?.apiTokenExpirations == [date, nil])

            let browser = OAuthBrowser(client)
            func issue(_ slot: String, secret: String = secret) async throws -> JSONValue {
                try await browser.exchange([
                    ("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret), ("apiToken", slot),
                    ("regenerateApiToken", "true"),
                ])
            }
            #expect(try await issue("1", secret: String(repeating: "0", count: 64))["error"]?["error"] == "invalid_client")
            #expect(try await issue("3")["error"]?["error"] == "invalid_request")
            let first = try await issue("1")
            let one = try #require(first["access_token"]?.stringValue, "\(first)")
            #expect(APIKeyToken.slot(of: one) == 1 && one.hasPrefix("AAPT"))
            let lifetime = try #require(first["expires_in"]?.int64Value)
            #expect(abs(lifetime - 7 * 86_400) < 120, "until the slot's date: \(first)")
            let two = try #require(try await issue("2")["access_token"]?.stringValue)
            #expect(APIKeyToken.slot(of: two) == 2)
            let twoLifetime = try #require(try await issue("2")["expires_in"]?.int64Value)
            #expect(abs(twoLifetime - 365 * 86_400) < 120, "a year without a date")
            #expect(try await Self.isDead(client, two), "slot 2 was issued again: its first token ended")
            let again = try #require(try await issue("1")["access_token"]?.stringValue)
            #expect(try await Self.isDead(client, one))
            #expect(try await !Self.isDead(client, again))
            let active = try await Self.appInfo(client, item: item, token: tokens["eve"]!)
            #expect(
                active["apiToken1Active"] == true && active["apiToken2Active"] == true && active["apiToken1ExpirationDate"] == .int(date), "\(active)"
            )

            // revokeToken with the slot: the secret is required.
            func revoke(_ slot: String, secret: String) async throws -> JSONValue {
                try await post(
                    client, "\(Self.sharing)/oauth2/revokeToken",
                    [("f", "json"), ("client_id", clientId), ("client_secret", secret), ("apiToken", slot)])
            }
            #expect(try await revoke("1", secret: String(repeating: "0", count: 64))["error"]?["error"] == "invalid_client")
            #expect(try await !Self.isDead(client, again))
            #expect(try await revoke("1", secret: secret)["success"] == true)
            #expect(try await Self.isDead(client, again))
            #expect(try await Self.appInfo(client, item: item, token: tokens["eve"]!)["apiToken1Active"] == false)

            // A slot's date that has passed issues nothing.
            try store.oauth.setAPITokenExpiration(clientId: clientId, slot: 2, expires: now - 1000)
            let late = try await issue("2")
            #expect(late["error"]?["code"] == 400 && late["access_token"] == nil, "\(late)")
        }
    }
}
