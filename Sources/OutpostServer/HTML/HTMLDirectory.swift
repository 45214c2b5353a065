import Foundation
import Hummingbird
import OutpostWire

/// The services directory in HTML (`f=html`, the default for browsers, as on ArcGIS Server).
///
/// Every page is rendered from the JSON answer of the same resource, so the two never
/// disagree: the route runs as usual and its JSON is laid out as tables, with links where the
/// JSON names another resource (services, layers, replicas, result files), breadcrumbs from
/// the path, and a form for each operation. Every string is escaped; the forms submit with
/// `f=html` (and the caller's token) so the answer is a page again.
enum HTMLDirectory {
    /// An operation with an HTML form.
    struct Operation: Sendable {
        enum Input: Sendable {
            case text(String, String = "")
            case area(String, String = "")
            case choice(String, [String])
        }
        var name: String
        var method: String
        var inputs: [Input]
    }

    static let operations: [String: Operation] = [
        "query": Operation(
            name: "query", method: "GET",
            inputs: [
                .text("where", "1=1"), .text("objectIds"), .area("geometry"),
                .choice("geometryType", ["esriGeometryEnvelope", "esriGeometryPoint", "esriGeometryPolygon", "esriGeometryPolyline"]),
                .text("inSR"),
                .choice(
                    "spatialRel", ["esriSpatialRelIntersects", "esriSpatialRelContains", "esriSpatialRelWithin", "esriSpatialRelEnvelopeIntersects"]),
                .text("outFields", "*"), .choice("returnGeometry", ["true", "false"]), .text("orderByFields"), .text("resultOffset"),
                .text("resultRecordCount"), .choice("returnCountOnly", ["false", "true"]), .choice("returnIdsOnly", ["false", "true"]),
                .text("outSR"),
            ]),
        "applyEdits": Operation(
            name: "applyEdits", method: "POST",
            inputs: [
                .area("adds"), .area("updates"), .text("deletes"), .area("attachments"), .choice("useGlobalIds", ["false", "true"]),
                .choice("rollbackOnFailure", ["true", "false"]), .text("gdbVersion"),
            ]),
        "serviceApplyEdits": Operation(
            name: "applyEdits", method: "POST",
            inputs: [
                .area("edits"), .choice("useGlobalIds", ["false", "true"]), .choice("rollbackOnFailure", ["true", "false"]), .text("gdbVersion"),
            ]),
        "createReplica": Operation(
            name: "createReplica", method: "POST",
            inputs: [
                .text("replicaName"), .text("layers"), .area("layerQueries"), .area("geometry"),
                .choice("geometryType", ["esriGeometryEnvelope", "esriGeometryPoint", "esriGeometryPolygon", "esriGeometryPolyline"]),
                .text("inSR"), .text("replicaSR"), .choice("syncModel", ["perLayer", "perReplica", "none"]),
                .choice("dataFormat", ["json", "sqlite"]), .choice("transportType", ["esriTransportTypeEmbedded", "esriTransportTypeUrl"]),
                .choice("returnAttachments", ["false", "true"]), .choice("returnAttachmentsDataByUrl", ["true", "false"]),
                .choice("attachmentsSyncDirection", ["none", "upload", "bidirectional"]),
                .choice("syncDirection", ["", "bidirectional", "upload", "download", "snapshot"]), .choice("async", ["false", "true"]),
            ]),
        "synchronizeReplica": Operation(
            name: "synchronizeReplica", method: "POST",
            inputs: [
                .text("replicaID"), .text("replicaServerGen"), .area("syncLayers"),
                .choice("syncDirection", ["", "bidirectional", "upload", "download", "snapshot"]), .area("edits"),
                .choice("rollbackOnFailure", ["false", "true"]), .choice("returnIdsForAdds", ["false", "true"]),
                .choice("transportType", ["esriTransportTypeEmbedded", "esriTransportTypeUrl"]), .choice("dataFormat", ["json", "sqlite"]),
                .choice("async", ["false", "true"]), .choice("closeReplica", ["false", "true"]),
            ]),
        "unRegisterReplica": Operation(name: "unRegisterReplica", method: "POST", inputs: [.text("replicaID")]),
    ]

