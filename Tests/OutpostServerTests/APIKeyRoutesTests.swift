import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostIdentity
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// API keys as their owners issue and manage them (docs/identity.md, "API keys: issuing"): the
/// ArcGIS API for Python's `apikey` apps and ArcGIS REST JS's `apiToken` slots, on both backends.
@Suite struct APIKeyRoutesTests {
    static let sharing = "/arcgis/sharing/rest"
    static let demoItem = ServiceItems.id(forService: "Demo")

    /// An item of `type` of `owner`'s.
    static func item(_ client: any TestClientProtocol, token: String, owner: String = "eve", type: String = "API Key") async throws -> String {
        let added = try await post(
            client, "\(portalURL)/content/users/\(owner)/addItem", [("f", "json"), ("token", token), ("type", type), ("title", "key")])
        return try #require(added["id"]?.stringValue, "\(added)")
    }

    /// The ArcGIS API for Python's `registerApp` of an `API Key` item.
    static func registerKey(
        _ client: any TestClientProtocol, token: String, item: String, privileges: String = "[\"portal:app:access:item:\(demoItem)\"]",
        referrers: String = #"["https://app.example/*"]"#
    ) async throws -> JSONValue {
        try await post(
            client, "\(sharing)/oauth2/registerApp",
            [
                ("f", "json"), ("token", token), ("itemId", item), ("appType", "apikey"), ("redirect_uris", "[]"), ("privileges", privileges),
                ("httpReferrers", referrers),
            ])
    }

    static func appInfo(_ client: any TestClientProtocol, item: String, token: String?, owner: String = "eve") async throws -> JSONValue {
        try await get(client, "\(portalURL)/content/users/\(owner)/items/\(item)/registeredAppInfo?f=json" + (token.map { "&token=\($0)" } ?? ""))
    }

    /// Whether `token` is refused as an invalid token (498) by a query.
    static func isDead(_ client: any TestClientProtocol, _ token: String) async throws -> Bool {
        let answer = try await get(client, "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json&token=\(token)")
        return answer["error"]?["code"] == 498
    }

