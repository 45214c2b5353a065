import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// The item page (`item.html?id=`): an item as the portal answers it, what it holds (a feature
/// service's layers with their fields and domains, a web map's layers and map areas), its URLs,
/// and the owner's form for its description.
extension HomeController {
    var itemPages: [String: Page] { ["item.html": { try await itemPage($0) }] }

    var itemActions: [String: Action] { ["updateItem": { try await updateItem($0) }] }

    func itemPage(_ home: HomeRequest) async throws -> HomePage {
        let id = home.form.string("id") ?? ""
        if home.session.user == nil, home.session.securityOn { return signInNeeded(home, page: "item.html?id=\(HTMLText.query(id))") }
        let item = try await home.get(HomeRequest.portal + "/content/items/\(HTMLText.query(id))")
        let title = item["title"]?.stringValue ?? id
        var main = itemFacts(item)
        let type = item["type"]?.stringValue ?? ""
        if let url = item["url"]?.stringValue, !url.isEmpty {
            main += "<section aria-labelledby=\"urls\"><h2 id=\"urls\">URL</h2><label for=\"item-url\">Service URL</label>"
            main += "<input id=\"item-url\" readonly size=\"60\" value=\"\(HTMLText.escape(url))\"></section>"
        }
        if type == "Feature Service", let path = HomeInputs.serverPath(item["url"]?.stringValue) {
            main += try await serviceLayers(home, path: path)
        }
        if type == "Web Map" { main += try await webMapContents(home, id: id) }
        if mayChange(item, home.session) { main += itemForm(item, home.session) }
        return HomePage(title: title, section: .content, session: home.session, main: main)
    }

    /// Whether the page offers the item's form: its owner or an admin, for an item the portal
    /// keeps (a service's item follows its service).
    private func mayChange(_ item: JSONValue, _ session: HomeSession) -> Bool {
        guard session.mayCreate, item["typeKeywords"]?.arrayValue?.contains(.string("Service")) != true || item["type"] == "Web Map" else {
            return false
        }
        return session.user.map { $0.username == item["owner"]?.stringValue || $0.isAdmin } ?? !session.securityOn
    }