    /// Whether the caller asked for HTML: `f=html`, or a browser (`Accept: text/html`) giving no `f`.
    static func wanted(_ request: Request, _ parameters: RequestParameters) -> Bool {
        if let format = parameters.string("f") { return format.lowercased() == "html" }
        return request.headers[.accept]?.contains("text/html") == true
    }

    /// The operation a path ends in, if it has a form.
    static func operation(at path: String) -> Operation? {
        let segments = path.split(separator: "/").map(String.init)
        guard let last = segments.last else { return nil }
        if last == "applyEdits" {
            return segments.count >= 2 && segments[segments.count - 2] == "FeatureServer" ? operations["serviceApplyEdits"] : operations["applyEdits"]
        }
        return operations[last] ?? taskOperations[last]
    }

    /// Whether the request only asks for the form (nothing to run yet).
    static func asksForFormOnly(_ parameters: RequestParameters) -> Bool {
        parameters.names.allSatisfy { ["f", "token"].contains($0.lowercased()) }
    }

    /// The page for `response` (JSON) of `path`; other answers (files, GeoJSON) pass through.
    static func page(for response: Response, path: String, parameters: RequestParameters) async throws -> Response {
        guard response.headers[.contentType]?.hasPrefix("application/json") == true else { return response }
        let collector = BodyCollector()
        try await response.body.write(collector)
        let value = (try? JSONParser.parse(String(buffer: collector.buffer))) ?? .null
        return page(value, path: path, parameters: parameters, operation: operation(at: path), ran: true)
    }

    static func formPage(path: String, parameters: RequestParameters) -> Response {
        page(nil, path: path, parameters: parameters, operation: operation(at: path), ran: false)
    }

    private static func page(_ value: JSONValue?, path: String, parameters: RequestParameters, operation: Operation?, ran: Bool) -> Response {
        var html = HTMLWriter(token: parameters.string("token"))
        let segments = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        let title = segments.count > 3 ? segments.suffix(from: 3).joined(separator: " / ") : "Services Directory"
        html.raw("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(escape(title)) (Outpost)</title><style>\(css)</style></head><body>")
        html.raw("<header><span class=\"brand\">Outpost</span> ArcGIS REST Services Directory</header>")
        html.breadcrumbs(segments)
        html.raw("<main>")
        html.raw("<h1>\(escape(segments.last ?? "rest"))</h1>")
        html.raw("<p class=\"formats\">Formats: <a href=\"\(escape(path))?f=pjson\(html.tokenSuffix)\">JSON</a></p>")
        if let operation {
            html.form(operation, path: path, parameters: parameters)
        }
        if let value, ran || operation == nil {
            if operation != nil { html.raw("<h2>Result</h2>") }
            html.resource(value, path: path)
        }
        html.raw("</main></body></html>")
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html.text)))
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r", "\r\n": out.append(character)
            // Control characters are no text of an HTML page (a parse error): shown as U+FFFD.
            case _ where character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }): out += "\u{FFFD}"
            default: out.append(character)
            }
        }
        return out
    }

    static let css = """
        body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        header{background:#20445c;color:#fff;padding:.6em 1em;font-size:1.1em}.brand{font-weight:700;margin-right:.5em}
        nav{padding:.5em 1em;background:#e8eef2;font-size:.95em}nav a{color:#20445c}
        main{padding:0 1em 2em}h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
        table{border-collapse:collapse;margin:.3em 0;background:#fff}td,th{border:1px solid #ccd;padding:.2em .5em;text-align:left;vertical-align:top;font-size:.9em}
        th{background:#eef2f5}form{background:#fff;border:1px solid #ccd;padding:.8em;display:inline-block}
        label{display:inline-block;min-width:14em;font-weight:600}textarea{width:36em;height:4em}input[type=text]{width:36em}
        .row{margin:.25em 0}.error{color:#a00;font-weight:600}ul.ops li{display:inline;margin-right:1em}
        """
}

