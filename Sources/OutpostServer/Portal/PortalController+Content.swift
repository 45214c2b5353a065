import Foundation
import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// The portal's changes: items added, updated, shared, deleted; their resources and
/// relationships; folders. Only the owner or an administrator changes an item.
extension PortalController {
    func addChangeRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        for owner in ["content/users/:user", "content/users/:user/:folder"] {
            routes.change(RouterPath(owner + "/addItem"), store: { request, c in try addItem(request, c) })
            routes.change(RouterPath(owner + "/items/:item/update"), store: { request, c in try update(request, c) })
            for (operation, handler) in itemOperations {
                routes.change(RouterPath(owner + "/items/:item/" + operation), store: { _, c in try handler(self)(c) })
            }
        }
        routes.change("content/items/:item/share", store: { _, c in try share(c) })
        routes.change("content/items/:item/unshare", store: { _, c in try unshare(c) })
        routes.change("content/users/:user/shareItems", store: { _, c in try shareItems(c) })
        routes.change("content/users/:user/createFolder", store: { _, c in try createFolder(c) })
        routes.change("content/users/:user/addRelationship", store: { _, c in try relate(c, adding: true) })
        routes.change("content/users/:user/deleteRelationship", store: { _, c in try relate(c, adding: false) })
    }

    private var itemOperations: [(String, @Sendable (PortalController) -> (OutpostRequestContext) throws -> Response)] {
        [
            ("delete", { $0.delete }), ("share", { $0.share }), ("unshare", { $0.unshare }),
            ("addResources", { $0.addResources }), ("updateResources", { $0.addResources }), ("removeResources", { $0.removeResources }),
        ]
    }

    /// The item the path names, if the caller may change it (one they may only see is
    /// forbidden; one they may not see is not found).
    func changeableItem(_ c: OutpostRequestContext) throws -> PortalItem {
        try changeableItem(id: c.parameters.get("item") ?? "", c)
    }

    func changeableItem(id: String, _ c: OutpostRequestContext) throws -> PortalItem {
        let item = try visibleItem(id: id, c)
        guard caller(c).mayChange(item) else {
            throw ArcGISError.forbidden
        }
        guard try store.portal.item(id: id) != nil else {
            throw ArcGISError(kind: .forbidden, message: "A service's item follows its service.", details: ["Change the service instead."])
        }
        return item
    }

    private func addItem(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let owner = try pathUser(c)
        guard caller(c).mayCreate(for: owner) else {
            throw ArcGISError.forbidden
        }
        // With token security, content belongs to a user of the server (or to the server itself).
        guard try !requireAuth || owner == ServiceItems.owner || store.users.user(named: owner) != nil else { throw UserFailure.notFound(owner) }
        let folder = try folderId(owner: owner, c)
        guard let type = p.string("type"), !type.isEmpty else { throw ArcGISError.missingParameter("type") }
        var item = PortalItem(
            id: PortalNames.newId(), owner: owner, title: p.string("title") ?? "", type: type, created: store.clock.milliseconds(),
            ownerFolder: folder)
        try apply(p, to: &item)
        let thumbnail = try thumbnailPart(c)
        // A relationship from another item is a change of that item: checked before anything is added.
        let origin = p.string("originItemId").flatMap { id in p.string("relationshipType").map { (id, $0) } }
        if let (originId, _) = origin { _ = try changeableItem(id: originId, c) }
        let data = try itemData(request, c, item: &item)
        if type == "Web Map", case .text(let text) = data { try WebMapText.check(text) }
        try withItemQuota {
            try checkItemQuota(owner: owner, adding: (data == nil ? 0 : item.size) + Self.describedBytes(item) + Self.size(of: thumbnail))
            try store.portal.addItem(item, data: data)
            if let thumbnail { _ = try store.portal.setThumbnail(item: item.id, name: thumbnail.name, data: .file(path: thumbnail.path)) }
        }
        if let (originId, relationship) = origin {
            try store.portal.addRelationship(ItemRelationship(origin: originId, destination: item.id, type: relationship))
        }
        return RESTResponse.json(["success": true, "id": .string(item.id), "folder": folder.map(JSONValue.string) ?? .null], parameters: p)
    }

    private func update(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let before = try changeableItem(c)
        var item = before
        let p = c.form.parameters
        try OAuthEndpoints.setAPITokenExpirations(p, itemId: item.id, oauth: store.oauth, now: store.clock.milliseconds())
        if try p.bool("clearEmptyFields", default: false) {
            for field in ["snippet", "description"] where p.string(field)?.isEmpty == true { try apply(RequestParameters([(field, "")]), to: &item) }
        }
        try apply(p, to: &item)
        let thumbnail = try thumbnailPart(c)
        item.modified = store.clock.milliseconds()
        let data = try itemData(request, c, item: &item)
        let write = {
            try withItemQuota {
                // New data and description in place of the old ones (a new thumbnail counts whole).
                try checkItemQuota(
                    owner: item.owner, adding: (data == nil ? 0 : item.size) + Self.describedBytes(item) + Self.size(of: thumbnail),
                    replacing: (data == nil ? 0 : before.size) + Self.describedBytes(before))
                try store.portal.updateItem(item, data: data)
                if let thumbnail { _ = try store.portal.setThumbnail(item: item.id, name: thumbnail.name, data: .file(path: thumbnail.path)) }
            }
        }
        if data != nil { try whilePublishable(before, "replace the file of", write) } else { try write() }
        return RESTResponse.json(["success": true, "id": .string(item.id)], parameters: p)
    }

    private func delete(_ c: OutpostRequestContext) throws -> Response {
        if let set = try tileSet(serviceItemId: c.parameters.get("item") ?? "") {
            return try deleteTileService(set, itemId: c.parameters.get("item") ?? "", c)
        }
        if let service = try featureService(serviceItemId: c.parameters.get("item") ?? "") {
            return try deleteFeatureService(service, itemId: c.parameters.get("item") ?? "", c)
        }
        if let task = try task(serviceItemId: c.parameters.get("item") ?? "") {
            return try deleteTask(task, itemId: c.parameters.get("item") ?? "", c)
        }
        let item = try changeableItem(c)
        try whilePublishable(item, "delete") {
            // A map area takes its packages with it (and their replicas are unregistered).
            if item.type == "Map Area" { try MapAreas(backend: store, caller: caller(c)).removePackages(of: item) }
            try store.portal.deleteItem(id: item.id)
            // An Application (or API Key) item takes its OAuth 2.0 registration and keys with it (docs/identity.md).
            if let app = try store.oauth.app(itemId: item.id) { try store.oauth.removeApp(clientId: app.clientId) }
        }
        return RESTResponse.json(["success": true, "itemId": .string(item.id)], parameters: c.form.parameters)
    }

    private func share(_ c: OutpostRequestContext) throws -> Response {
        var item = try changeableItem(c)
        let p = c.form.parameters
        item.access = ItemAccess.shared(everyone: try p.bool("everyone", default: false), org: try p.bool("org", default: false))
        item.modified = store.clock.milliseconds()
        try store.portal.updateItem(item, data: nil)
        // Outpost has no groups: any named are reported as not shared with.
        let groups = (p.string("groups") ?? "").split(separator: ",").map { JSONValue.string(String($0)) }
        return RESTResponse.json(["notSharedWith": .array(groups), "itemId": .string(item.id)], parameters: p)
    }

    /// `shareItems`: `items` (comma-separated ids), `everyone`, `org`, per item as `share`.
    private func shareItems(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let access = ItemAccess.shared(everyone: try p.bool("everyone", default: false), org: try p.bool("org", default: false))
        var results: [JSONValue] = []
        for id in (p.string("items") ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !id.isEmpty {
            do {
                var item = try changeableItem(id: id, c)
                item.access = access
                item.modified = store.clock.milliseconds()
                try store.portal.updateItem(item, data: nil)
                results.append(["itemId": .string(id), "success": true, "notSharedWith": []])
            } catch {
                results.append(["itemId": .string(id), "success": false, "error": ArcGISError(answering: error).json["error"] ?? .null])
            }
        }
        return RESTResponse.json(["results": .array(results)], parameters: p)
    }

    private func unshare(_ c: OutpostRequestContext) throws -> Response {
        let item = try changeableItem(c)
        let groups = (c.form.parameters.string("groups") ?? "").split(separator: ",").map { JSONValue.string(String($0)) }
        return RESTResponse.json(["notUnsharedFrom": .array(groups), "itemId": .string(item.id)], parameters: c.form.parameters)
    }

    private func addResources(_ c: OutpostRequestContext) throws -> Response {
        let item = try changeableItem(c)
        let p = c.form.parameters
        let prefix = p.string("resourcesPrefix").map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
        if let file = c.form.file(named: "file") {
            let name = prefix + (p.string("fileName") ?? file.filename ?? "")
            try withItemQuota {
                try checkItemQuota(owner: item.owner, adding: Int64(file.size))
                _ = try store.portal.addResource(item: item.id, name: name, data: .file(path: file.path))
            }
        } else if let text = p.string("text"), let fileName = p.string("fileName") {
            try withItemQuota {
                try checkItemQuota(owner: item.owner, adding: Int64(text.utf8.count))
                _ = try store.portal.addResource(item: item.id, name: prefix + fileName, data: .bytes(Array(text.utf8)))
            }
        } else {
            throw ArcGISError.missingParameter("file")
        }
        return RESTResponse.json(["success": true, "itemId": .string(item.id), "owner": .string(item.owner)], parameters: p)
    }

    private func removeResources(_ c: OutpostRequestContext) throws -> Response {
        let item = try changeableItem(c)
        let p = c.form.parameters
        if try p.bool("deleteAll", default: false) {
            for resource in try store.portal.resources(of: item.id) { try store.portal.removeResource(item: item.id, name: resource.name) }
        } else {
            guard let name = p.string("resource") else { throw ArcGISError.missingParameter("resource") }
            try store.portal.removeResource(item: item.id, name: name)
        }
        return RESTResponse.json(["success": true], parameters: p)
    }

    private func createFolder(_ c: OutpostRequestContext) throws -> Response {
        let owner = try pathUser(c)
        guard caller(c).mayCreate(for: owner) else {
            throw ArcGISError.forbidden
        }
        guard let title = c.form.parameters.string("title"), !title.isEmpty else { throw ArcGISError.missingParameter("title") }
        let folder = try store.portal.createFolder(owner: owner, title: title)
        return RESTResponse.json(
            ["success": true, "folder": ["username": .string(owner), "id": .string(folder.id), "title": .string(folder.title)]],
            parameters: c.form.parameters)
    }

    /// `addRelationship`/`deleteRelationship`: the caller must be able to change the origin
    /// and to see the destination.
    private func relate(_ c: OutpostRequestContext, adding: Bool) throws -> Response {
        let p = c.form.parameters
        guard let origin = p.string("originItemId") else { throw ArcGISError.missingParameter("originItemId") }
        guard let destination = p.string("destinationItemId") else { throw ArcGISError.missingParameter("destinationItemId") }
        guard let type = p.string("relationshipType"), !type.isEmpty else { throw ArcGISError.missingParameter("relationshipType") }
        _ = try visibleItem(id: destination, c)
        _ = try changeableItem(id: origin, c)
        let relationship = ItemRelationship(origin: origin, destination: destination, type: type)
        try adding ? store.portal.addRelationship(relationship) : store.portal.deleteRelationship(relationship)
        return RESTResponse.json(["success": true], parameters: p)
    }

    // MARK: - Fields

    /// The folder the path names (by id or title), which must be the owner's.
    private func folderId(owner: String, _ c: OutpostRequestContext) throws -> String? {
        guard let folder = c.parameters.get("folder"), folder != "/" else { return nil }
        guard let found = try store.portal.folders(owner: owner).first(where: { $0.id == folder || $0.title == folder }) else {
            throw PortalFailure.folderNotFound(folder)
        }
        return found.id
    }

    /// The description fields `addItem` and `update` take.
    private func apply(_ p: RequestParameters, to item: inout PortalItem) throws {
        func list(_ name: String) -> [String]? {
            p.string(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        if let title = p.string("title") { item.title = title }
        if let type = p.string("type"), !type.isEmpty { item.type = type }
        if let keywords = list("typeKeywords") { item.typeKeywords = keywords }
        if let tags = list("tags") { item.tags = tags }
        if let snippet = p.string("snippet") { item.snippet = snippet }
        if let description = p.string("description") { item.itemDescription = description }
        if let url = p.string("url") { item.url = url.isEmpty ? nil : url }
        if let properties = try p.json("properties") {
            item.properties = item.type == "Map Area" ? MapAreas<Backend>.keepingPackagerProperties(properties, of: item) : properties
        }
        if let reference = p.string("spatialReference") { item.spatialReference = reference }
        if let extent = p.string("extent"), !extent.isEmpty {
            let numbers = extent.split { $0 == "," || $0 == " " }.compactMap { Double($0) }
            guard numbers.count == 4 else { throw ArcGISError.invalidParameter("extent", "xmin,ymin,xmax,ymax") }
            item.extent = [[numbers[0], numbers[1]], [numbers[2], numbers[3]]]
        }
        if let access = p.string("access") {
            guard let value = ItemAccess(rawValue: access) else { throw ArcGISError.invalidParameter("access", "private, org or public") }
            item.access = value
        }
    }

    /// A `thumbnail` file part, checked before anything changes: its name and where it is.
    private func thumbnailPart(_ c: OutpostRequestContext) throws -> (name: String, path: String)? {
        guard let file = c.form.file(named: "thumbnail") else { return nil }
        let given = (file.filename.map { ($0 as NSString).lastPathComponent }) ?? ""
        let name = given.isEmpty ? "thumbnail.png" : given
        // The bytes must be the image the name says: the file is served as that type.
        let header = FileHandle(forReadingAtPath: file.path).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 8)
        }
        guard let kind = ThumbnailImage(fileName: name), PortalNames.isValidResourceName(name), file.size <= ThumbnailImage.maximumBytes,
            header.flatMap({ ThumbnailImage(header: [UInt8]($0)) }) == kind
        else {
            throw ArcGISError.invalidParameter("thumbnail", "a PNG, JPEG or GIF image of at most 10 MiB, named for its format")
        }
        return (name, file.path)
    }

    /// The data a request gives: `text`, or the `file` part (taken over).
    private func itemData(_ request: Request, _ c: OutpostRequestContext, item: inout PortalItem) throws -> ItemData? {
        if let file = c.form.file(named: "file") {
            let name = c.form.parameters.string("fileName") ?? file.filename ?? "data"
            item.name = name
            item.size = Int64(file.size)
            return .file(name: name, path: file.path)
        }
        if let text = c.form.parameters.string("text") {
            item.size = Int64(text.utf8.count)
            return .text(text)
        }
        if let dataUrl = c.form.parameters.string("dataUrl"), !dataUrl.isEmpty {
            let (name, path) = try serverFile(dataUrl: dataUrl, request, c)
            let fileName = c.form.parameters.string("fileName") ?? name
            item.name = fileName
            item.size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
            return .file(name: fileName, path: path)
        }
        return nil
    }
}
