import Hummingbird
import OutpostStorage
import OutpostWire

/// The web map viewer at ArcGIS's address, `/arcgis/home/webmap/viewer.html?webmap=<id>`:
/// a map preview of a web map the caller may see — its basemap's tile layers and its
/// operational layers' features (docs/portal.md, "Map viewer").
extension PortalController {
    func addViewerRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("home/webmap/viewer.html", store: { request, c in try webMapViewer(request, c) })
    }

    func webMapViewer(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let id = c.form.parameters.string("webmap") ?? ""
        let item = try visibleItem(id: id, c, request)
        guard item.type == "Web Map", case .text(let text) = try store.portal.data(of: item.id), let parsed = try? JSONParser.parse(text) else {
            throw ArcGISError(kind: .notFound, message: "Web map not found.", details: ["Item '\(id)' is not a web map with data."])
        }
        let webMap = ServerRelativeURLs.absolute(parsed, server: server(request))
        var content = MapPreview.Content(title: item.title)
        for layer in webMap["baseMap"]?["baseMapLayers"]?.arrayValue ?? [] {
            guard let url = layer["url"]?.stringValue.map(Self.trimmed) else { continue }
            if url.hasSuffix("/MapServer") { content.rasterTiles.append(url) }
            if url.hasSuffix("/VectorTileServer") { content.vectorTiles.append(url) }
            if url.hasSuffix("/VectorTileServer/resources/styles/root.json") {
                content.vectorTiles.append(String(url.dropLast("/resources/styles/root.json".count)))
            }
        }
        for layer in webMap["operationalLayers"]?.arrayValue ?? [] {
            guard let url = layer["url"]?.stringValue.map(Self.trimmed), url.contains("/FeatureServer") else { continue }
            content.featureLayers.append(url)
        }
        let extent = item.extent
        if extent.count == 2, extent[0].count == 2, extent[1].count == 2, extent[0][0] < extent[1][0], extent[0][1] < extent[1][1] {
            content.extent = [extent[0][0], extent[0][1], extent[1][0], extent[1][1]]
        }
        return MapPreview.page(content, token: c.form.parameters.string("token"))
    }

    private static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}