/// Builds one HTML page.
struct HTMLWriter {
    private(set) var text = ""
    let token: String?

    init(token: String?) { self.token = token }

    var tokenSuffix: String { token.map { "&amp;token=\(HTMLDirectory.escape($0))" } ?? "" }

    mutating func raw(_ html: String) { text += html }

    /// `href` to `path` as a page.
    func link(_ path: String) -> String { "\(HTMLDirectory.escape(path))?f=html\(tokenSuffix)" }

    mutating func breadcrumbs(_ segments: [String]) {
        var crumbs: [String] = []
        var path = ""
        let kind = ServiceRoutes.kindIndex(segments, among: ["FeatureServer", "VersionManagementServer"])
        for (index, segment) in segments.enumerated() {
            path += "/" + Self.segment(segment)
            guard index >= 2 else { continue }  // /arcgis/rest
            // A service is "Name (FeatureServer)", as in ArcGIS's directory: no crumb for the bare name.
            if let kind, index == kind - 1 { continue }
            let name = index == 2 ? "Home" : index == kind ? "\(segments[index - 1]) (\(segment))" : segment
            crumbs.append(index == segments.count - 1 ? HTMLDirectory.escape(name) : "<a href=\"\(link(path))\">\(HTMLDirectory.escape(name))</a>")
        }
        raw("<nav class=\"breadcrumbs\">\(crumbs.joined(separator: " &gt; "))</nav>")
    }

    mutating func form(_ operation: HTMLDirectory.Operation, path: String, parameters: RequestParameters) {
        raw("<form method=\"\(operation.method)\" action=\"\(HTMLDirectory.escape(path))\" id=\"\(operation.name)-form\">")
        raw("<input type=\"hidden\" name=\"f\" value=\"html\">")
        if let token { raw("<input type=\"hidden\" name=\"token\" value=\"\(HTMLDirectory.escape(token))\">") }
        for input in operation.inputs {
            switch input {
            case .text(let name, let initial):
                let value = parameters.string(name) ?? initial
                raw(
                    "<div class=\"row\"><label for=\"\(name)\">\(name)</label><input type=\"text\" id=\"\(name)\" name=\"\(name)\" value=\"\(HTMLDirectory.escape(value))\"></div>"
                )
            case .area(let name, let initial):
                let value = parameters.string(name) ?? initial
                raw(
                    "<div class=\"row\"><label for=\"\(name)\">\(name)</label><textarea id=\"\(name)\" name=\"\(name)\">\(HTMLDirectory.escape(value))</textarea></div>"
                )
            case .choice(let name, let options):
                let chosen = parameters.string(name) ?? options.first ?? ""
                let items = options.map { "<option\($0 == chosen ? " selected" : "")>\(HTMLDirectory.escape($0))</option>" }.joined()
                raw("<div class=\"row\"><label for=\"\(name)\">\(name)</label><select id=\"\(name)\" name=\"\(name)\">\(items)</select></div>")
            }
        }
        raw("<div class=\"row\"><input type=\"submit\" id=\"submit\" value=\"\(operation.name) (\(operation.method))\"></div></form>")
    }

