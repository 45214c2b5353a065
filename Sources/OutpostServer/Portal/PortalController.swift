import Foundation
import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// The portal (`/arcgis/sharing/rest`, also `/sharing/rest`): its description, users, items
/// with their data, resources and relationships, and search (docs/portal.md). Items are
/// filtered by `PortalCaller` before anything about them is answered: an item a caller may
/// not see is "not found", never "forbidden".
struct PortalController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let requireAuth: Bool
    /// Where clients reach this server, as the URLs it writes name it.
    let origin: ServerOrigin
    let tokenMinutes: Int
    /// Result files (export packages, replica files) an item's `dataUrl` may name.
    let files: ResultFiles
    /// Map areas per web map, as `portals/self` says (`maxMapAreaItemsLimit`).
    let maxMapAreas: Int
    /// Bytes of item data and resources one owner may hold (0: no quota).
    var itemQuotaBytes: Int64 = 0
    /// The tiles served from memory, forgotten when a tile service is deleted.
    var tileCache: TileCache? = nil
    /// The publishes running in this process (their file items and names are theirs).
    var publishes = PublishesInFlight()

    /// The organisation's id (`portals/self.id`; the ArcGIS API for Python adds
    /// `accountid:<id>` to its searches).
    static var organizationId: String { "0utp0st0rg" }
    static var currentVersion: String { "2024.1" }

    func caller(_ context: OutpostRequestContext) -> PortalCaller {
        PortalCaller(user: context.user, securityOn: requireAuth)
    }

    func server(_ request: Request) -> String { origin.of(request) }

    /// Read routes: anyone, a token naming the caller.
    func addReadRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes
            .read("") { _, c in RESTResponse.json(["currentVersion": .string(Self.currentVersion)], parameters: c.form.parameters) }
            .read("info") { request, c in info(request, c) }
            .read("portals/self", store: { request, c in try portalSelf(request, c) })
            .read("portals/:portal/roles", store: { _, c in try roles(c) })
            .read("community/self", store: { _, c in try communitySelf(c) })
            .read("community/users/:user", store: { _, c in try communityUser(c) })
            .read("search", store: { request, c in try search(request, c) })
            .read(
                "content/items/:item",
                store: { request, c in
                    RESTResponse.json(answerJSON(try visibleItem(c), request), parameters: c.form.parameters)
                }
            )
            .read("content/items/:item/data") { request, c in try await data(request, c) }
            .read("content/items/:item/relatedItems", store: { request, c in try relatedItems(request, c) })
            .read(
                "content/items/:item/groups",
                store: { _, c in
                    // The groups an item is shared with: Outpost has none.
                    _ = try visibleItem(c)
                    return RESTResponse.json(["admin": [], "member": [], "other": []], parameters: c.form.parameters)
                }
            )
            .read("content/items/:item/resources", store: { _, c in try resources(c) })
            .read("content/items/:item/resources/**") { _, c in try await resource(c) }
            .read("content/items/:item/info/**") { _, c in try await thumbnail(c) }
            .read("content/users/:user", store: { request, c in try userContent(request, c, folder: nil) })
            .read("content/users/:user/items/:item", store: { request, c in try ownedItem(request, c) })
            .read("content/users/:user/items/:item/status", store: { _, c in try status(c) })
            .read("content/users/:user/:folder", store: { request, c in try userContent(request, c, folder: c.parameters.get("folder")) })
            .read("content/users/:user/:folder/items/:item", store: { request, c in try ownedItem(request, c) })
            .read("content/users/:user/:folder/items/:item/status", store: { _, c in try status(c) })
            .read("content/users/:user/items/:item/registeredAppInfo", store: { _, c in try registeredAppInfo(c) })
            .read("content/users/:user/:folder/items/:item/registeredAppInfo", store: { _, c in try registeredAppInfo(c) })
            .read("portals/self/apiKeys", store: { _, c in try apiKeys(c) })
            .read("**") { request, _ in
                // As `rest/**`: ArcGIS's error envelope, not an empty 404 (the API for Python
                // 2.4.4's OAuth client drops its token after any 4xx status).
                throw ArcGISError(
                    kind: .notFound, message: "Requested resource not found.", details: ["Outpost has no resource at \(request.uri.path)."])
            }
    }

    private func info(_ request: Request, _ c: OutpostRequestContext) -> Response {
        RESTResponse.json(
            [
                "owningSystemUrl": .string(server(request) + "/arcgis"),
                "authInfo": [
                    "tokenServicesUrl": .string(server(request) + "/arcgis/sharing/rest/generateToken"), "isTokenBasedSecurity": true,
                    "shortLivedTokenValidity": .int(Int64(tokenMinutes)),
                ],
            ], parameters: c.form.parameters)
    }

    private func portalSelf(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let base = server(request)
        let tasks = try taskHelperServices(base: base, anonymous: c.user == nil)
        var answer: JSONObject = [
            "portalName": "Outpost", "name": "Outpost", "id": .string(Self.organizationId), "isPortal": true, "portalMode": "singletenant",
            "currentVersion": .string(Self.currentVersion), "allSSL": .bool(origin.scheme == "https"),
            "access": .string(requireAuth ? "private" : "public"),
            "urlKey": .null, "customBaseUrl": .null, "portalHostname": .string(origin.authority(of: request)),
            "supportsOAuth": true, "canSearchPublic": true, "canSharePublic": true, "maxTokenExpirationMinutes": .int(Int64(tokenMinutes)),
            "helperServices": [
                "packaging": [
                    "url": .string(base + "/arcgis/rest/services/System/OfflinePackaging/GPServer"), "maxMapAreaItemsLimit": .int(Int64(maxMapAreas)),
                ],
                "geocode": tasks.geocode,
            ],
            "defaultExtent": ["xmin": -180, "ymin": -90, "xmax": 180, "ymax": 90, "spatialReference": ["wkid": 4326]],
        ]
        if let route = tasks.route, case .object(var helpers)? = answer["helperServices"] {
            helpers["route"] = route
            answer["helperServices"] = .object(helpers)
        }
        answer["user"] = try c.user.map { try userJSON($0, for: $0) } ?? .null
        return RESTResponse.json(.object(answer), parameters: c.form.parameters)
    }

    // MARK: - Items

    /// Every item the portal has: its own, then one per service.
    func allItems(_ request: Request) throws -> [PortalItem] {
        try store.portal.items() + serviceItems(server: server(request))
    }

    /// The items of the server's services, their URLs below `server` (empty: left relative).
    func serviceItems(server: String) throws -> [PortalItem] {
        try ServiceItems.items(in: store, server: server, securityOn: requireAuth)
    }

    /// The item the path names, if the caller may see it.
    func visibleItem(_ c: OutpostRequestContext, _ request: Request? = nil) throws -> PortalItem {
        try visibleItem(id: c.parameters.get("item") ?? "", c, request)
    }

    func visibleItem(id: String, _ c: OutpostRequestContext, _ request: Request? = nil) throws -> PortalItem {
        let item =
            try store.portal.item(id: id)
            ?? serviceItems(server: request.map(server) ?? "").first { $0.id == id }
        guard let item, caller(c).maySee(item) else { throw PortalFailure.itemNotFound(id) }
        return item
    }

    /// An item's JSON, server-relative URLs made absolute for the asking host.
    func answerJSON(_ item: PortalItem, _ request: Request) -> JSONValue {
        var item = item
        if let url = item.url, url.hasPrefix("/arcgis/") { item.url = server(request) + url }
        return item.json
    }

    private func ownedItem(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let item = try visibleItem(c, request)
        return RESTResponse.json(
            ["item": answerJSON(item, request), "sharing": ["access": .string(item.access.rawValue), "groups": []]], parameters: c.form.parameters)
    }

    /// An item's status, or with `jobId` a publish job's (its own and admins' to read).
    private func status(_ c: OutpostRequestContext) throws -> Response {
        let id = c.parameters.get("item") ?? ""
        if let jobId = c.form.parameters.string("jobId"), !jobId.isEmpty {
            // Under token security a job is its owner's and the admins' to follow, never anonymous.
            guard let job = try store.jobs.job(id: jobId), job.kind == .publish, job.replicaId == id, c.user != nil || !requireAuth,
                c.mayManage(replicaOwner: job.owner)
            else {
                throw ArcGISError(kind: .notFound, message: "Job not found.", details: ["No publish job '\(jobId)' for item '\(id)'."])
            }
            return RESTResponse.json(PublishStatus(job).json, parameters: c.form.parameters)
        }
        let item = try visibleItem(c)
        return RESTResponse.json(["status": "completed", "statusMessage": "", "itemId": .string(item.id)], parameters: c.form.parameters)
    }

    private func data(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let data = try await StoreCall.run { try store.portal.data(of: try visibleItem(c, request).id) }
        switch data {
        case nil:
            return RESTResponse.json(.object([:]), parameters: c.form.parameters)
        case .text(let text):
            guard let json = try? JSONParser.parse(text) else {
                return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
            }
            return RESTResponse.json(ServerRelativeURLs.absolute(json, server: server(request)), parameters: c.form.parameters)
        case .file(let name, let path):
            return try await Self.file(path: path, name: name, context: c)
        }
    }

    private func relatedItems(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let item = try visibleItem(c, request)
        let types = Set(
            (p.string(anyOf: ["relationshipTypes", "relationshipType"]) ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            })
        let direction = (p.string("direction") ?? "forward").lowercased()
        guard direction == "forward" || direction == "reverse" else { throw ArcGISError.invalidParameter("direction", "forward or reverse") }
        let ids = try store.portal.relationships(of: item.id).filter { types.isEmpty || types.contains($0.type.lowercased()) }.compactMap {
            direction == "forward" ? ($0.origin == item.id ? $0.destination : nil) : ($0.destination == item.id ? $0.origin : nil)
        }
        let visible = try ids.compactMap { try store.portal.item(id: $0) }.filter(caller(c).maySee)
        let page = try Paging(p, total: visible.count)
        return RESTResponse.json(
            page.answer(["relatedItems": .array(visible[page.range].map { answerJSON($0, request) })]), parameters: p)
    }

    private func resources(_ c: OutpostRequestContext) throws -> Response {
        let item = try visibleItem(c)
        let all = try store.portal.resources(of: item.id)
        let page = try Paging(c.form.parameters, total: all.count)
        let listed: [JSONValue] = all[page.range].map {
            ["resource": .string($0.name), "created": .int($0.created), "size": .int($0.size), "access": .string(item.access.rawValue)]
        }
        return RESTResponse.json(page.answer(["resources": .array(listed)]), parameters: c.form.parameters)
    }

    private func resource(_ c: OutpostRequestContext) async throws -> Response {
        let name = c.parameters.getCatchAll().joined(separator: "/")
        let resource = try await StoreCall.run {
            try store.portal.resources(of: try visibleItem(c).id).first { $0.name == name }
        }
        guard let resource else { throw PortalFailure.resourceNotFound(name) }
        return try await Self.file(path: resource.path, name: (name as NSString).lastPathComponent, context: c)
    }

    /// `info/thumbnail/<name>`: the item's thumbnail (the item's other `info/` files are not kept).
    private func thumbnail(_ c: OutpostRequestContext) async throws -> Response {
        let name = c.parameters.getCatchAll().joined(separator: "/")
        let path = try await StoreCall.run { () -> String? in
            let item = try visibleItem(c)
            return item.thumbnail == name ? try store.portal.thumbnailPath(item: item.id) : nil
        }
        guard let path else { throw PortalFailure.resourceNotFound(name) }
        return try await Self.file(path: path, name: (name as NSString).lastPathComponent, context: c)
    }

    /// A stored file, streamed from disk.
    static func file(path: String, name: String, context: OutpostRequestContext) async throws -> Response {
        let types = [
            "json": "application/json", "gpkg": "application/geopackage+sqlite3", "png": "image/png", "jpg": "image/jpeg", "zip": "application/zip",
        ]
        let type = types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(
            status: .ok, headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""], body: body)
    }

    private func userContent(_ request: Request, _ c: OutpostRequestContext, folder: String?) throws -> Response {
        let owner = try pathUser(c)
        let caller = caller(c)
        let folders = caller.maySeeFolders(of: owner) ? try store.portal.folders(owner: owner) : []
        var current: JSONValue = .null
        if let folder {
            guard let found = folders.first(where: { $0.id == folder || $0.title.caseInsensitiveCompare(folder) == .orderedSame }) else {
                throw PortalFailure.folderNotFound(folder)
            }
            current = found.json
        }
        let folderId = current["id"]?.stringValue
        let items = try Self.sorted(
            store.portal.items().filter {
                $0.owner.caseInsensitiveCompare(owner) == .orderedSame && $0.ownerFolder == folderId && caller.maySee($0)
            }, c.form.parameters)
        let page = try Paging(c.form.parameters, total: items.count)
        return RESTResponse.json(
            page.answer([
                "username": .string(owner), "currentFolder": current, "items": .array(items[page.range].map { answerJSON($0, request) }),
                "folders": .array(
                    folderId == nil
                        ? folders.map(\.json)
                        : []),
            ]), parameters: c.form.parameters)
    }
}
