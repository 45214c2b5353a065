import Foundation
import Hummingbird
import OutpostWire

/// "My content" (`content.html`): the signed-in user's items and folders, as the portal's
/// `content/users/<user>` answers them, with folders made, items shared and deleted through
/// the portal's own operations.
extension HomeController {
    var contentPages: [String: Page] { ["content.html": { try await contentPage($0) }] }

    var contentActions: [String: Action] {
        [
            "createFolder": { try await createFolder($0) }, "share": { try await share($0) },
            "deleteItem": { try await deleteItem($0) },
        ]
    }

    /// Items per page of the listing.
    static let contentPageSize = 100

    func contentPage(_ home: HomeRequest) async throws -> HomePage {
        guard let user = home.session.user else {
            if home.session.securityOn { return signInNeeded(home, page: "content.html") }
            return try await serverContentPage(home)
        }
        if home.form.string("view") == "all", home.session.isAdmin { return try await allItemsPage(home) }
        let folder = home.form.string("folder").flatMap { $0.isEmpty ? nil : $0 }
        let sort = Self.contentSorts.first { $0.key == home.form.string("sort") }
        let path = HomeRequest.portal + "/content/users/\(HTMLText.query(user.username))" + (folder.map { "/\(HTMLText.query($0))" } ?? "")
        var query = [("start", "\(Self.start(home))"), ("num", "\(Self.contentPageSize)")]
        if let sort { query += [("sortField", sort.field), ("sortOrder", sort.order)] }
        let answer = try await home.get(path, query)
        let parameters = [folder.map { "folder=\(HTMLText.query($0))" }, sort.map { "sort=\($0.key)" }].compactMap { $0 }
        let here = "content.html" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
        if home.form.string("confirm") == "delete", let id = home.form.string("id") {
            return try await deleteConfirmation(home, id: id, back: here)
        }
        var main = ""
        if let current = answer["currentFolder"], let title = current["title"]?.stringValue {
            main += "<p>Folder <strong>\(HTMLText.escape(title))</strong> · <a href=\"/arcgis/home/content.html\">All my content</a></p>"
        }
        if home.session.isAdmin {
            main += "<p><a id=\"all-items\" href=\"/arcgis/home/content.html?view=all\">All the organisation's items</a></p>"
        }
        main += folderList(answer, user: user.username)
        main += sortLinks(folder: folder, current: sort?.key)
        main += itemTable(answer, home: home, here: here, caption: "Items of \(user.fullName)")
        main += pager(answer, here: here)
        if home.session.mayCreate, folder == nil { main += folderForm(home.session) }
        if home.session.mayCreate, folder == nil { main += uploadForm(session: home.session) }
        return HomePage(title: "My content", section: .content, session: home.session, main: main)
    }

    /// The orders the listing offers: the page's `sort` value, the portal's `sortField` and `sortOrder`.
    static let contentSorts: [(key: String, field: String, order: String, label: String)] = [
        ("title", "title", "asc", "Title"), ("modified", "modified", "desc", "Modified (newest first)"), ("type", "type", "asc", "Type"),
    ]

    /// The first item of the page `page` (1-based) asks for.
    static func start(_ home: HomeRequest) -> Int {
        let page = max(1, min(home.form.string("page").flatMap(Int.init) ?? 1, 100_000))
        return (page - 1) * contentPageSize + 1
    }

    private func sortLinks(folder: String?, current: String?) -> String {
        var out = "<nav aria-label=\"Sort\" id=\"sort\"><p>Sort by: "
        out += Self.contentSorts.map { sort in
            let href = "/arcgis/home/content.html?" + (folder.map { "folder=\(HTMLText.query($0))&amp;" } ?? "") + "sort=\(sort.key)"
            let currentMark = sort.key == current ? " aria-current=\"true\"" : ""
            return "<a href=\"\(href)\"\(currentMark)>\(sort.label)</a>"
        }.joined(separator: " · ")
        return out + "</p></nav>"
    }

    /// An administrator's view of every item of the organisation, through `search`.
    private func allItemsPage(_ home: HomeRequest) async throws -> HomePage {
        let answer = try await home.get(
            HomeRequest.portal + "/search",
            [("q", "*"), ("start", "\(Self.start(home))"), ("num", "\(Self.contentPageSize)"), ("sortField", "title")])
        var main = "<p><a href=\"/arcgis/home/content.html\">My content</a></p>"
        main += itemTable(
            ["items": answer["results"] ?? .array([])], home: home, here: "content.html?view=all", caption: "All the organisation's items")
        main += pager(answer, here: "content.html?view=all")
        return HomePage(title: "All items", section: .content, session: home.session, main: main)
    }