    private func itemFacts(_ item: JSONValue) -> String {
        let id = item["id"]?.stringValue ?? ""
        var out = "<div class=\"item-head\">"
        if let name = item["thumbnail"]?.stringValue, !name.isEmpty {
            out += "<img class=\"thumb large\" alt=\"Thumbnail of \(HTMLText.escape(item["title"]?.stringValue ?? ""))\" "
            out += "src=\"\(HTMLText.escape(Self.thumbnailSource(id: id, name: name)))\">"
        }
        out += "<dl class=\"facts\">"
        let tags = item["tags"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
        let facts: [(String, String)] = [
            ("Type", item["type"]?.stringValue ?? ""), ("Owner", item["owner"]?.stringValue ?? ""),
            ("Shared with", Self.sharing(item["access"]?.stringValue)), ("Created", HTMLText.date(milliseconds: item["created"]?.int64Value)),
            ("Modified", HTMLText.date(milliseconds: item["modified"]?.int64Value)), ("Size", HTMLText.bytes(item["size"]?.int64Value ?? 0)),
            ("Summary", item["snippet"]?.stringValue ?? ""), ("Tags", tags),
        ]
        for (name, value) in facts where !value.isEmpty { out += "<dt>\(name)</dt><dd>\(HTMLText.escape(value))</dd>" }
        out += "</dl></div>"
        if let description = item["description"]?.stringValue, !description.isEmpty {
            // Shown as text: a description's markup is someone's text, never this page's.
            out += "<section aria-labelledby=\"description\"><h2 id=\"description\">Description</h2>"
            out += "<p class=\"description\">\(HTMLText.escape(description))</p></section>"
        }
        return out
    }

    /// A feature service's layers and tables, each with its fields and domains.
    private func serviceLayers(_ home: HomeRequest, path: String) async throws -> String {
        let service = try await home.get(path)
        let previews =
            "<p><a href=\"\(HTMLText.escape(path))?f=jsapi\">Open a map preview</a> · "
            + "<a href=\"\(HTMLText.escape(path))\">Open in the services directory</a></p>"
        var out = "<section aria-labelledby=\"layers\"><h2 id=\"layers\">Layers and tables</h2>" + previews
        let all = (service["layers"]?.arrayValue ?? []) + (service["tables"]?.arrayValue ?? [])
        for entry in all.prefix(100) {
            guard let layerId = entry["id"]?.int64Value else { continue }
            let layer = try await home.get("\(path)/\(layerId)")
            out += layerSection(layer, id: layerId, url: "\(path)/\(layerId)")
        }
        return out + "</section>"
    }

    private func layerSection(_ layer: JSONValue, id: Int64, url: String) -> String {
        let name = layer["name"]?.stringValue ?? "Layer \(id)"
        let kind =
            layer["type"]?.stringValue == "Table"
            ? "Table" : (layer["geometryType"]?.stringValue ?? "").replacingOccurrences(of: "esriGeometry", with: "")
        var out = "<h3 id=\"layer-\(id)\">\(HTMLText.escape(name)) <span class=\"hint\">(\(HTMLText.escape(kind)))</span></h3>"
        out += "<label for=\"layer-url-\(id)\">URL of \(HTMLText.escape(name))</label><input id=\"layer-url-\(id)\" readonly size=\"60\" "
        out += "value=\"\(HTMLText.escape(url))\">"
        out += "<div class=\"table-wrap\"><table><caption>Fields of \(HTMLText.escape(name))</caption><thead><tr><th scope=\"col\">Name</th>"
        out +=
            "<th scope=\"col\">Alias</th><th scope=\"col\">Type</th><th scope=\"col\">Nullable</th><th scope=\"col\">Domain</th></tr></thead><tbody>"
        for field in layer["fields"]?.arrayValue ?? [] {
            let type = (field["type"]?.stringValue ?? "").replacingOccurrences(of: "esriFieldType", with: "")
            out += "<tr><th scope=\"row\">\(HTMLText.escape(field["name"]?.stringValue ?? ""))</th>"
            out += "<td>\(HTMLText.escape(field["alias"]?.stringValue ?? ""))</td><td>\(HTMLText.escape(type))</td>"
            out += "<td>\(field["nullable"]?.boolValue == false ? "No" : "Yes")</td><td>\(Self.domain(field["domain"]))</td></tr>"
        }
        return out + "</tbody></table></div>"
    }

    /// A field's domain as text: a coded-value domain's codes and names, a range's bounds.
    static func domain(_ domain: JSONValue?) -> String {
        guard let domain, domain.objectValue != nil else { return "" }
        let name = HTMLText.escape(domain["name"]?.stringValue ?? "")
        if let codes = domain["codedValues"]?.arrayValue {
            let listed = codes.prefix(50).map { code -> String in
                let value = code["code"].map { $0.stringValue ?? $0.jsonText } ?? ""
                return "<li>\(HTMLText.escape(value)): \(HTMLText.escape(code["name"]?.stringValue ?? ""))</li>"
            }
            return "\(name)<ul class=\"codes\">\(listed.joined())</ul>"
        }
        if let range = domain["range"]?.arrayValue, range.count == 2 {
            return "\(name) (\(HTMLText.escape(range[0].jsonText)) to \(HTMLText.escape(range[1].jsonText)))"
        }
        return name
    }

    /// A web map's layers, its viewer and its map areas.
    private func webMapContents(_ home: HomeRequest, id: String) async throws -> String {
        let data = try await home.get(HomeRequest.portal + "/content/items/\(HTMLText.query(id))/data")
        var out = "<section aria-labelledby=\"map-layers\"><h2 id=\"map-layers\">Layers</h2>"
        out +=
            "<p><a class=\"button\" id=\"open-viewer\" href=\"/arcgis/home/webmap/viewer.html?webmap=\(HTMLText.query(id))\">Open in map viewer</a></p><ul>"
        for layer in data["operationalLayers"]?.arrayValue ?? [] {
            out +=
                "<li>\(HTMLText.escape(layer["title"]?.stringValue ?? "Layer")) <span class=\"hint\">\(HTMLText.escape(layer["url"]?.stringValue ?? ""))</span></li>"
        }
        for layer in data["baseMap"]?["baseMapLayers"]?.arrayValue ?? [] {
            out += "<li>Basemap: \(HTMLText.escape(layer["title"]?.stringValue ?? layer["url"]?.stringValue ?? ""))</li>"
        }
        out += "</ul></section>"
        return out + (try await mapAreasSection(home, mapId: id))
    }

    private func itemForm(_ item: JSONValue, _ session: HomeSession) -> String {
        let id = item["id"]?.stringValue ?? ""
        let tags = item["tags"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
        var out = "<section aria-labelledby=\"edit\"><h2 id=\"edit\">Edit details</h2>"
        out += "<form method=\"post\" action=\"/arcgis/home/actions/updateItem\" id=\"item-form\" enctype=\"multipart/form-data\">"
        out += HTMLText.csrfField(session)
        out += "<input type=\"hidden\" name=\"id\" value=\"\(HTMLText.escape(id))\">"
        out += "<input type=\"hidden\" name=\"return\" value=\"item.html?id=\(HTMLText.escape(HTMLText.query(id)))\">"
        out += "<label for=\"item-title\">Title</label><input id=\"item-title\" name=\"title\" required maxlength=\"250\" "
        out += "value=\"\(HTMLText.escape(item["title"]?.stringValue ?? ""))\">"
        out += "<label for=\"item-snippet\">Summary</label><input id=\"item-snippet\" name=\"snippet\" maxlength=\"2048\" "
        out += "value=\"\(HTMLText.escape(item["snippet"]?.stringValue ?? ""))\">"
        out += "<label for=\"item-description\">Description</label><textarea id=\"item-description\" name=\"description\">"
        out += "\(HTMLText.escape(item["description"]?.stringValue ?? ""))</textarea>"
        out += "<label for=\"item-tags\">Tags <span class=\"hint\">(separated by commas)</span></label><input id=\"item-tags\" name=\"tags\" "
        out += "value=\"\(HTMLText.escape(tags))\">"
        out += "<label for=\"item-thumbnail\">New thumbnail <span class=\"hint\">(PNG, JPEG or GIF; 200 × 133 looks best)</span></label>"
        out += "<input id=\"item-thumbnail\" type=\"file\" name=\"thumbnail\" accept=\".png,.jpg,.jpeg,.gif\">"
        out += "<p><button type=\"submit\">Save</button></p></form></section>"
        return out
    }

    /// `updateItem`: the item's details through the portal's `update`, as its owner's path names it.
    func updateItem(_ home: HomeRequest) async throws -> Response {
        let id = home.form.string("id") ?? ""
        let item = try await home.get(HomeRequest.portal + "/content/items/\(HTMLText.query(id))")
        let owner = item["owner"]?.stringValue ?? ""
        var fields: [(String, String)] = []
        for name in ["title", "snippet", "description", "tags"] {
            if let value = home.form.string(name) { fields.append((name, value)) }
        }
        // A new thumbnail goes on as the `update`'s `thumbnail` part; the portal checks it is the image its name says.
        let picture = home.context.form.file(named: "thumbnail").flatMap { file -> HomeUpload? in
            guard file.size > 0 else { return nil }
            return HomeUpload(field: "thumbnail", filename: ((file.filename ?? "thumbnail.png") as NSString).lastPathComponent, path: file.path)
        }
        defer { home.context.form.discardFiles() }
        _ = try await home.post(
            HomeRequest.portal + "/content/users/\(HTMLText.query(owner))/items/\(HTMLText.query(id))/update", fields, file: picture)
        return home.redirect(to: "item.html?id=\(HTMLText.query(id))", done: "Saved.")
    }
}

extension HomeAssets {
    static var itemScripts: [String: String] { [:] }
}
