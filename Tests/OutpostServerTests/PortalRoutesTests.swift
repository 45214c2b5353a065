import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostServer
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

let portalURL = "/arcgis/sharing/rest"

/// The portal over HTTP (docs/portal.md): sharing enforced with token security, content,
/// relationships, resources, folders, search, the service items and the demo map.
@Suite struct PortalRoutesTests {
    /// A secured server with an editor `ada`, an editor `bob`, a viewer `vic` and an admin
    /// `root`, and their tokens.
    static func withSecuredPortal(_ body: @Sendable (any TestClientProtocol, SpatiaLiteBackend, [String: String]) async throws -> Void) async throws {
        let store = try makeDemoStore(label: "portal")
        var tokens: [String: String] = [:]
        for (name, role) in [("ada", UserRole.editor), ("bob", .editor), ("vic", .viewer), ("root", .admin)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
            tokens[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 30).token
        }
        let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true)))
        let issued = tokens
        try await app.test(.router) { client in try await body(client, store, issued) }
        try? FileManager.default.removeItem(atPath: store.directory)
    }

    static let webMap =
        #"{"operationalLayers":[{"id":"c","layerType":"ArcGISFeatureLayer","url":"/arcgis/rest/services/Demo/FeatureServer/0"}],"baseMap":{"baseMapLayers":[]}}"#

    @Test func aPrivateItemIsInvisibleToEveryoneButItsOwnerAndAdministrators() async throws {
        try await Self.withSecuredPortal { client, _, tokens in
            let added = try await post(
                client, "\(portalURL)/content/users/ada/addItem",
                [("f", "json"), ("token", tokens["ada"]!), ("type", "Web Map"), ("title", "Ada's secret map"), ("text", Self.webMap)])
            let id = try #require(added["id"]?.stringValue, "\(added)")
            func sees(_ token: String?) async throws -> [Bool] {
                let suffix = token.map { "&token=\($0)" } ?? ""
                let search = try await get(client, "\(portalURL)/search?f=json&q=title:%22secret%22\(suffix)")
                let item = try await get(client, "\(portalURL)/content/items/\(id)?f=json\(suffix)")
                let data = try await get(client, "\(portalURL)/content/items/\(id)/data?f=json\(suffix)")
                let related = try await get(client, "\(portalURL)/content/items/\(id)/relatedItems?f=json&relationshipType=Map2Area\(suffix)")
                let owned = try await get(client, "\(portalURL)/content/users/ada?f=json\(suffix)")
                return [
                    search["total"] == 1, item["id"]?.stringValue == id, data["operationalLayers"] != nil, related["error"] == nil,
                    owned["items"]?.arrayValue?.count == 1,
                ]
            }
            #expect(try await sees(tokens["ada"]) == [true, true, true, true, true])
            #expect(try await sees(tokens["root"]) == [true, true, true, true, true])
            for other in [tokens["bob"], tokens["vic"], nil] { #expect(try await sees(other) == [false, false, false, false, false]) }
            // Not found, as for an id that does not exist: nothing tells that it does.
            let hidden = try await get(client, "\(portalURL)/content/items/\(id)?f=json&token=\(tokens["bob"]!)")
            let missing = try await get(client, "\(portalURL)/content/items/00000000000000000000000000000000?f=json&token=\(tokens["bob"]!)")
            #expect(hidden["error"]?["code"] == 400 && hidden["error"]?["message"] == missing["error"]?["message"], "\(hidden)")

            // Shared with the organisation: every signed-in user, still not anonymous.
            let shared = try await post(
                client, "\(portalURL)/content/users/ada/items/\(id)/share", [("f", "json"), ("token", tokens["ada"]!), ("org", "true")])
            #expect(shared["itemId"]?.stringValue == id, "\(shared)")
            #expect(try await sees(tokens["bob"]) == [true, true, true, true, true])
            #expect(try await sees(nil) == [false, false, false, false, false])
            // Seen is not owned: bob may not change or delete it.
            let update = try await post(
                client, "\(portalURL)/content/users/ada/items/\(id)/update", [("f", "json"), ("token", tokens["bob"]!), ("title", "Bob's now")])
            #expect(update["error"]?["code"] == 403, "\(update)")
            let delete = try await post(client, "\(portalURL)/content/users/ada/items/\(id)/delete", [("f", "json"), ("token", tokens["bob"]!)])
            #expect(delete["error"]?["code"] == 403, "\(delete)")
            // Public: anonymous too.
            _ = try await post(client, "\(portalURL)/content/items/\(id)/share", [("f", "json"), ("token", tokens["ada"]!), ("everyone", "true")])
            #expect(try await sees(nil) == [true, true, true, true, true])
        }
    }

    @Test func viewersAndAnonymousCallersCreateNothingAndBadTokensAreRefused() async throws {
        try await Self.withSecuredPortal { client, store, tokens in
            let byViewer = try await post(
                client, "\(portalURL)/content/users/vic/addItem", [("f", "json"), ("token", tokens["vic"]!), ("type", "Web Map"), ("text", "{}")])
            #expect(byViewer["error"]?["code"] == 403, "\(byViewer)")
            let forAnother = try await post(
                client, "\(portalURL)/content/users/bob/addItem",
                [("f", "json"), ("token", tokens["ada"]!), ("type", "Web Map"), ("text", Self.webMap)])
            #expect(forAnother["error"]?["code"] == 403, "\(forAnother)")
            let anonymous = try await post(
                client, "\(portalURL)/content/users/ada/addItem", [("f", "json"), ("type", "Web Map"), ("text", Self.webMap)])
            #expect(anonymous["error"]?["code"] == 499, "\(anonymous)")
            let notAWebMap = try await post(
                client, "\(portalURL)/content/users/ada/addItem", [("f", "json"), ("token", tokens["ada"]!), ("type", "Web Map"), ("text", "[1]")])
            #expect(notAWebMap["error"]?["code"] == 400, "\(notAWebMap)")
            #expect(try store.portal.items().count == 1, "the demo map only")
            let badToken = try await get(client, "\(portalURL)/search?f=json&q=demo&token=deadbeef")
            #expect(badToken["error"]?["code"] == 498, "\(badToken)")
            let me = try await get(client, "\(portalURL)/portals/self?f=json&token=\(tokens["ada"]!)")
            #expect(me["user"]?["username"] == "ada" && me["portalName"] == "Outpost", "\(me)")
            #expect(me["helperServices"]?["packaging"]?["url"]?.stringValue?.hasSuffix("/OfflinePackaging/GPServer") == true)
            #expect(try await get(client, "\(portalURL)/portals/self?f=json")["user"] == .null)
            #expect(try await get(client, "\(portalURL)/community/self?f=json")["error"]?["code"] == 403)
            #expect(try await get(client, "\(portalURL)/community/users/bob?f=json&token=\(tokens["root"]!)")["role"] == "org_publisher")
        }
    }

    @Test func serviceItemsAndTheDemoMapAreFoundWithAbsoluteURLs() async throws {
        try await Self.withSecuredPortal { client, _, tokens in
            let services = try await get(client, "\(portalURL)/search?f=json&q=type:%22Feature%20Service%22&token=\(tokens["vic"]!)")
            let titles = services["results"]?.arrayValue?.compactMap { $0["title"]?.stringValue }.sorted()
            #expect(titles == ["Demo", "Parcels"], "\(services)")
            #expect(services["results"]?[0]?["url"]?.stringValue?.hasPrefix("http://") == true)
            // Anonymous: services are the organisation's under token security; the demo map is public.
            #expect(try await get(client, "\(portalURL)/search?f=json&q=type:%22Feature%20Service%22")["total"] == 0)
            let maps = try await get(client, "\(portalURL)/search?f=json&q=typekeywords:Offline%20AND%20type:%22Web%20Map%22")
            #expect(maps["results"]?[0]?["id"]?.stringValue == DemoData.demoMapId, "\(maps)")
            let data = try await get(client, "\(portalURL)/content/items/\(DemoData.demoMapId)/data?f=json")
            let urls = data["operationalLayers"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
            #expect(urls.count >= 3 && urls.allSatisfy { $0.hasPrefix("http") && $0.contains("/arcgis/rest/services/") }, "\(urls)")
            #expect(data["applicationProperties"]?["offline"]?["editableLayers"]?["download"] == "features")
            // A service's item follows its service.
            let serviceItem = try #require(services["results"]?[0]?["id"]?.stringValue)
            let refused = try await post(
                client, "\(portalURL)/content/users/outpost/items/\(serviceItem)/update", [("f", "json"), ("token", tokens["root"]!), ("title", "x")])
            #expect(refused["error"]?["code"] == 403, "\(refused)")
        }
    }

    @Test func foldersResourcesAndRelationships() async throws {
        try await Self.withSecuredPortal { client, _, tokens in
            let ada = tokens["ada"]!
            let folder = try await post(client, "\(portalURL)/content/users/ada/createFolder", [("f", "json"), ("token", ada), ("title", "Field")])
            let folderId = try #require(folder["folder"]?["id"]?.stringValue, "\(folder)")
            let map = try await post(
                client, "\(portalURL)/content/users/ada/\(folderId)/addItem",
                [("f", "json"), ("token", ada), ("type", "Web Map"), ("title", "Field map"), ("text", Self.webMap), ("typeKeywords", "Offline")])
            let mapId = try #require(map["id"]?.stringValue, "\(map)")
            let area = try await post(
                client, "\(portalURL)/content/users/ada/addItem",
                [
                    ("f", "json"), ("token", ada), ("type", "Map Area"), ("title", "North"), ("text", #"{"mapAreaId":"x"}"#),
                    ("originItemId", mapId), ("relationshipType", "Map2Area"),
                ])
            let areaId = try #require(area["id"]?.stringValue, "\(area)")
            let root = try await get(client, "\(portalURL)/content/users/ada?f=json&token=\(ada)")
            #expect(root["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["North"], "\(root)")
            #expect(root["folders"]?[0]?["title"] == "Field")
            let inFolder = try await get(client, "\(portalURL)/content/users/ada/\(folderId)?f=json&token=\(ada)")
            #expect(inFolder["items"]?[0]?["id"]?.stringValue == mapId, "\(inFolder)")

            // Both spellings of the relationship parameter, both directions.
            for parameter in ["relationshipType", "relationshipTypes"] {
                let forward = try await get(client, "\(portalURL)/content/items/\(mapId)/relatedItems?f=json&\(parameter)=Map2Area&token=\(ada)")
                #expect(forward["relatedItems"]?[0]?["id"]?.stringValue == areaId, "\(forward)")
            }
            let reverse = try await get(
                client, "\(portalURL)/content/items/\(areaId)/relatedItems?f=json&relationshipType=Map2Area&direction=reverse&token=\(ada)")
            #expect(reverse["relatedItems"]?[0]?["id"]?.stringValue == mapId, "\(reverse)")
            _ = try await post(
                client, "\(portalURL)/content/users/ada/deleteRelationship",
                [("f", "json"), ("token", ada), ("originItemId", mapId), ("destinationItemId", areaId), ("relationshipType", "Map2Area")])
            #expect(
                try await get(client, "\(portalURL)/content/items/\(mapId)/relatedItems?f=json&relationshipType=Map2Area&token=\(ada)")["total"] == 0)

            // Resources: added as text, listed, read back, removed; a path escape refused.
            let added = try await post(
                client, "\(portalURL)/content/users/ada/items/\(areaId)/addResources",
                [("f", "json"), ("token", ada), ("text", "delta bytes"), ("fileName", "d_12.txt"), ("resourcesPrefix", "updates")])
            #expect(added["success"] == true, "\(added)")
            let listed = try await get(client, "\(portalURL)/content/items/\(areaId)/resources?f=json&token=\(ada)")
            #expect(listed["resources"]?[0]?["resource"] == "updates/d_12.txt" && listed["total"] == 1, "\(listed)")
            try await client.execute(uri: "\(portalURL)/content/items/\(areaId)/resources/updates/d_12.txt?token=\(ada)", method: .get) {
                #expect(String(buffer: $0.body) == "delta bytes")
            }
            let escape = try await post(
                client, "\(portalURL)/content/users/ada/items/\(areaId)/addResources",
                [("f", "json"), ("token", ada), ("text", "x"), ("fileName", "../../outpost.sqlite")])
            #expect(escape["error"]?["code"] == 400, "\(escape)")
            _ = try await post(
                client, "\(portalURL)/content/users/ada/items/\(areaId)/removeResources",
                [("f", "json"), ("token", ada), ("resource", "updates/d_12.txt")])
            #expect(try await get(client, "\(portalURL)/content/items/\(areaId)/resources?f=json&token=\(ada)")["total"] == 0)

            // Deleting the map takes its relationships with it; paging of search.
            _ = try await post(
                client, "\(portalURL)/content/users/ada/addRelationship",
                [("f", "json"), ("token", ada), ("originItemId", mapId), ("destinationItemId", areaId), ("relationshipType", "Map2Area")])
            #expect(
                try await post(client, "\(portalURL)/content/users/ada/\(folderId)/items/\(mapId)/delete", [("f", "json"), ("token", ada)])["success"]
                    == true)
            let orphan = try await get(
                client, "\(portalURL)/content/items/\(areaId)/relatedItems?f=json&relationshipType=Map2Area&direction=reverse&token=\(ada)")
            #expect(orphan["total"] == 0, "\(orphan)")
            let page = try await get(client, "\(portalURL)/search?f=json&q=*&num=2&start=2&sortField=title&token=\(ada)")
            #expect(page["start"] == 2 && page["num"] == 2 && page["nextStart"] == 4 && page["results"]?.arrayValue?.count == 2, "\(page)")
            let past = try await get(client, "\(portalURL)/search?f=json&q=*&start=-1&token=\(ada)")
            #expect(past["results"]?.arrayValue?.isEmpty == true && past["nextStart"] == -1, "\(past)")
            #expect(try await get(client, "\(portalURL)/search?f=json&q=title:(&token=\(ada)")["error"]?["code"] == 400)
        }
    }

    @Test func thumbnailsAreServedBelowInfoSetByAFilePartAndHiddenWithTheirItem() async throws {
        try await Self.withSecuredPortal { client, store, tokens in
            let ada = tokens["ada"]!
            let demo = try await get(client, "\(portalURL)/content/items/\(DemoData.demoMapId)?f=json")
            #expect(demo["thumbnail"] == "thumbnail/demo-map.png", "\(demo)")
            try await client.execute(uri: "\(portalURL)/content/items/\(DemoData.demoMapId)/info/thumbnail/demo-map.png", method: .get) {
                #expect($0.status == .ok && $0.headers[.contentType] == "image/png")
                #expect(Array(Data(buffer: $0.body).prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            }
            try await client.execute(uri: "\(portalURL)/content/items/\(DemoData.demoMapId)/info/iteminfo.xml", method: .get) {
                #expect(json($0)["error"]?["code"] == 404)
            }

            // A private item of ada's gets one by an update's file part; nobody else sees it.
            let added = try await post(
                client, "\(portalURL)/content/users/ada/addItem",
                [("f", "json"), ("token", ada), ("type", "Web Map"), ("title", "Mine"), ("text", Self.webMap)])
            let id = try #require(added["id"]?.stringValue)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            let (headers, body) = multipart(fields: [("f", "json"), ("token", ada)], file: ("thumbnail", "cover.png", "image/png", png))
            let updated = try await client.execute(
                uri: "\(portalURL)/content/users/ada/items/\(id)/update", method: .post, headers: headers, body: body
            ) { json($0) }
            #expect(updated["success"] == true, "\(updated)")
            try await client.execute(uri: "\(portalURL)/content/items/\(id)/info/thumbnail/cover.png?token=\(ada)", method: .get) {
                #expect(Array(Data(buffer: $0.body)) == png)
            }
            try await client.execute(uri: "\(portalURL)/content/items/\(id)/info/thumbnail/cover.png?token=\(tokens["bob"]!)", method: .get) {
                #expect(json($0)["error"]?["code"] != nil, "hidden like its item")
            }
            // Not an image: refused, and nothing changes.
            let (badHeaders, badBody) = multipart(
                fields: [("f", "json"), ("token", ada), ("title", "Changed")], file: ("thumbnail", "cover.exe", "application/octet-stream", [1, 2]))
            let refused = try await client.execute(
                uri: "\(portalURL)/content/users/ada/items/\(id)/update", method: .post, headers: badHeaders, body: badBody
            ) { json($0) }
            #expect(refused["error"]?["code"] == 400, "\(refused)")
            #expect(try store.portal.item(id: id)?.title == "Mine" && store.portal.item(id: id)?.thumbnail == "thumbnail/cover.png")
            // Issue 43: a page named like an image, or an image named as another format, is refused.
            for (name, bytes) in [("page.png", Array("<html><script>alert(1)</script>".utf8)), ("cover.gif", png)] {
                let (hostileHeaders, hostileBody) = multipart(
                    fields: [("f", "json"), ("token", ada), ("title", "Changed")], file: ("thumbnail", name, "image/png", bytes))
                let answer = try await client.execute(
                    uri: "\(portalURL)/content/users/ada/items/\(id)/update", method: .post, headers: hostileHeaders, body: hostileBody
                ) { json($0) }
                #expect(answer["error"]?["code"] == 400, "\(name): \(answer)")
            }
            #expect(try store.portal.item(id: id)?.title == "Mine" && store.portal.item(id: id)?.thumbnail == "thumbnail/cover.png")
        }
    }
}