    /// Without token security and nobody signed in: the server's items, read-only.
    private func serverContentPage(_ home: HomeRequest) async throws -> HomePage {
        let answer = try await home.get(HomeRequest.portal + "/search", [("q", "*"), ("num", "\(Self.contentPageSize)"), ("sortField", "title")])
        let main =
            "<p>Token security is off and nobody is signed in: these are the server's items.</p>"
            + itemTable(["items": answer["results"] ?? .array([])], home: home, here: "content.html", caption: "The server's items")
        return HomePage(title: "Content", section: .content, session: home.session, main: main)
    }

    private func folderList(_ answer: JSONValue, user: String) -> String {
        guard let folders = answer["folders"]?.arrayValue, !folders.isEmpty else { return "" }
        var out = "<nav aria-label=\"Folders\"><h2>Folders</h2><ul>"
        for folder in folders {
            let id = folder["id"]?.stringValue ?? ""
            let title = folder["title"]?.stringValue ?? id
            out += "<li><a href=\"/arcgis/home/content.html?folder=\(HTMLText.query(id))\">\(HTMLText.escape(title))</a></li>"
        }
        return out + "</ul></nav>"
    }

    /// The items as a table: thumbnail, title, type, sharing, size, modified, and the owner's controls.
    func itemTable(_ answer: JSONValue, home: HomeRequest, here: String, caption: String) -> String {
        let items = answer["items"]?.arrayValue ?? []
        guard !items.isEmpty else { return "<p>There are no items here yet.</p>" }
        var out = "<div class=\"table-wrap\"><table id=\"items\"><caption>\(HTMLText.escape(caption))</caption><thead><tr>"
        out += "<th scope=\"col\">Thumbnail</th><th scope=\"col\">Title</th><th scope=\"col\">Type</th><th scope=\"col\">Shared with</th>"
        out += "<th scope=\"col\">Size</th><th scope=\"col\">Modified</th>"
        let controls = home.session.mayCreate && home.session.user != nil
        if controls { out += "<th scope=\"col\">Actions</th>" }
        out += "</tr></thead><tbody>"
        for item in items {
            let id = item["id"]?.stringValue ?? ""
            let title = item["title"]?.stringValue ?? id
            out += "<tr><td>\(thumbnail(item))</td>"
            out += "<th scope=\"row\"><a href=\"/arcgis/home/item.html?id=\(HTMLText.query(id))\">\(HTMLText.escape(title))</a></th>"
            out += "<td>\(HTMLText.escape(item["type"]?.stringValue ?? ""))</td><td>\(Self.sharing(item["access"]?.stringValue))</td>"
            out += "<td>\(HTMLText.bytes(item["size"]?.int64Value ?? 0))</td><td>\(HTMLText.date(milliseconds: item["modified"]?.int64Value))</td>"
            if controls { out += "<td>\(itemControls(item, home: home, here: here))</td>" }
            out += "</tr>"
        }
        return out + "</tbody></table></div>"
    }

    private func thumbnail(_ item: JSONValue) -> String {
        guard let id = item["id"]?.stringValue, let name = item["thumbnail"]?.stringValue, !name.isEmpty else {
            return "<span class=\"thumb placeholder\" aria-hidden=\"true\"></span>"
        }
        return "<img class=\"thumb\" alt=\"\" src=\"\(HTMLText.escape(Self.thumbnailSource(id: id, name: name)))\">"
    }

    static func sharing(_ access: String?) -> String {
        switch access {
        case "public": "Everyone"
        case "org", "shared": "Organization"
        default: "Private (owner)"
        }
    }

    /// Sharing and delete for an item the signed-in user owns (or any, for an admin).
    private func itemControls(_ item: JSONValue, home: HomeRequest, here: String) -> String {
        let id = item["id"]?.stringValue ?? ""
        let title = item["title"]?.stringValue ?? id
        guard item["owner"]?.stringValue == home.session.user?.username || home.session.isAdmin else { return "" }
        var out = "<form method=\"post\" action=\"/arcgis/home/actions/share\" class=\"inline\">\(HTMLText.csrfField(home.session))"
        out +=
            "<input type=\"hidden\" name=\"id\" value=\"\(HTMLText.escape(id))\"><input type=\"hidden\" name=\"return\" value=\"\(HTMLText.escape(here))\">"
        out += "<label for=\"share-\(HTMLText.escape(id))\">Share '\(HTMLText.escape(title))' with</label>"
        out += "<select id=\"share-\(HTMLText.escape(id))\" name=\"access\">"
        for (value, label) in [("private", "Private (owner)"), ("org", "Organization"), ("public", "Everyone")] {
            let selected = Self.sharing(item["access"]?.stringValue) == label ? " selected" : ""
            out += "<option value=\"\(value)\"\(selected)>\(label)</option>"
        }
        out += "</select> <button type=\"submit\">Share</button></form> "
        let separator = here.contains("?") ? "&amp;" : "?"
        out += "<a class=\"button danger\" href=\"/arcgis/home/\(HTMLText.escape(here))\(separator)confirm=delete&amp;id=\(HTMLText.query(id))\">"
        return out + "Delete<span class=\"visually-hidden\"> '\(HTMLText.escape(title))'</span></a>"
    }