    /// The JSON of a resource: known members as links and tables, the rest as key/value rows.
    mutating func resource(_ value: JSONValue, path: String) {
        guard case .object(let object) = value else {
            if case .array(let items) = value { list(items, path: path, key: "") } else { raw(HTMLDirectory.escape(value.jsonText)) }
            return
        }
        if let error = object["error"] {
            raw(
                "<p class=\"error\" id=\"error\">Error \(HTMLDirectory.escape(error["code"]?.jsonText ?? "")): \(HTMLDirectory.escape(error["message"]?.stringValue ?? ""))</p>"
            )
            for detail in error["details"]?.arrayValue ?? [] { raw("<p>\(HTMLDirectory.escape(detail.stringValue ?? detail.jsonText))</p>") }
            return
        }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        let service = base.components(separatedBy: "/FeatureServer").first ?? base
        if path.hasSuffix("/FeatureServer") {
            raw("<h2>Operations</h2><ul class=\"ops\">")
            for name in ["createReplica", "synchronizeReplica", "unRegisterReplica", "applyEdits"] {
                raw("<li><a href=\"\(link("\(base)/\(name)"))\">\(name)</a></li>")
            }
            raw("<li><a href=\"\(link("\(base)/replicas"))\">replicas</a></li></ul>")
        } else if object["fields"] != nil, object["type"] != nil, base.range(of: #"/FeatureServer/\d+$"#, options: .regularExpression) != nil {
            raw("<h2>Operations</h2><ul class=\"ops\">")
            for name in ["query", "applyEdits"] { raw("<li><a href=\"\(link("\(base)/\(name)"))\">\(name)</a></li>") }
            raw("</ul>")
        }
        previewLinks(object, base: base)
        if let features = object["features"]?.arrayValue {
            featureTable(features)
        }
        raw("<table class=\"properties\">")
        for (key, member) in object where key != "features" {
            raw("<tr><th>\(HTMLDirectory.escape(key))</th><td>")
            switch (key, member) {
            case ("services", .array(let items)):
                // Names carry their folder (`Folder/Name`): the link is from the root.
                links(
                    items.compactMap { item in
                        guard let name = item["name"]?.stringValue, let type = item["type"]?.stringValue else { return nil }
                        let segments = name.split(separator: "/").map { Self.segment(String($0)) }
                        return ("/arcgis/rest/services/\(segments.joined(separator: "/"))/\(Self.segment(type))", "\(name) (\(type))")
                    })
            case ("folders", .array(let items)) where !items.isEmpty:
                links(
                    items.compactMap { item in
                        guard let folder = item.stringValue else { return nil }
                        return ("/arcgis/rest/services/\(Self.segment(folder))", folder)
                    })
            case ("layers", .array(let items)) where isServicePage(base), ("tables", .array(let items)) where isServicePage(base):
                links(
                    items.compactMap { item in
                        guard let id = item["id"]?.int64Value else { return nil }
                        return ("\(base)/\(id)", "\(item["name"]?.stringValue ?? "") (\(id))")
                    })
            case ("resultUrl", .string(let url)), ("statusUrl", .string(let url)), ("URL", .string(let url)), ("responseUrl", .string(let url)):
                // Only web addresses become links: `javascript:` or `data:` stays text.
                raw(Self.linked(url))
            default:
                cell(member, path: path, key: key, service: service)
            }
            raw("</td></tr>")
        }
        raw("</table>")
    }

    /// "View in": a service's or layer's map preview; a web map item's viewer and data.
    private mutating func previewLinks(_ object: JSONObject, base: String) {
        let isLayer = object["fields"] != nil && base.range(of: #"/FeatureServer/\d+$"#, options: .regularExpression) != nil
        if ["/MapServer", "/VectorTileServer", "/FeatureServer"].contains(where: base.hasSuffix) || isLayer {
            raw("<p class=\"formats\">View in: <a id=\"preview\" href=\"\(HTMLDirectory.escape(base))?f=jsapi\(tokenSuffix)\">Map preview</a></p>")
        }
        if object["type"]?.stringValue == "Web Map", let id = object["id"]?.stringValue, base.hasSuffix("/items/\(id)") {
            let viewer = "/arcgis/home/webmap/viewer.html?webmap=\(HTMLDirectory.escape(id))\(tokenSuffix)"
            raw(
                "<p class=\"formats\">View in: <a id=\"preview\" href=\"\(viewer)\">Map viewer</a> · <a href=\"\(link(base + "/data"))\">data</a></p>"
            )
        }
    }

    private func isServicePage(_ base: String) -> Bool { base.hasSuffix("/FeatureServer") || base.hasSuffix("/FeatureServer/layers") }

    /// A name or id as one path segment.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/{}")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private mutating func replicaLinks(_ items: [JSONValue], service: String) {
        links(
            items.compactMap { item in
                guard let id = item["replicaID"]?.stringValue else { return nil }
                return ("\(service)/FeatureServer/replicas/\(Self.segment(id))", "\(item["replicaName"]?.stringValue ?? id) (\(id))")
            })
    }

