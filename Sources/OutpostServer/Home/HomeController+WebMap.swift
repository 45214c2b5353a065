import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// "Make a web map" (`webmap.html`): layers the user can see and a basemap, saved through the
/// portal's `addItem` as Map Viewer saves a web map, ready for offline use when asked (the
/// `Offline` keyword and `applicationProperties.offline`, as the demo's map and
/// docs/map-areas.md have them).
extension HomeController {
    var webMapPages: [String: Page] { ["webmap.html": { try await webMapPage($0) }] }

    var webMapActions: [String: Action] { ["createWebMap": { try await createWebMap($0) }] }

    /// Services the page offers layers of, at most.
    static let webMapServiceLimit = 50

    func webMapPage(_ home: HomeRequest) async throws -> HomePage {
        if home.session.user == nil, home.session.securityOn { return signInNeeded(home, page: "webmap.html") }
        guard home.session.mayCreate else {
            let main = "<p role=\"alert\">Your role does not create content: ask an administrator to make you a publisher.</p>"
            return HomePage(title: "Make a web map", section: .map, session: home.session, main: main)
        }
        let services = try await home.get(
            HomeRequest.portal + "/search", [("q", "type:\"Feature Service\""), ("num", "\(Self.webMapServiceLimit)"), ("sortField", "title")])
        let basemaps = try await home.get(
            HomeRequest.portal + "/search", [("q", "type:\"Map Service\" OR type:\"Vector Tile Service\""), ("num", "50"), ("sortField", "title")])
        var main = "<form method=\"post\" action=\"/arcgis/home/actions/createWebMap\" id=\"webmap-form\">\(HTMLText.csrfField(home.session))"
        main += "<input type=\"hidden\" name=\"return\" value=\"webmap.html\">"
        main += "<label for=\"map-title\">Title</label><input id=\"map-title\" name=\"title\" required maxlength=\"250\">"
        main += "<label for=\"map-snippet\">Summary</label><input id=\"map-snippet\" name=\"snippet\" maxlength=\"2048\">"
        main += "<label for=\"map-tags\">Tags <span class=\"hint\">(separated by commas)</span></label><input id=\"map-tags\" name=\"tags\">"
        main += "<h2>Layers</h2>"
        var index = 0
        for service in services["results"]?.arrayValue ?? [] {
            guard let path = HomeInputs.serverPath(service["url"]?.stringValue), path.hasSuffix("/FeatureServer") else { continue }
            let info = try await home.get(path)
            let layers = (info["layers"]?.arrayValue ?? []) + (info["tables"]?.arrayValue ?? [])
            guard !layers.isEmpty else { continue }
            main += "<fieldset><legend>\(HTMLText.escape(service["title"]?.stringValue ?? path))</legend>"
            for layer in layers {
                guard let id = layer["id"]?.int64Value else { continue }
                let name = layer["name"]?.stringValue ?? "Layer \(id)"
                index += 1
                main +=
                    "<div><input type=\"checkbox\" id=\"layer-\(index)\" name=\"layer-\(index)\" value=\"\(HTMLText.escape("\(path)/\(id)|\(name)"))\">"
                main += " <label class=\"inline\" for=\"layer-\(index)\">\(HTMLText.escape(name))</label></div>"
            }
            main += "</fieldset>"
        }
        main += "<label for=\"map-basemap\">Basemap</label><select id=\"map-basemap\" name=\"basemap\"><option value=\"\">None</option>"
        for basemap in basemaps["results"]?.arrayValue ?? [] {
            guard let path = HomeInputs.serverPath(basemap["url"]?.stringValue) else { continue }
            main +=
                "<option value=\"\(HTMLText.escape("\(path)|\(basemap["title"]?.stringValue ?? path)"))\">\(HTMLText.escape(basemap["title"]?.stringValue ?? path))</option>"
        }
        main += "</select><div><input type=\"checkbox\" id=\"map-offline\" name=\"offline\" value=\"true\" checked>"
        main += " <label class=\"inline\" for=\"map-offline\">Ready for offline use (map areas and devices may take it offline)</label></div>"
        main += "<p><button type=\"submit\">Save web map</button></p></form>"
        return HomePage(title: "Make a web map", section: .map, session: home.session, main: main)
    }

