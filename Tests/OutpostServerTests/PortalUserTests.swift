import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// The portal's user objects (docs/portal.md, "Users"): every place the portal answers one
/// answers what ArcGIS's carries, with an id that is the user's for good; the id names the
/// user in `community/users/<id>` and `content/users/<id>` as the Maps SDK for JavaScript
/// builds them.
@Suite struct PortalUserTests {
    static let users: [(String, UserRole, String)] = [("ada", .editor, "org_publisher"), ("vic", .viewer, "org_user"), ("root", .admin, "org_admin")]

    /// Every user object the portal answers `caller` about `user` (by name and by id), and
    /// whether it is the full profile (the user themselves, administrators) or the public one.
    static func userObjects(
        _ client: any TestClientProtocol, caller token: String, callerName: String, about user: String, id: String
    ) async throws -> [(String, JSONValue, Bool)] {
        let own = callerName == user || callerName == "root"
        var objects = [
            ("community/users/\(user)", try await get(client, "\(portalURL)/community/users/\(user)?f=json&token=\(token)"), own),
            ("community/users/<id>", try await get(client, "\(portalURL)/community/users/\(id)?f=json&token=\(token)"), own),
        ]
        if callerName == user {
            let portal = try await get(client, "\(portalURL)/portals/self?f=json&token=\(token)")
            objects.append(("portals/self.user", portal["user"] ?? .null, true))
            objects.append(("community/self", try await get(client, "\(portalURL)/community/self?f=json&token=\(token)"), true))
        }
        return objects
    }