    private mutating func links(_ targets: [(String, String)]) {
        raw("<ul>" + targets.map { "<li><a href=\"\(link($0.0))\">\(HTMLDirectory.escape($0.1))</a></li>" }.joined() + "</ul>")
    }

    private mutating func cell(_ value: JSONValue, path: String, key: String, service: String) {
        switch value {
        case .array(let items):
            // The replicas list: each replica links to its info.
            if path.hasSuffix("/replicas") || key == "replicas" {
                replicaLinks(items, service: service)
            } else {
                list(items, path: path, key: key)
            }
        case .object(let object):
            raw("<table>")
            for (name, member) in object {
                raw("<tr><th>\(HTMLDirectory.escape(name))</th><td>")
                cell(member, path: path, key: name, service: service)
                raw("</td></tr>")
            }
            raw("</table>")
        case .string(let text): raw(Self.linked(text))
        default: raw(HTMLDirectory.escape(value.jsonText))
        }
    }

    /// A text, as a link when it is a URL of this or another server (a web map's layers);
    /// any other scheme (`javascript:`, `data:`) is shown as text.
    static func linked(_ text: String) -> String {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("/arcgis/") else { return HTMLDirectory.escape(text) }
        return "<a href=\"\(HTMLDirectory.escape(text))\">\(HTMLDirectory.escape(text))</a>"
    }

    /// An array: objects sharing scalar members as a table, anything else as a list.
    private mutating func list(_ items: [JSONValue], path: String, key: String) {
        if path.hasSuffix("/replicas"), key.isEmpty {
            let service = path.components(separatedBy: "/FeatureServer").first ?? path
            replicaLinks(items, service: service)
            return
        }
        let objects = items.compactMap(\.objectValue)
        if !items.isEmpty, objects.count == items.count {
            var columns: [String] = []
            for object in objects { for name in object.keys where !columns.contains(name) { columns.append(name) } }
            raw("<table><tr>" + columns.map { "<th>\(HTMLDirectory.escape($0))</th>" }.joined() + "</tr>")
            for object in objects {
                raw(
                    "<tr>"
                        + columns.map { name in
                            let member = object[name]
                            let text = member.map { $0.stringValue ?? $0.jsonText } ?? ""
                            // Portal items (search results, a user's content, related items) link to their page.
                            if name == "id", object["owner"] != nil, object["type"] != nil {
                                return
                                    "<td><a href=\"\(link("/arcgis/sharing/rest/content/items/\(Self.segment(text))"))\">\(HTMLDirectory.escape(text))</a></td>"
                            }
                            return "<td>\(Self.linked(text))</td>"
                        }.joined() + "</tr>")
            }
            raw("</table>")
        } else {
            raw(HTMLDirectory.escape(JSONValue.array(items).jsonText))
        }
    }

    /// Query results: one row per feature, its attributes as columns, geometry as JSON.
    private mutating func featureTable(_ features: [JSONValue]) {
        var columns: [String] = []
        for feature in features.prefix(1000) {
            for name in feature["attributes"]?.objectValue?.keys ?? [] where !columns.contains(name) { columns.append(name) }
        }
        raw(
            "<h2>Features (\(features.count))</h2><table id=\"features\"><tr>" + columns.map { "<th>\(HTMLDirectory.escape($0))</th>" }.joined()
                + "<th>geometry</th></tr>")
        for feature in features {
            let attributes = feature["attributes"]?.objectValue
            raw(
                "<tr>"
                    + columns.map { name in
                        let member = attributes?[name]
                        return "<td>\(HTMLDirectory.escape(member.map { $0.stringValue ?? $0.jsonText } ?? ""))</td>"
                    }.joined())
            raw("<td>\(HTMLDirectory.escape(feature["geometry"].map { String($0.jsonText.prefix(120)) } ?? ""))</td></tr>")
        }
        raw("</table>")
    }
}

/// Collects a response body written by a route (the JSON a page is rendered from).
final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var part = buffer
        self.buffer.writeBuffer(&part)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