    /// `createWebMap`: the web map's JSON as Map Viewer saves it, through `addItem`.
    func createWebMap(_ home: HomeRequest) async throws -> Response {
        let user = home.session.user?.username ?? ""
        let chosen = home.form.names.filter { $0.lowercased().hasPrefix("layer-") }.prefix(200)
            .compactMap { home.form.string($0).flatMap { HomeInputs.choice($0, layer: true) } }
        guard !chosen.isEmpty else { throw HomeFailure(message: "Choose at least one layer.", code: 400) }
        let operational = chosen.enumerated().map { n, layer -> JSONValue in
            [
                "id": .string("layer-\(n)"), "title": .string(layer.title), "layerType": "ArcGISFeatureLayer", "url": .string(layer.path),
                "visibility": true, "opacity": 1,
            ]
        }
        let thumbnail = try await thumbnail(of: chosen, home)
        let extent = thumbnail?.extent ?? [-180, -70, 180, 80]
        var map: JSONObject = [
            "operationalLayers": .array(operational), "spatialReference": ["wkid": 102100, "latestWkid": 3857], "version": "2.31",
            "authoringApp": "Outpost", "authoringAppVersion": "1.0",
            "initialState": ["viewpoint": ["targetGeometry": WebMercatorTiling.extent(extent)]],
        ]
        var basemapLayers: [JSONValue] = []
        if let basemap = home.form.string("basemap").flatMap({ HomeInputs.choice($0, layer: false) }) {
            let type = basemap.path.hasSuffix("VectorTileServer") ? "VectorTileLayer" : "ArcGISTiledMapServiceLayer"
            basemapLayers.append(
                [
                    "id": "basemap", "title": .string(basemap.title), "layerType": .string(type), "url": .string(basemap.path), "visibility": true,
                    "opacity": 1,
                ])
        }
        map["baseMap"] = ["baseMapLayers": .array(basemapLayers), "title": basemapLayers.isEmpty ? "None" : basemapLayers[0]["title"] ?? "Basemap"]
        var keywords = ["ArcGIS Online", "Explorer Web Map", "Map", "Online Map", "Web Map"]
        if home.form.string("offline") == "true" {
            keywords.append("Offline")
            map["applicationProperties"] = [
                "offline": [
                    "editableLayers": ["download": "features", "sync": "syncFeaturesAndAttachments"], "readonlyLayers": ["downloadAttachments": true],
                ]
            ]
        }
        // The thumbnail goes as a client's `thumbnail` part, from a scratch file of the home's.
        let picture = thumbnail.map { _ in NSTemporaryDirectory() + "home-thumbnail-\(UUID().uuidString).png" }
        defer { if let picture { try? FileManager.default.removeItem(atPath: picture) } }
        if let picture, let thumbnail { try Data(thumbnail.png).write(to: URL(fileURLWithPath: picture)) }
        let added = try await home.post(
            HomeRequest.portal + "/content/users/\(HTMLText.query(user))/addItem",
            [
                ("type", "Web Map"), ("title", home.form.string("title") ?? "Web map"), ("snippet", home.form.string("snippet") ?? ""),
                ("tags", home.form.string("tags") ?? ""), ("typeKeywords", keywords.joined(separator: ",")), ("text", JSONValue.object(map).jsonText),
                ("extent", extent.map { String($0) }.joined(separator: ",")),
            ], file: picture.map { HomeUpload(field: "thumbnail", filename: "thumbnail.png", path: $0) })
        guard let id = added["id"]?.stringValue else { throw HomeFailure(message: "The portal made no item.", code: 500) }
        return home.redirect(to: "item.html?id=\(HTMLText.query(id))", done: "Web map saved.")
    }

    /// Features per layer a thumbnail draws, at most.
    static let thumbnailFeatures = 2_000

    /// The chosen layers' features, as the user may read them, drawn as the map's thumbnail
    /// (`MapThumbnail`), and their extent in degrees; nil when no layer has a feature to draw.
    func thumbnail(of layers: [(path: String, title: String)], _ home: HomeRequest) async throws -> (png: [UInt8], extent: [Double])? {
        var geometries: [(JSONValue, Int)] = []
        for (index, layer) in layers.enumerated() {
            let query = [("where", "1=1"), ("returnGeometry", "true"), ("outSR", "4326"), ("resultRecordCount", "\(Self.thumbnailFeatures)")]
            // A layer the user cannot query leaves the picture, not the map.
            guard let answer = try? await home.get(layer.path + "/query", query) else { continue }
            for feature in (answer["features"]?.arrayValue ?? []).prefix(Self.thumbnailFeatures) {
                if let geometry = feature["geometry"], geometry != .null { geometries.append((geometry, index)) }
            }
        }
        guard let found = MapThumbnail.extent(of: geometries.map(\.0)) else { return nil }
        // One point, or one line along a meridian, still makes an area to look at.
        let pad = [max(0, 0.01 - (found[2] - found[0])) / 2, max(0, 0.01 - (found[3] - found[1])) / 2]
        let extent = [
            max(-180, found[0] - pad[0]), max(-85, found[1] - pad[1]), min(180, found[2] + pad[0]), min(85, found[3] + pad[1]),
        ]
        var picture = MapThumbnail(extent: extent)
        for (geometry, index) in geometries { picture.draw(geometry, colour: MapThumbnail.palette[index % MapThumbnail.palette.count]) }
        return (picture.png, extent)
    }
}

extension HomeAssets {
    static var webMapScripts: [String: String] { [:] }
}