    @Test(arguments: DemoBackend.all)
    func theOwnerRegistersAKeyAndOnlyTheyAndAdminsReadIt(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let item = try await Self.item(client, token: tokens["eve"]!)
            // Privileges: well formed, and naming only items eve may see.
            let edsItem = try await Self.item(client, token: tokens["ed"]!, owner: "ed", type: "Web Map")
            for bad in [#"["geocode"]"#, #"["portal:app:access:item:0123456789abcdef0123456789abcdef"]"#, "[\"portal:app:access:item:\(edsItem)\"]"] {
                let refused = try await Self.registerKey(client, token: tokens["eve"]!, item: item, privileges: bad)
                #expect(refused["error"]?["code"] == 400 && refused["apiKey"] == nil, "\(bad): \(refused)")
            }
            let badReferrer = try await Self.registerKey(client, token: tokens["eve"]!, item: item, referrers: #"["ftp://x.example"]"#)
            #expect(badReferrer["error"]?["code"] == 400, "\(badReferrer)")
            // Not hers: missing to another editor, refused to a viewer at the door.
            #expect(try await Self.registerKey(client, token: tokens["ed"]!, item: item)["error"]?["code"] == 400)
            #expect(try await Self.registerKey(client, token: tokens["vic"]!, item: item)["error"]?["code"] == 403)
            #expect(try store.oauth.app(itemId: item) == nil, "nothing registered")

            let registered = try await Self.registerKey(client, token: tokens["eve"]!, item: item)
            let key = try #require(registered["apiKey"]?.stringValue, "\(registered)")
            let secret = try #require(registered["client_secret"]?.stringValue)
            #expect(APIKeyToken.slot(of: key) == 0 && key.hasPrefix("AAPK"), "\(key)")
            #expect(registered["privileges"] == .array([.string("portal:app:access:item:\(Self.demoItem)")]))
            #expect(registered["httpReferrers"] == ["https://app.example/*"])
            #expect(registered["apiToken1Active"] == false && registered["apiToken2Active"] == false && registered["isPersonalAPIToken"] == false)
            #expect(try await !Self.isDead(client, key), "the key is live")
            #expect(try store.portal.item(id: item)?.typeKeywords.contains("Registered App") == true, "clients ask registeredAppInfo of such items")

            for (who, reads) in [("eve", true), ("ada", true), ("ed", false), ("vic", false)] {
                let info = try await Self.appInfo(client, item: item, token: tokens[who]!)
                #expect((info["apiKey"]?.stringValue == key) == reads && (info["client_secret"]?.stringValue == secret) == reads, "\(who): \(info)")
                if reads {
                    #expect(info["apiToken1ExpirationDate"] == -1 && info["appType"] == "apikey" && info["client_id"] == registered["client_id"])
                } else {
                    #expect(info["error"]?["code"] == 400 && info["error"]?["message"]?.stringValue?.contains("not exist or is inaccessible") == true)
                }
            }
            // Shared with the organisation, still only hers.
            _ = try await post(client, "\(portalURL)/content/items/\(item)/share", [("f", "json"), ("token", tokens["eve"]!), ("org", "true")])
            #expect(try await Self.appInfo(client, item: item, token: tokens["ed"]!)["apiKey"] == nil)
            #expect(try await Self.appInfo(client, item: item, token: nil)["apiKey"] == nil)
            #expect(try await Self.appInfo(client, item: item, token: key)["apiKey"] == nil, "a key never reads keys")

            // Deleting the item ends the key.
            let deleted = try await post(client, "\(portalURL)/content/users/eve/items/\(item)/delete", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(deleted["success"] == true, "\(deleted)")
            #expect(try await Self.isDead(client, key))
        }
    }

    @Test(arguments: DemoBackend.all)
    func updateResetAndUnregisterAreTheOwnersAndEndTheKeys(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let item = try await Self.item(client, token: tokens["eve"]!)
            let registered = try await Self.registerKey(client, token: tokens["eve"]!, item: item)
            let clientId = try #require(registered["client_id"]?.stringValue)
            let key = try #require(registered["apiKey"]?.stringValue)
            let apps = "\(Self.sharing)/oauth2/apps/\(clientId)"

            for who in ["ed", "vic"] {
                for operation in ["update", "resetApiKey", "unregister"] {
                    let refused = try await post(client, "\(apps)/\(operation)", [("f", "json"), ("token", tokens[who]!), ("privileges", "[]")])
                    #expect(refused["error"]?["code"] == (who == "vic" ? 403 : 400), "\(who) \(operation): \(refused)")
                }
            }
            let bad = try await post(client, "\(apps)/update", [("f", "json"), ("token", tokens["eve"]!), ("privileges", #"["nope"]"#)])
            #expect(bad["error"]?["code"] == 400, "\(bad)")
            #expect(try store.oauth.app(clientId: clientId)?.privileges == ["portal:app:access:item:\(Self.demoItem)"], "nothing changed")

            let updated = try await post(
                client, "\(apps)/update",
                [
                    ("f", "json"), ("token", tokens["eve"]!), ("privileges", #"["features:user:edit","premium:user:geocode"]"#),
                    ("httpReferrers", "[]"),
                ])
            #expect(updated["privileges"] == ["features:user:edit", "premium:user:geocode"] && updated["httpReferrers"] == [], "\(updated)")
            #expect(updated["apiKey"] == nil && updated["client_secret"] == nil)

            let reset = try await post(client, "\(apps)/resetApiKey", [("f", "json"), ("token", tokens["ada"]!)])
            let newKey = try #require(reset["apiKey"]?.stringValue, "\(reset)")
            #expect(newKey != key && APIKeyToken.slot(of: newKey) == 0)
            #expect(try await Self.isDead(client, key), "one live key per slot: the old one answers 498")
            #expect(try await !Self.isDead(client, newKey))
            #expect(try await Self.appInfo(client, item: item, token: tokens["eve"]!)["apiKey"]?.stringValue == newKey)

            let unregistered = try await post(client, "\(apps)/unregister", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(unregistered["success"] == true && unregistered["itemId"]?.stringValue == item, "\(unregistered)")
            #expect(try await Self.isDead(client, newKey))
            #expect(try store.oauth.app(clientId: clientId) == nil && store.portal.item(id: item) != nil, "the item stays")
            #expect(try store.portal.item(id: item)?.typeKeywords.contains("Registered App") == false)
        }
    }

    @Test(arguments: DemoBackend.all)
    func onlyTheKeysOwnerOrAnAdminValidatesIt(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            let item = try await Self.item(client, token: tokens["eve"]!)
            let registered = try await Self.registerKey(
                client, token: tokens["eve"]!, item: item, privileges: #"["features:user:edit","premium:user:geocode"]"#)
            let key = try #require(registered["apiKey"]?.stringValue, "\(registered)")
            func validate(_ token: String?, key: String, _ privilege: String) async throws -> JSONValue {
                var pairs = [("f", "json"), ("key", key), ("privilege", privilege)]
                if let token { pairs.append(("token", token)) }
                return try await post(client, "\(Self.sharing)/oauth2/validateApiKey", pairs)
            }
            #expect(try await validate(tokens["eve"]!, key: key, "features:user:edit,premium:user:geocode") == ["valid": true])
            #expect(try await validate(tokens["ada"]!, key: key, "premium:user:geocode") == ["valid": true])
            #expect(try await validate(tokens["eve"]!, key: key, "premium:user:routing") == ["valid": false])
            #expect(try await validate(tokens["eve"]!, key: APIKeyToken.make(slot: 0), "premium:user:geocode") == ["valid": false])
            for stranger in [tokens["ed"]!, tokens["vic"]!, nil] {
                let refused = try await validate(stranger, key: key, "premium:user:geocode")
                #expect(refused["error"]?["code"] == 403 && refused["valid"] == nil, "\(refused)")
            }
            #expect(try await validate(tokens["eve"]!, key: key, "geocode")["error"]?["code"] == 400)
        }
    }

    @Test(arguments: DemoBackend.all)
    func theKeysListingIsPagedAndNeverShowsASecret(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            var items: [String] = []
            for _ in 0..<3 {
                let item = try await Self.item(client, token: tokens["eve"]!)
                _ = try await Self.registerKey(client, token: tokens["eve"]!, item: item)
                items.append(item)
            }
            // An OAuth app without keys is no key.
            let application = try await OAuthFlows.applicationItem(client, token: tokens["eve"]!)
            _ = try await OAuthFlows.register(client, token: tokens["eve"]!, item: application)
            let edsItem = try await Self.item(client, token: tokens["ed"]!, owner: "ed")
            _ = try await Self.registerKey(client, token: tokens["ed"]!, item: edsItem, privileges: "[]")

            func list(_ token: String?, _ start: Int, _ num: Int) async throws -> (JSONValue, String) {
                let path = "\(portalURL)/portals/self/apiKeys?f=json&start=\(start)&num=\(num)" + (token.map { "&token=\($0)" } ?? "")
                return try await client.execute(uri: path, method: .get) { (json($0), String(buffer: $0.body)) }
            }
            let (first, firstText) = try await list(tokens["eve"]!, 1, 2)
            #expect(first["total"] == 3 && first["start"] == 1 && first["num"] == 2 && first["nextStart"] == 3, "\(first)")
            let (second, secondText) = try await list(tokens["eve"]!, 3, 2)
            #expect(second["nextStart"] == -1 && second["apiKeys"]?.arrayValue?.count == 1, "\(second)")
            let listed = ((first["apiKeys"]?.arrayValue ?? []) + (second["apiKeys"]?.arrayValue ?? [])).compactMap { $0["itemId"]?.stringValue }
            #expect(Set(listed) == Set(items), "\(listed)")
            let entry = try #require(first["apiKeys"]?[0]?.objectValue)
            #expect(
                Set(entry.map(\.key)) == [
                    "itemId", "client_id", "appType", "privileges", "httpReferrers", "apiToken1Active", "apiToken2Active", "registered", "modified",
                ])
            for text in [firstText, secondText] {
                #expect(!text.contains("AAPK") && !text.contains("client_secret") && !text.contains("apiKey\""), "\(text)")
            }
            #expect(try await list(tokens["ed"]!, 1, 100).0["total"] == 1)
            #expect(try await list(tokens["vic"]!, 1, 100).0["total"] == 0)
            #expect(try await list(tokens["ada"]!, 1, 100).0["total"] == 4)
            #expect(try await list(nil, 1, 100).0["error"]?["code"] == 499)
            #expect(try await list(tokens["eve"]!, 0, 2).0 == first, "the ArcGIS API for Python asks start=0 first")
            #expect(try await list(tokens["eve"]!, -1, 10).0["error"]?["code"] == 400)
            #expect(try await list(tokens["eve"]!, 1, 101).0["error"]?["code"] == 400)
        }
    }
}
