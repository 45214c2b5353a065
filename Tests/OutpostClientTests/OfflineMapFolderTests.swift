import Foundation
import OutpostWire
import Testing

@testable import OutpostClient

/// `map.json` rewritten for the folder (docs/offline-map-format.md, "map.json"), one case per row.
@Suite struct OfflineMapFolderTests {
    static let base = "https://h/arcgis/rest/services"
    static let webMap: JSONValue = [
        "operationalLayers": [
            ["id": "cities", "url": .string("\(base)/Demo/FeatureServer/0")],
            ["id": "wms", "url": "https://other/wms"],
            ["id": "points", "url": .string("\(base)/NoSync/FeatureServer/0")],
            ["id": "failed", "url": .string("\(base)/Broken/FeatureServer/1")],
        ],
        "tables": [],
        "baseMap": ["baseMapLayers": [["id": "basemap", "url": .string("\(base)/DemoBasemap/MapServer")]], "title": "Base"],
    ]

    static func layer(_ id: String, offline: Bool, online: Bool = false, basemap: Bool = false) -> OfflineMapPlan.LayerEntry {
        .init(
            mapLayerId: id, title: id, isTable: false, isBasemap: basemap, serviceURL: nil,
            capability: OfflineCapability(supportsOffline: offline, remainsOnline: online, error: offline ? nil : "no"))
    }

    static let plan = OfflineMapPlan(
        layers: [
            layer("cities", offline: true), layer("wms", offline: false, online: true), layer("points", offline: false),
            layer("failed", offline: true), layer("basemap", offline: true, basemap: true),
        ], geodatabases: [], tileCaches: [], referenceBasemap: nil)

    static let children: [GenerateOfflineMapJob.Child] = [
        .init(kind: .geodatabase, serviceURL: "\(base)/Demo/FeatureServer", mapLayerIds: ["cities"], file: "data/Demo.gpkg", state: .done),
        .init(kind: .geodatabase, serviceURL: "\(base)/Broken/FeatureServer", mapLayerIds: ["failed"], file: "data/Broken.gpkg", state: .failed),
        .init(kind: .tiles, serviceURL: "\(base)/DemoBasemap/MapServer", mapLayerIds: ["basemap"], file: "tiles/DemoBasemap.mbtiles", state: .done),
    ]

    @Test func layersTakenPointAtTheirFilesOnlineOnesStayAndTheRestAreLeftOut() {
        let map = OfflineMapFolder.map(webMap: Self.webMap, plan: Self.plan, children: Self.children)
        let layers = map["operationalLayers"]?.arrayValue ?? []
        #expect(layers.map { $0["id"]?.stringValue } == ["cities", "wms"])
        #expect(layers[0]["url"] == "data/Demo.gpkg" && layers[0]["x-outpost-layerId"] == 0)
        #expect(layers[0]["x-outpost-source"]?.stringValue == "\(Self.base)/Demo/FeatureServer/0")
        #expect(layers[1] == Self.webMap["operationalLayers"]?[1], "online: unchanged")
        #expect(map["baseMap"]?["baseMapLayers"]?[0]?["url"] == "tiles/DemoBasemap.mbtiles" && map["baseMap"]?["title"] == "Base")
    }

    @Test func aReferenceBasemapIsItsPathOnTheDevice() {
        var plan = Self.plan
        plan.referenceBasemap = URL(fileURLWithPath: "/device/basemaps/Europe.mbtiles")
        let map = OfflineMapFolder.map(webMap: Self.webMap, plan: plan, children: Array(Self.children.prefix(1)))
        #expect(map["baseMap"]?["baseMapLayers"]?[0]?["url"] == "/device/basemaps/Europe.mbtiles")
    }

    @Test func theQGISProjectListsEveryLayerWithPathsRelativeToTheFolder() {
        let xml = QGISProject.xml(
            title: "A & B",
            layers: [
                .init(id: "cities", name: "Cities", file: "data/Demo.gpkg", kind: .vector(table: "Cities", geometry: "Point", epsg: 4326)),
                .init(id: "base", name: "Base", file: "tiles/DemoBasemap.mbtiles", kind: .raster),
                .init(id: "ref", name: "Ref", file: "/device/Europe.mbtiles", kind: .vectorTiles),
            ])
        #expect(xml.contains("<datasource>./data/Demo.gpkg|layername=Cities</datasource>"))
        #expect(xml.contains("<datasource>./tiles/DemoBasemap.mbtiles</datasource>") && xml.contains("<provider encoding=\"UTF-8\">gdal</provider>"))
        #expect(xml.contains("type=mbtiles&amp;url=/device/Europe.mbtiles"))
        #expect(xml.contains("projectname=\"A &amp; B\"") && xml.contains("<Absolute type=\"bool\">false</Absolute>"))
        #expect(xml.range(of: "Cities")!.lowerBound < xml.range(of: "DemoBasemap")!.lowerBound, "top first")
    }
}
