import Foundation
import OutpostStorage
import OutpostWire

extension DemoData {
    /// The demo tile services: names and the files in `testdata/` they are made of
    /// (`scripts/make-demo-tiles.sh`).
    public static let demoTileSets = [("DemoBasemap", "demo-raster.mbtiles"), ("DemoVectorBasemap", "demo-vector.mbtiles")]

    static func seedTiles(_ store: some OutpostBackend, testdataDirectory: String) throws {
        for (name, file) in demoTileSets {
            let path = (testdataDirectory as NSString).appendingPathComponent(file)
            _ = try store.tiles.addTileSet(mbtiles: path, name: name, description: "Outpost demo: Natural Earth (public domain)")
        }
    }

    /// The demo web map's item id (fixed, so documentation and tests can name it).
    public static let demoMapId = "de3000000000000000000000000000a1"

    /// The "Demo map" item: every layer and table of the demo services, offline settings
    /// authored, the `Offline` keyword, public, owned by the server. Its layer URLs are
    /// server-relative and answered absolute for the asking host.
    static func seedMap(_ store: some OutpostBackend) throws {
        var layers: [JSONValue] = []
        var tables: [JSONValue] = []
        for service in try store.catalog().services where !service.definition.layers.isEmpty {
            for layer in service.definition.layers {
                let entry: JSONValue = [
                    "id": .string("\(service.definition.name)-\(layer.id)"), "title": .string(layer.name), "layerType": "ArcGISFeatureLayer",
                    "url": .string("/arcgis/rest/services/\(service.definition.name)/FeatureServer/\(layer.id)"), "visibility": true,
                    "opacity": 1,
                ]
                if layer.kind == .table { tables.append(entry) } else { layers.append(entry) }
            }
        }
        let map: JSONValue = [
            "operationalLayers": .array(layers), "tables": .array(tables),
            "baseMap": [
                "baseMapLayers": [
                    [
                        "id": "DemoBasemap", "title": "Demo basemap", "layerType": "ArcGISTiledMapServiceLayer",
                        "url": "/arcgis/rest/services/DemoBasemap/MapServer", "visibility": true, "opacity": 1,
                    ]
                ],
                "title": "Demo basemap",
            ],
            "spatialReference": ["wkid": 102100, "latestWkid": 3857], "version": "2.31", "authoringApp": "Outpost", "authoringAppVersion": "1.0",
            "initialState": ["viewpoint": ["targetGeometry": WebMercatorTiling.extent([-180, -70, 180, 80])]],
            "applicationProperties": [
                "offline": [
                    "editableLayers": ["download": "features", "sync": "syncFeaturesAndAttachments"],
                    "readonlyLayers": ["downloadAttachments": true],
                ]
            ],
        ]
        let item = PortalItem(
            id: demoMapId, owner: "outpost", title: "Demo map", type: "Web Map", access: .public, created: store.clock.milliseconds(),
            typeKeywords: ["ArcGIS Online", "Explorer Web Map", "Map", "Online Map", "Web Map", "Offline"], tags: ["demo"],
            snippet: "The demo services' layers, ready to be taken offline.", extent: [[-180, -90], [180, 90]], spatialReference: "4326")
        try store.portal.addItem(item, data: .text(map.jsonText))
        // Its thumbnail: the demo basemap's whole world (level 0, one 256 px PNG tile).
        if let world = try store.tiles.tile(set: demoTileSets[0].0, level: 0, row: 0, column: 0) {
            _ = try store.portal.setThumbnail(item: demoMapId, name: "demo-map.png", data: .bytes(world))
        }
    }
}