    private func pager(_ answer: JSONValue, here: String) -> String {
        let start = Int(answer["start"]?.int64Value ?? 1)
        let page = (start - 1) / Self.contentPageSize + 1
        let total = Int(answer["total"]?.int64Value ?? 0)
        let next = Int(answer["nextStart"]?.int64Value ?? -1)
        guard total > Self.contentPageSize else { return "" }
        let separator = here.contains("?") ? "&amp;" : "?"
        var out = "<nav aria-label=\"Pages\"><p>Items \(start)–\(min(total, start + Self.contentPageSize - 1)) of \(total). "
        if start > 1 {
            out += "<a id=\"previous-page\" href=\"/arcgis/home/\(HTMLText.escape(here))\(separator)page=\(page - 1)\">Previous</a> "
        }
        if next > 0 { out += "<a id=\"next-page\" href=\"/arcgis/home/\(HTMLText.escape(here))\(separator)page=\(page + 1)\">Next</a>" }
        return out + "</p></nav>"
    }

    private func folderForm(_ session: HomeSession) -> String {
        "<section aria-labelledby=\"new-folder\"><h2 id=\"new-folder\">New folder</h2>"
            + "<form method=\"post\" action=\"/arcgis/home/actions/createFolder\">\(HTMLText.csrfField(session))"
            + "<input type=\"hidden\" name=\"return\" value=\"content.html\"><label for=\"folder-title\">Folder name</label>"
            + "<input id=\"folder-title\" name=\"title\" required maxlength=\"120\"> <button type=\"submit\">Create folder</button></form></section>"
    }

    /// The second step of a delete: what will go, and the button that does it.
    private func deleteConfirmation(_ home: HomeRequest, id: String, back: String) async throws -> HomePage {
        let item = try await home.get(HomeRequest.portal + "/content/items/\(HTMLText.query(id))")
        let title = item["title"]?.stringValue ?? id
        var main = "<div class=\"panel\" role=\"alert\"><p>Delete <strong>\(HTMLText.escape(title))</strong> "
        main += "(\(HTMLText.escape(item["type"]?.stringValue ?? "item")))? This cannot be undone.</p>"
        if item["type"]?.stringValue == "Feature Service" {
            // The server refuses while devices hold replicas; say so before, and where to unregister them.
            main += "<p>The service goes with all its data. Devices holding a replica of it must be unregistered first, on the "
            main += "<a href=\"/arcgis/home/devices.html?service=\(HTMLText.query(title))\">devices page</a>.</p>"
        }
        main += "<form method=\"post\" action=\"/arcgis/home/actions/deleteItem\">\(HTMLText.csrfField(home.session))"
        main +=
            "<input type=\"hidden\" name=\"id\" value=\"\(HTMLText.escape(id))\"><input type=\"hidden\" name=\"return\" value=\"\(HTMLText.escape(back))\">"
        main += "<button type=\"submit\" class=\"danger\" id=\"confirm-delete\">Delete '\(HTMLText.escape(title))'</button> "
        main += "<a href=\"/arcgis/home/\(HTMLText.escape(back))\">Cancel</a></form></div>"
        return HomePage(title: "Delete an item", section: .content, session: home.session, main: main)
    }

    // MARK: - Actions

    /// The owner of an item, as the portal answers it (the path of its changes names them).
    private func owner(of id: String, _ home: HomeRequest) async throws -> String {
        let item = try await home.get(HomeRequest.portal + "/content/items/\(HTMLText.query(id))")
        return item["owner"]?.stringValue ?? ""
    }

    func createFolder(_ home: HomeRequest) async throws -> Response {
        let user = home.session.user?.username ?? ""
        let title = home.form.string("title") ?? ""
        _ = try await home.post(HomeRequest.portal + "/content/users/\(HTMLText.query(user))/createFolder", [("title", title)])
        return home.redirect(to: "content.html", done: "Folder '\(title)' created.")
    }

    func share(_ home: HomeRequest) async throws -> Response {
        let id = home.form.string("id") ?? ""
        let access = home.form.string("access") ?? "private"
        let owner = try await owner(of: id, home)
        _ = try await home.post(
            HomeRequest.portal + "/content/users/\(HTMLText.query(owner))/items/\(HTMLText.query(id))/share",
            [("everyone", access == "public" ? "true" : "false"), ("org", access == "private" ? "false" : "true")])
        return home.redirect(to: home.returnPath ?? "content.html", done: "Sharing changed: \(Self.sharing(access)).")
    }

    func deleteItem(_ home: HomeRequest) async throws -> Response {
        let id = home.form.string("id") ?? ""
        let item = try await home.deletePortalItem(id)
        let back = (home.returnPath ?? "content.html").split(separator: "?").first.map(String.init) ?? "content.html"
        return home.redirect(to: back, done: "'\(item["title"]?.stringValue ?? id)' deleted.")
    }
}

extension HomeAssets {
    static var contentScripts: [String: String] { [:] }
}
