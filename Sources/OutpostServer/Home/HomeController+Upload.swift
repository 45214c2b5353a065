import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// Data in (`content.html`'s upload form, `publishing.html`): a file becomes an item through
/// the portal's `addItem`, then a feature or tile service through its `publish`, as a client does it;
/// the publishing page follows the job through the item's `status` and shows its warnings.
extension HomeController {
    var uploadPages: [String: Page] { ["publishing.html": { try await publishingPage($0) }] }
    var uploadActions: [String: Action] { ["upload": { try await upload($0) }] }

    /// The kinds of file the form offers: `filetype`, label, what the file chooser accepts.
    static let uploadKinds: [(format: PublishFileType, label: String, accept: String)] = [
        (.shapefile, "Shapefile (zipped)", ".zip"), (.fileGeodatabase, "File Geodatabase (zipped)", ".zip"),
        (.geoPackage, "GeoPackage", ".gpkg"), (.csv, "CSV with coordinates (longitude, latitude or WKT)", ".csv"),
        (.geojson, "GeoJSON", ".geojson,.json"), (.kml, "KML", ".kml"), (.mbtiles, "MBTiles (raster or vector tiles)", ".mbtiles"),
    ]

    func uploadForm(session: HomeSession) -> String {
        var out = "<section aria-labelledby=\"add-data\"><h2 id=\"add-data\">Add data</h2>"
        out += "<p>The file becomes an item and a service others can take offline: features, or tiles from an MBTiles file.</p>"
        out += "<form method=\"post\" action=\"/arcgis/home/actions/upload\" enctype=\"multipart/form-data\">\(HTMLText.csrfField(session))"
        out += "<p><label for=\"upload-kind\">Kind of file</label><select id=\"upload-kind\" name=\"filetype\">"
        for kind in Self.uploadKinds { out += "<option value=\"\(kind.format.rawValue)\">\(HTMLText.escape(kind.label))</option>" }
        out += "</select></p>"
        let accept = Set(Self.uploadKinds.flatMap { $0.accept.split(separator: ",") }).sorted().joined(separator: ",")
        out += "<p><label for=\"upload-file\">File</label><input id=\"upload-file\" type=\"file\" name=\"file\" required accept=\"\(accept)\"></p>"
        out += "<p><label for=\"upload-title\">Title</label><input id=\"upload-title\" name=\"title\" maxlength=\"200\" "
        out += "aria-describedby=\"upload-title-hint\"> <span id=\"upload-title-hint\" class=\"hint\">Empty: the file's name.</span></p>"
        out += "<p><label for=\"upload-name\">Service name</label><input id=\"upload-name\" name=\"name\" maxlength=\"100\" "
        out += "pattern=\"[A-Za-z0-9_\\-]+\" aria-describedby=\"upload-name-hint\"> "
        out += "<span id=\"upload-name-hint\" class=\"hint\">Letters, digits, _ and -. Empty: from the title.</span></p>"
        out += "<p><button type=\"submit\" id=\"upload-submit\">Upload and publish</button></p></form></section>"
        return out
    }

    /// Adds the file as an item, then publishes it; on to the publishing page. A refused
    /// publish takes the just-added item away again, so nothing is left half done.
    func upload(_ home: HomeRequest) async throws -> Response {
        guard let user = home.session.user?.username else { throw HomeFailure(message: "Sign in to add data.", code: 401) }
        guard let file = home.context.form.file(named: "file"), file.size > 0 else {
            throw HomeFailure(message: "Choose a file to upload.", code: 400)
        }
        defer { home.context.form.discardFiles() }
        guard let format = PublishFileType(filetype: home.form.string("filetype") ?? "") else {
            throw HomeFailure(message: "Choose the kind of file.", code: 400)
        }
        let filename = ((file.filename ?? "upload") as NSString).lastPathComponent
        let given = (home.form.string("title") ?? "").trimmingCharacters(in: .whitespaces)
        let title = given.isEmpty ? (filename as NSString).deletingPathExtension : given
        let content = HomeRequest.portal + "/content/users/\(HTMLText.query(user))"
        let added = try await home.post(
            content + "/addItem", [("type", format.itemType), ("title", title), ("fileName", filename)],
            file: HomeUpload(field: "file", filename: filename, path: file.path))
        let itemId = added["id"]?.stringValue ?? ""
        var publishParameters: JSONObject = [:]
        if let name = home.form.string("name")?.trimmingCharacters(in: .whitespaces), !name.isEmpty { publishParameters["name"] = .string(name) }
        let published: JSONValue
        do {
            published = try await home.post(
                content + "/publish",
                [("itemID", itemId), ("filetype", format.rawValue), ("publishParameters", JSONValue.object(publishParameters).jsonText)])
        } catch let failure as HomeFailure {
            _ = try? await home.post(content + "/items/\(HTMLText.query(itemId))/delete")
            throw failure
        }
        let service = published["services"]?.arrayValue?.first
        let serviceItem = service?["serviceItemId"]?.stringValue ?? ""
        let job = service?["jobId"]?.stringValue ?? ""
        return home.redirect(to: "publishing.html?id=\(HTMLText.query(serviceItem))&job=\(HTMLText.query(job))", flash: nil)
    }

