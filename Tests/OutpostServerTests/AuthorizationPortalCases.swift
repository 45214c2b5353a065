import Foundation
import OutpostDataTools
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire

@testable import OutpostServer

/// The matrix's requests for the portal's rows: the owner's private and org items, the demo
/// map (public, the server's), and fresh items of the owner's for the changes.
extension MatrixCase {
    static let portal = AuthorizationSession.portal
    static let itemAccesses = ["private", "org", "public"]
    static let eve = AuthorizationSession.owner

    /// The owner's item with `access` (the public one is the server's); the keys name the private one.
    static func item(_ access: String) -> Subject {
        AuthorizationSession.subject(access, ofServer: access == "public", inKeyScope: access == "private")
    }

    static var portalReadCases: [MatrixCase] {
        let reads = [
            ("content/items/:item", ""), ("content/items/:item/data", "/data"), ("content/items/:item/relatedItems", "/relatedItems"),
            ("content/items/:item/groups", "/groups"), ("content/items/:item/resources", "/resources"),
            ("content/items/:item/resources/**", "/resources/notes/a.txt"),
        ]
        var cases: [MatrixCase] = [
            .read("") { _ in "\(portal)?f=json" },
            .read("info") { _ in "\(portal)/info?f=json" },
            .read("portals/self") { _ in "\(portal)/portals/self?f=json" },
            .read("portals/:portal/roles") { _ in "\(portal)/portals/self/roles?f=json&start=1&num=100" },
            .read("portals/:portal/roles", "by the portal's id") { _ in
                "\(portal)/portals/\(PortalController<SpatiaLiteBackend>.organizationId)/roles?f=json"
            },
            .read("**") { _ in "\(portal)/nothing/here?f=json" },
            .read("portals/:portal/isServiceNameAvailable") { _ in
                "\(portal)/portals/self/isServiceNameAvailable?name=Free&type=featureService&f=json"
            },
            .read("community/self", subject: owned) { _ in "\(portal)/community/self?f=json" },
            .read("community/users/:user", subject: owned) { _ in "\(portal)/community/users/\(eve)?f=json" },
            .read("content/users/:user/:folder", subject: owned) { s in "\(portal)/content/users/\(eve)/\(s.objects.folderId)?f=json" },
        ]
        for access in itemAccesses {
            let subject = item(access)
            cases += reads.map { row, suffix in
                .read(row, access, subject: subject) { s in "\(portal)/content/items/\(s.objects.items[access]!)\(suffix)?f=json" }
            }
            cases += [
                .read("content/items/:item/info/**", access, subject: subject) { s in
                    let id = s.objects.items[access]!
                    return "\(portal)/content/items/\(id)/info/\(access == "public" ? "thumbnail/demo-map.png" : "thumbnail/thumb.png")"
                },
                .list(
                    "search", access, subject: subject, path: { s in "\(portal)/search?q=id%3A\(s.objects.items[access]!)&f=json" },
                    shows: { s, a in holds(a.json["results"], "id", s.objects.items[access]!) }),
                .read("home/webmap/viewer.html", access, subject: subject) { s in
                    "/arcgis/home/webmap/viewer.html?webmap=\(s.objects.webMaps[access]!)"
                },
            ]
            guard access != "public" else { continue }
            cases += [
                .list(
                    "content/users/:user", access, subject: subject, path: { _ in "\(portal)/content/users/\(eve)?num=100&f=json" },
                    shows: { s, a in holds(a.json["items"], "id", s.objects.items[access]!) }),
                .read("content/users/:user/items/:item", access, subject: subject) { s in
                    "\(portal)/content/users/\(eve)/items/\(s.objects.items[access]!)?f=json"
                },
                .read("content/users/:user/items/:item", "\(access), in a folder", subject: subject) { s in
                    "\(portal)/content/users/\(eve)/\(s.objects.folderId)/items/\(s.objects.items[access]!)?f=json"
                },
                .read("content/users/:user/items/:item/status", access, subject: subject) { s in
                    "\(portal)/content/users/\(eve)/items/\(s.objects.items[access]!)/status?f=json"
                },
            ]
        }
        return cases
    }

    /// A change of a fresh item of the owner's with `access`, at `content/users/eve/[folder/]items/<id>/<operation>`.
    static func itemChange(
        _ row: String, _ access: String, inFolder: Bool = false, fields: [(String, String)], happened: (@Sendable (PortalItem?) -> Bool)?,
        _ path: (@Sendable (AuthorizationSession, String) -> String)? = nil
    ) -> MatrixCase {
        let operation = String(row.split(separator: "/").last!)
        var effect: Effect?
        if let happened { effect = { s, p in happened(try s.store.portal.item(id: p.object)) } }
        return .post(
            row, inFolder ? "\(access), in a folder" : access, subject: item(access),
            make: { s, _ in
                let id = try s.freshItem(access: access)
                let folder = inFolder ? "\(s.objects.folderId)/" : ""
                let url = path?(s, id) ?? "\(portal)/content/users/\(eve)/\(folder)items/\(id)/\(operation)"
                return Probe(path: url, fields: [("f", "json")] + fields, object: id)
            }, happened: effect)
    }

