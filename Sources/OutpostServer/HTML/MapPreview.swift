import Foundation
import Hummingbird
import OutpostWire

/// Map preview pages: a service's (`…/MapServer?f=jsapi`, `…/VectorTileServer?f=jsapi`,
/// `…/FeatureServer[/<layer>]?f=jsapi`, ArcGIS Server's "View in JavaScript" link) and a web
/// map's (`/arcgis/home/webmap/viewer.html?webmap=<id>`, ArcGIS's map viewer address). The
/// page is Leaflet from Debian's `libjs-leaflet`, served by this server with the preview's
/// script: nothing is fetched from anywhere else (docs/tiles.md, "Map preview").
enum MapPreview {
    /// Where Debian's libjs-leaflet puts Leaflet.
    static let leafletDirectory = "/usr/share/javascript/leaflet"
    /// The files of it the page uses; nothing else under the folder is served.
    static let leafletFiles: [String: String] = [
        "leaflet.js": "text/javascript; charset=utf-8", "leaflet.css": "text/css; charset=utf-8", "images/layers.png": "image/png",
        "images/layers-2x.png": "image/png", "images/marker-icon.png": "image/png", "images/marker-shadow.png": "image/png",
    ]
    static let staticPath = "/arcgis/rest/static"

    /// What a page draws.
    struct Content {
        var title: String
        var rasterTiles: [String] = []
        var vectorTiles: [String] = []
        var featureLayers: [String] = []
        /// West, south, east, north in degrees.
        var extent: [Double] = [-180, -70, 180, 80]
        var maxZoom = 5
    }

    /// The page for `content`; `token` (the page's own) goes on every request it makes.
    static func page(_ content: Content, token: String?) -> Response {
        let config: JSONValue = [
            "rasterTiles": .array(content.rasterTiles.map(JSONValue.string)), "vectorTiles": .array(content.vectorTiles.map(JSONValue.string)),
            "featureLayers": .array(content.featureLayers.map(JSONValue.string)), "extent": .array(content.extent.map(JSONValue.double)),
            "maxZoom": .int(Int64(content.maxZoom)), "maxFeatures": 2000, "token": token.map(JSONValue.string) ?? .null,
        ]
        // JSON inside a script element: only `</` could end it early.
        let embedded = config.jsonText.replacingOccurrences(of: "</", with: "<\\/")
        let title = HTMLDirectory.escape(content.title)
        let html = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>\(title) (Outpost map preview)</title>
            <link rel="stylesheet" href="\(staticPath)/leaflet/leaflet.css">
            <style>html,body{height:100%;margin:0;font:14px system-ui,sans-serif}#map{position:absolute;top:32px;bottom:0;left:0;right:0;background:#aad3df}
            header{height:32px;line-height:32px;padding:0 8px;background:#2b3e50;color:#fff}#status{float:right;opacity:.8}</style>
            </head><body><header>\(title)<span id="status">loading…</span></header><div id="map"></div>
            <script id="preview-config" type="application/json">\(embedded)</script>
            <script src="\(staticPath)/leaflet/leaflet.js"></script><script src="\(staticPath)/preview.js"></script></body></html>
            """
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Leaflet, the script, tiles and queries from this server only; the config is data, not script.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Whether a request asks for a service's preview (`f=jsapi`).
    static func wanted(_ parameters: RequestParameters) -> Bool { parameters.string("f")?.lowercased() == "jsapi" }

    /// The preview of the service or layer a JSON answer describes; nil for other answers.
    static func servicePage(for response: Response, path: String, token: String?) async throws -> Response? {
        guard response.headers[.contentType]?.hasPrefix("application/json") == true else { return nil }
        let collector = BodyCollector()
        try await response.body.write(collector)
        guard let json = try? JSONParser.parse(String(buffer: collector.buffer)), json["error"] == nil else { return nil }
        return servicePage(path: path, json: json, token: token)
    }

    /// The preview of the service or layer at `path`, from its JSON; nil for other resources.
    static func servicePage(path: String, json: JSONValue, token: String?) -> Response? {
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        var content = Content(title: base.components(separatedBy: "/services/").last ?? base)
        if base.hasSuffix("/MapServer") {
            content.rasterTiles = [base]
        } else if base.hasSuffix("/VectorTileServer") {
            content.vectorTiles = [base]
        } else if base.hasSuffix("/FeatureServer") || base.range(of: #"/FeatureServer/\d+$"#, options: .regularExpression) != nil {
            content.featureLayers = [base]
        } else {
            return nil
        }
        if let extent = degrees(json["fullExtent"] ?? json["extent"]) { content.extent = extent }
        if let maxLOD = json["maxLOD"]?.int64Value { content.maxZoom = Int(maxLOD) }
        return page(content, token: token)
    }

    /// An extent's corners in degrees (Web Mercator unprojected), or nil when it has none.
    static func degrees(_ extent: JSONValue?) -> [Double]? {
        guard let extent, let xmin = extent["xmin"]?.doubleValue, let ymin = extent["ymin"]?.doubleValue, let xmax = extent["xmax"]?.doubleValue,
            let ymax = extent["ymax"]?.doubleValue, xmin < xmax, ymin < ymax
        else { return nil }
        let sr = extent["spatialReference"].flatMap(SpatialReference.init(json:)) ?? .wgs84
        guard sr.epsg == 3857 else { return sr.epsg == 4326 ? [xmin, ymin, xmax, ymax] : nil }
        let low = WebMercatorTiling.unproject(x: xmin, y: ymin)
        let high = WebMercatorTiling.unproject(x: xmax, y: ymax)
        return [low.longitude, low.latitude, high.longitude, high.latitude]
    }

    /// `/arcgis/rest/static/…`: the preview's script and Leaflet's files.
    static func addStaticRoutes(to router: Router<OutpostRequestContext>) {
        router.get("arcgis/rest/static/preview.js") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(string: script)))
        }
        router.get("arcgis/rest/static/leaflet/**") { request, context in
            let name = String(request.uri.path.dropFirst("/arcgis/rest/static/leaflet/".count))
            guard let type = leafletFiles[name] else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "Not found."))
                )
            }
            let path = "\(leafletDirectory)/\(name)"
            guard FileManager.default.fileExists(atPath: path) else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: "Leaflet is not installed on this server (Debian: apt install libjs-leaflet).")))
            }
            let body = try await FileIO().loadFile(path: path, context: context)
            return Response(status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=86400"], body: body)
        }
    }
}
