import OutpostWire
import Testing

/// The Web Mercator tiling and the tile services' JSON (docs/tiles.md).
@Suite struct TileServiceInfoTests {
    @Test func levelsMatchArcGISsWebMercatorScheme() {
        // ArcGIS Online's tiling scheme: level 0 and level 5.
        #expect(abs(WebMercatorTiling.resolution(level: 0) - 156_543.033_928) < 1e-5)
        #expect(abs(WebMercatorTiling.scale(level: 0) - 591_657_527.591_555) < 0.01)
        #expect(abs(WebMercatorTiling.resolution(level: 5) - 4_891.969_809_375) < 1e-6)
        #expect(abs(WebMercatorTiling.scale(level: 5) - 18_489_297.737_236) < 0.01)
        let corner = WebMercatorTiling.project(longitude: 180, latitude: 85.051_128_78)
        #expect(abs(corner.x - WebMercatorTiling.halfWorld) < 1e-6 && abs(corner.y - WebMercatorTiling.halfWorld) < 1)
    }

    @Test func aMapServerAnswersWhatOfflineClientsRead() {
        let set = TileSet(name: "Streets", kind: .raster, format: "png", minZoom: 0, maxZoom: 5, created: 1)
        let json = TileServiceInfo.mapServer(set, currentVersion: 11.1)
        #expect(json["singleFusedMapCache"] == true && json["exportTilesAllowed"] == true)
        #expect(json["maxExportTilesCount"] == 100_000)
        #expect(json["tileInfo"]?["lods"]?.arrayValue?.count == 6)
        #expect(json["tileInfo"]?["format"] == "PNG" && json["tileInfo"]?["rows"] == 256)
        #expect(json["fullExtent"]?["spatialReference"]?["wkid"] == 102100)
        #expect(
            set.contains(level: 5, row: 31, column: 0) && !set.contains(level: 5, row: 32, column: 0) && !set.contains(level: 6, row: 0, column: 0))
    }

    @Test func aVectorTileServerHas512PixelLevelsAndADefaultStylePerLayer() {
        let set = TileSet(
            name: "V", kind: .vector, format: "pbf", minZoom: 0, maxZoom: 3, metadata: ["vector_layers": [["id": "countries"], ["id": "cities"]]],
            created: 1)
        let json = TileServiceInfo.vectorTileServer(set, currentVersion: 11.1)
        #expect(json["tiles"]?[0] == "tile/{z}/{y}/{x}.pbf" && json["type"] == "indexedVector")
        #expect(json["tileInfo"]?["rows"] == 512)
        #expect(json["tileInfo"]?["lods"]?[0]?["resolution"]?.doubleValue.map { abs($0 - 78_271.516_964) < 1e-5 } == true)
        let style = TileServiceInfo.defaultStyle(set)
        let sourceLayers = Set(style["layers"]?.arrayValue?.compactMap { $0["source-layer"]?.stringValue } ?? [])
        #expect(sourceLayers == ["countries", "cities"])
        #expect(style["sources"]?["esri"]?["type"] == "vector" && style["version"] == 8)
    }
}