    static var portalChangeCases: [MatrixCase] {
        var cases: [MatrixCase] = [
            .post(
                "content/users/:user/addItem", subject: owned,
                make: { s, _ in
                    let title = s.unique("added")
                    return Probe(
                        path: "\(portal)/content/users/\(eve)/addItem", fields: [("f", "json"), ("type", "Code Sample"), ("title", title)],
                        object: title)
                }, happened: { s, p in try s.store.portal.items().contains { $0.title == p.object && $0.owner == eve } }),
            .post(
                "content/users/:user/addItem", "in a folder", subject: owned,
                make: { s, _ in
                    let title = s.unique("added")
                    return Probe(
                        path: "\(portal)/content/users/\(eve)/\(s.objects.folderId)/addItem",
                        fields: [("f", "json"), ("type", "Code Sample"), ("title", title)], object: title)
                }, happened: { s, p in try s.store.portal.items().contains { $0.title == p.object && $0.owner == eve } }),
            .post(
                "content/users/:user/createFolder", subject: owned,
                make: { s, _ in
                    let title = s.unique("folder")
                    return Probe(path: "\(portal)/content/users/\(eve)/createFolder", fields: [("f", "json"), ("title", title)], object: title)
                }, happened: { s, p in try s.store.portal.folders(owner: eve).contains { $0.title == p.object } }),
        ]
        for access in ["private", "org"] {
            let shared: @Sendable (PortalItem?) -> Bool = { $0?.access == .public }
            for inFolder in [false, true] {
                cases += [
                    itemChange("content/users/:user/items/:item/update", access, inFolder: inFolder, fields: [("title", "Changed")]) {
                        $0?.title == "Changed"
                    },
                    itemChange("content/users/:user/items/:item/delete", access, inFolder: inFolder, fields: []) { $0 == nil },
                    itemChange("content/users/:user/items/:item/share", access, inFolder: inFolder, fields: [("everyone", "true")], happened: shared),
                    itemChange("content/users/:user/items/:item/unshare", access, inFolder: inFolder, fields: [("groups", "g1")], happened: nil),
                ]
            }
            cases += [
                itemChange("content/items/:item/share", access, fields: [("everyone", "true")], happened: shared) { _, id in
                    "\(portal)/content/items/\(id)/share"
                },
                itemChange("content/items/:item/unshare", access, fields: [("groups", "g1")], happened: nil) { _, id in
                    "\(portal)/content/items/\(id)/unshare"
                },
                itemChange("content/users/:user/shareItems", access, fields: [("everyone", "true")], happened: shared) { _, id in
                    "\(portal)/content/users/\(eve)/shareItems?items=\(id)"
                },
            ]
            for operation in ["addResources", "updateResources"] {
                cases.append(
                    .post(
                        "content/users/:user/items/:item/\(operation)", access, subject: item(access),
                        make: { s, _ in
                            let id = try s.freshItem(access: access)
                            return Probe(
                                path: "\(portal)/content/users/\(eve)/items/\(id)/\(operation)",
                                fields: [("f", "json"), ("text", "b"), ("fileName", "b.txt")], object: id)
                        }, happened: { s, p in try s.store.portal.resources(of: p.object).contains { $0.name == "b.txt" } }))
            }
            cases += [
                .post(
                    "content/users/:user/items/:item/removeResources", access, subject: item(access),
                    make: { s, _ in
                        let id = try s.freshItem(access: access)
                        return Probe(
                            path: "\(portal)/content/users/\(eve)/items/\(id)/removeResources", fields: [("f", "json"), ("resource", "notes/a.txt")],
                            object: id)
                    }, happened: { s, p in try s.store.portal.resources(of: p.object).isEmpty }),
                relationship("addRelationship", access), relationship("deleteRelationship", access),
            ]
        }
        return cases
    }

    /// Adds (or deletes) a relationship from a fresh item of the owner's to the demo map.
    static func relationship(_ operation: String, _ access: String) -> MatrixCase {
        let adding = operation == "addRelationship"
        return .post(
            "content/users/:user/\(operation)", access, subject: item(access),
            make: { s, _ in
                let id = try s.freshItem(access: access)
                if !adding { try s.store.portal.addRelationship(ItemRelationship(origin: id, destination: DemoData.demoMapId, type: "Map2Area")) }
                return Probe(
                    path: "\(portal)/content/users/\(eve)/\(operation)",
                    fields: [("f", "json"), ("originItemId", id), ("destinationItemId", DemoData.demoMapId), ("relationshipType", "Map2Area")],
                    object: id)
            },
            happened: { s, p in
                let related = try s.store.portal.relationships(of: p.object).contains { $0.destination == DemoData.demoMapId }
                return related == adding
            })
    }
}