    @Test func everyUserObjectCarriesWhatArcGISAnswers() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, _, tokens in
            let organization = try #require(try await get(client, "\(portalURL)/portals/self?f=json")["id"]?.stringValue)
            var ids: [String: String] = [:]
            for (name, _, _) in Self.users {
                let me = try await get(client, "\(portalURL)/community/self?f=json&token=\(tokens[name]!)")
                ids[name] = try #require(me["id"]?.stringValue, "\(me)")
            }
            #expect(Set(ids.values).count == Self.users.count, "one id per user: \(ids)")
            for (caller, _, _) in Self.users {
                for (name, role, arcGISRole) in Self.users {
                    let objects = try await Self.userObjects(client, caller: tokens[caller]!, callerName: caller, about: name, id: ids[name]!)
                    for (place, user, full) in objects {
                        let place = "\(caller) about \(name), \(place)"
                        let id = user["id"]?.stringValue ?? ""
                        #expect(id == ids[name] && id.count == 32 && id.allSatisfy(\.isHexDigit) && id == id.lowercased(), "\(place): \(user)")
                        #expect(user["username"]?.stringValue == name && user["fullName"]?.stringValue == name, "\(place)")
                        #expect(user["orgId"]?.stringValue == organization && user["provider"] == "arcgis" && user["access"] == "org", "\(place)")
                        #expect((user["created"]?.int64Value ?? 0) > 0 && user["modified"] == user["created"], "\(place): \(user)")
                        guard full else {
                            // The public profile: nothing of the role, its privileges or licence.
                            for field in ["role", "roleId", "privileges", "level", "userLicenseTypeId", "groups"] {
                                #expect(user[field] == nil, "\(place): \(field) in \(user)")
                            }
                            continue
                        }
                        #expect(user["role"]?.stringValue == arcGISRole && user["roleId"]?.stringValue == arcGISRole, "\(place): \(user)")
                        let privileges = user["privileges"]?.arrayValue?.compactMap(\.stringValue) ?? []
                        #expect(privileges.contains("portal:user:viewOrgItems"), "\(place): \(user)")
                        #expect(privileges.contains("portal:user:createItem") == (role != .viewer), "\(place): \(user)")
                        #expect(privileges.contains("portal:admin:updateItems") == (role == .admin), "\(place): \(user)")
                        #expect(user["level"]?.stringValue == (role == .viewer ? "1" : "2"), "\(place): \(user)")
                        #expect(user["userLicenseTypeId"]?.stringValue == (role == .viewer ? "viewerUT" : "creatorUT"), "\(place)")
                        #expect(user["groups"] == [], "\(place): \(user)")
                    }
                }
            }
            // An id that is no user's is not found, as a name that is not.
            let unknown = try await get(client, "\(portalURL)/community/users/\(String(repeating: "0", count: 32))?f=json&token=\(tokens["ada"]!)")
            let nobody = try await get(client, "\(portalURL)/community/users/nobody?f=json&token=\(tokens["ada"]!)")
            #expect(unknown["error"]?["code"] == 404 && unknown["error"]?["message"] == nobody["error"]?["message"], "\(unknown)")
        }
    }

    @Test func idsAreStableAcrossRestartsAndDistinctPerUser() async throws {
        let store = try makeDemoStore(label: "user-ids")
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        for (name, role, _) in Self.users { try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000) }
        @Sendable func ids(_ store: SpatiaLiteBackend) async throws -> [String: String] {
            let token = try store.users.issueToken(for: ServerUser(name: "vic", role: .viewer), minutes: 5).token
            let names = Self.users.map(\.0)
            let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true)))
            let found = Guarded<[String: String]>([:])
            try await app.test(.router) { client in
                for name in names {
                    let user = try await get(client, "\(portalURL)/community/users/\(name)?f=json&token=\(token)")
                    found.withLock { $0[name] = user["id"]?.stringValue }
                }
            }
            return found.value
        }
        let before = try await ids(store)
        let after = try await ids(try SpatiaLiteBackend(dataDirectory: store.directory))
        #expect(before.count == Self.users.count && Set(before.values).count == Self.users.count, "\(before)")
        #expect(before == after)
    }

    /// The service items' owner is a profile clients can look up; a missing user is said in ArcGIS's words.
    @Test func theServersOwnAccountHasAPublicProfile() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, _, tokens in
            let token = tokens["vic"]!
            let service = try await get(client, "\(portalURL)/search?f=json&token=\(token)&q=title%3ADemo%20AND%20type%3A%22Feature%20Service%22")
            #expect(service["results"]?[0]?["owner"]?.stringValue == "outpost", "\(service)")
            let owner = try await get(client, "\(portalURL)/community/users/outpost?f=json&token=\(token)")
            #expect(owner["username"]?.stringValue == "outpost" && owner["role"] == nil && owner["privileges"] == nil, "\(owner)")
            let missing = try await get(client, "\(portalURL)/community/users/nobody?f=json&token=\(token)")
            #expect(missing["error"]?["message"]?.stringValue == "User does not exist or is inaccessible.", "\(missing)")
            let anonymous = try await get(client, "\(portalURL)/community/users/outpost?f=json")
            #expect(anonymous["error"] != nil, "\(anonymous)")
        }
    }

    @Test func contentUsersTakesTheUsersIdAsTheSDKSendsIt() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, store, tokens in
            let ada = tokens["ada"]!
            let me = try await get(client, "\(portalURL)/portals/self?f=json&token=\(ada)")["user"]
            let id = try #require(me?["id"]?.stringValue)
            // PortalUser.addItem: `${restUrl}/content/users/${this.id}/addItem`.
            let added = try await post(
                client, "\(portalURL)/content/users/\(id)/addItem",
                [("f", "json"), ("token", ada), ("type", "Web Map"), ("title", "By id"), ("text", PortalRoutesTests.webMap)])
            let itemId = try #require(added["id"]?.stringValue, "\(added)")
            #expect(try store.portal.item(id: itemId)?.owner == "ada", "the user's, under their name")
            // fetchFolders / fetchItems: `content/users/<id>`; a folder made there is the user's.
            let folder = try await post(client, "\(portalURL)/content/users/\(id)/createFolder", [("f", "json"), ("token", ada), ("title", "Field")])
            #expect(folder["folder"]?["username"] == "ada", "\(folder)")
            #expect(try store.portal.folders(owner: "ada").map(\.title) == ["Field"])
            let listed = try await get(client, "\(portalURL)/content/users/\(id)?f=json&token=\(ada)")
            #expect(listed["username"] == "ada" && listed["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [itemId], "\(listed)")
            #expect(listed["folders"]?.arrayValue?.count == 1, "\(listed)")
            // Another user's id is another user's content.
            let bob = try #require(try await get(client, "\(portalURL)/community/self?f=json&token=\(tokens["bob"]!)")["id"]?.stringValue)
            let refused = try await post(
                client, "\(portalURL)/content/users/\(bob)/addItem",
                [("f", "json"), ("token", ada), ("type", "Web Map"), ("title", "Not mine"), ("text", PortalRoutesTests.webMap)])
            #expect(refused["error"]?["code"] == 403, "\(refused)")
        }
    }
}
