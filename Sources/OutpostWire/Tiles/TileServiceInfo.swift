/// The JSON of tile services, as clients read it (offline-maps.md §3.1, §3.3).
public enum TileServiceInfo {
    /// The most tiles one `exportTiles` may ask for (ArcGIS's default).
    public static let maxExportTilesCount = 100_000

    /// `…/MapServer?f=json` of a raster set.
    public static func mapServer(_ set: TileSet, currentVersion: Double, maxExportTilesCount: Int = maxExportTilesCount) -> JSONValue {
        let extent = WebMercatorTiling.extent(set.bounds)
        return [
            "currentVersion": .double(currentVersion), "serviceDescription": .string(set.description), "mapName": .string(set.name),
            "description": .string(set.description), "copyrightText": "", "supportsDynamicLayers": false,
            "layers": [], "tables": [], "spatialReference": ["wkid": 102100, "latestWkid": 3857], "singleFusedMapCache": true,
            "tileInfo": WebMercatorTiling.tileInfo(maxZoom: set.maxZoom, format: set.format),
            "initialExtent": extent, "fullExtent": extent,
            "minScale": .double(WebMercatorTiling.scale(level: set.minZoom)), "maxScale": .double(WebMercatorTiling.scale(level: set.maxZoom)),
            "minLOD": .int(Int64(set.minZoom)), "maxLOD": .int(Int64(set.maxZoom)),
            "units": "esriMeters", "supportedImageFormatTypes": "PNG32,PNG24,PNG,JPG", "capabilities": "Map,TilesOnly,Tilemap",
            "exportTilesAllowed": true, "maxExportTilesCount": .int(Int64(maxExportTilesCount)), "exportTileCacheCompactV2Allowed": true,
            "tileServers": [], "cacheType": "Map",
        ]
    }

    /// `…/VectorTileServer?f=json` of a vector set.
    public static func vectorTileServer(_ set: TileSet, currentVersion: Double, maxExportTilesCount: Int = maxExportTilesCount) -> JSONValue {
        let extent = WebMercatorTiling.extent(set.bounds)
        var tileInfo = WebMercatorTiling.tileInfo(maxZoom: set.maxZoom, format: "pbf")
        if case .object(var object) = tileInfo {
            object["rows"] = 512
            object["cols"] = 512
            // 512-pixel vector tiles: each level is the raster level below's resolution.
            object["lods"] = .array(
                (0...max(0, set.maxZoom)).map { level in
                    [
                        "level": .int(Int64(level)), "resolution": .double(WebMercatorTiling.resolution(level: level) / 2),
                        "scale": .double(WebMercatorTiling.scale(level: level) / 2),
                    ]
                })
            tileInfo = .object(object)
        }
        return [
            "currentVersion": .double(currentVersion), "name": .string(set.name), "capabilities": "TilesOnly,Tilemap",
            "type": "indexedVector", "tileMap": "tilemap", "defaultStyles": "resources/styles", "tiles": ["tile/{z}/{y}/{x}.pbf"],
            "exportTilesAllowed": true, "maxExportTilesCount": .int(Int64(maxExportTilesCount)),
            "initialExtent": extent, "fullExtent": extent,
            "minScale": .double(WebMercatorTiling.scale(level: set.minZoom) / 2),
            "maxScale": .double(WebMercatorTiling.scale(level: set.maxZoom) / 2),
            "minLOD": .int(Int64(set.minZoom)), "maxLOD": .int(Int64(set.maxZoom)), "tileInfo": tileInfo,
            "resourceInfo": ["styleVersion": 8, "tileCompression": "gzip"],
        ]
    }

    /// A Mapbox GL style drawing every layer of a vector set (fills for polygons, lines, and
    /// circles for points), for sets that bring none. Its source points back at the service.
    public static func defaultStyle(_ set: TileSet) -> JSONValue {
        let layers = set.metadata["vector_layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        let palette = ["#d9cfb4", "#8fb8c9", "#c85a3c", "#7c9a62", "#9a7cb8"]
        var styleLayers: [JSONValue] = [["id": "background", "type": "background", "paint": ["background-color": "#aad3df"]]]
        for (index, layer) in layers.enumerated() {
            let colour = JSONValue.string(palette[index % palette.count])
            let source: JSONObject = ["source": "esri", "source-layer": .string(layer)]
            func styled(_ suffix: String, _ type: String, _ geometry: String, _ paint: JSONValue) -> JSONValue {
                var object = source
                object["id"] = .string("\(layer)-\(suffix)")
                object["type"] = .string(type)
                object["filter"] = ["==", "$type", .string(geometry)]
                object["paint"] = paint
                return .object(object)
            }
            styleLayers.append(styled("fill", "fill", "Polygon", ["fill-color": colour, "fill-outline-color": "#777777"]))
            styleLayers.append(styled("line", "line", "LineString", ["line-color": colour, "line-width": 1]))
            styleLayers.append(styled("circle", "circle", "Point", ["circle-color": colour, "circle-radius": 3]))
        }
        return [
            "version": 8, "name": .string(set.name),
            "sources": [
                "esri": [
                    "type": "vector", "url": "../../", "tiles": ["../../tile/{z}/{y}/{x}.pbf"], "minzoom": .int(Int64(set.minZoom)),
                    "maxzoom": .int(Int64(set.maxZoom)),
                ]
            ],
            "layers": .array(styleLayers),
        ]
    }
}