    /// How a publish job goes: progress while it runs (the page's script follows it; without
    /// script, the link reloads), then the service and what the import left out.
    func publishingPage(_ home: HomeRequest) async throws -> HomePage {
        guard let user = home.session.user?.username else { return signInNeeded(home, page: "content.html") }
        let id = home.form.string("id") ?? ""
        let job = home.form.string("job") ?? ""
        guard HomeInputs.isPlainId(id), HomeInputs.isPlainId(job) else {
            throw HomeFailure(message: "This page needs a publish job.", code: 400)
        }
        let status = try await home.get(
            HomeRequest.portal + "/content/users/\(HTMLText.query(user))/items/\(HTMLText.query(id))/status",
            [("jobType", "publish"), ("jobId", job)])
        let name = status["serviceName"]?.stringValue ?? ""
        let state = status["status"]?.stringValue ?? "processing"
        let percent = max(0, min(100, status["progress"]?.int64Value ?? 0))
        var main = "<div id=\"publish-status\" class=\"panel\" aria-live=\"polite\" data-state=\"\(HTMLText.escape(state))\">"
        switch state {
        case "completed":
            main += "<p>The service <strong>\(HTMLText.escape(name))</strong> is published.</p>"
            main += "<p><a id=\"published-item\" href=\"/arcgis/home/item.html?id=\(HTMLText.query(id))\">Open its item</a> · "
            main += "<a href=\"/arcgis/home/content.html\">My content</a></p>"
            let warnings = status["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if warnings.isEmpty {
                main += "<p>The import left nothing out.</p>"
            } else {
                main += "<h2>What the import left out</h2><ul id=\"publish-warnings\">"
                for warning in warnings { main += "<li>\(HTMLText.escape(warning))</li>" }
                main += "</ul>"
            }
        case "failed":
            main += "<p role=\"alert\">Publishing <strong>\(HTMLText.escape(name))</strong> failed: "
            main += "\(HTMLText.escape(status["statusMessage"]?.stringValue ?? ""))</p>"
            main += "<p><a href=\"/arcgis/home/content.html\">Back to my content</a></p>"
        default:
            main += "<p>Publishing <strong>\(HTMLText.escape(name))</strong>: \(percent) %.</p>"
            main +=
                "<p><progress id=\"publish-progress\" max=\"100\" value=\"\(percent)\" aria-label=\"Publishing progress\">\(percent) %</progress></p>"
            main += "<p><a id=\"publish-refresh\" href=\"/arcgis/home/publishing.html?id=\(HTMLText.query(id))&amp;job=\(HTMLText.query(job))\">"
            main += "Check again</a></p>"
        }
        main += "</div>"
        return HomePage(title: "Publishing \(name)", section: .content, session: home.session, main: main, scripts: ["publishing.js"])
    }
}

extension HomeAssets {
    /// Follows a publish: fetches the page again every second and puts its status panel in
    /// place of this one, until the job has ended.
    static var uploadScripts: [String: String] {
        [
            "publishing.js": """
            (function () {
              function follow() {
                var panel = document.getElementById('publish-status');
                if (!panel || panel.getAttribute('data-state') !== 'processing') return;
                setTimeout(function () {
                  fetch(location.href, {credentials: 'same-origin'}).then(function (r) { return r.text(); }).then(function (html) {
                    var next = new DOMParser().parseFromString(html, 'text/html').getElementById('publish-status');
                    if (next) { panel.innerHTML = next.innerHTML; panel.setAttribute('data-state', next.getAttribute('data-state')); }
                    follow();
                  }).catch(function () { setTimeout(follow, 2000); });
                }, 1000);
              }
              follow();
            })();
            """
        ]
    }
}
