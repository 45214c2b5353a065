import OutpostGeometry
import OutpostWire
import Testing

@testable import OutpostSync

/// CreateMapArea's and SetupMapArea's rules (docs/map-areas.md), one case per test.
@Suite struct MapAreaPlannerTests {
    static let webMap: JSONValue = [
        "operationalLayers": [
            ["url": "https://h/arcgis/rest/services/Demo/FeatureServer/0"],
            ["url": "https://h/arcgis/rest/services/Demo/FeatureServer/2", "layerDefinition": ["definitionExpression": "height_m > 5"]],
            ["url": "https://h/arcgis/rest/services/Parcels/FeatureServer/0"],
            ["url": "https://h/arcgis/rest/services/DemoVectorBasemap/VectorTileServer"],
        ],
        "tables": [["url": "https://h/arcgis/rest/services/Demo/FeatureServer/3"]],
        "baseMap": ["baseMapLayers": [["url": "https://h/arcgis/rest/services/DemoBasemap/MapServer"]]],
        "bookmarks": [["name": "Berlin", "extent": ["xmin": 13, "ymin": 52, "xmax": 14, "ymax": 53, "spatialReference": ["wkid": 4326]]]],
        "applicationProperties": ["offline": ["editableLayers": ["download": "features", "sync": "syncFeaturesUploadAttachments"]]],
    ]

    static func area(_ type: String?, _ area: String?, extent: String? = nil, bookmark: String? = nil) throws(PackagingError) -> MapAreaShape {
        try MapAreaPlanner.area(areaType: type, area: area, extent: extent, bookmark: bookmark, webMap: webMap)
    }

    @Test func anEnvelopeAreaKeepsItsSpatialReferenceAndDefaultsToWGS84() throws {
        #expect(
            try Self.area("ENVELOPE", #"{"xmin":1,"ymin":2,"xmax":3,"ymax":4,"spatialReference":{"wkid":102100}}"#)
                == .envelope(Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4), wkid: 102100))
        #expect(try Self.area("ENVELOPE", #"{"xmin":1,"ymin":2,"xmax":3,"ymax":4}"#).wkid == 4326)
    }

    @Test func aPolygonAreaIsItsRings() throws {
        let shape = try Self.area("POLYGON", #"{"rings":[[[0,0],[0,1],[1,1],[0,0]]],"spatialReference":{"wkid":4326}}"#)
        #expect(shape == .polygon([[Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 1, y: 1), Point(x: 0, y: 0)]], wkid: 4326))
        #expect(shape.extent == Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1))
    }

    /// Issue 43: an area's packages filter their replicas by it, so it may have no more vertices
    /// than a filter geometry (`Geometry.maximumFilterVertices`), within its 100,000 characters.
    @Test func aPolygonAreaHasAtMostAFilterGeometrysVertices() throws {
        func area(_ count: Int) -> String {
            let points = (0..<(count - 1)).map { "[\($0 % 100),\($0 / 100)]" }
            return #"{"rings":[["# + (points + [points[0]]).joined(separator: ",") + "]]}"
        }
        let limit = Geometry.maximumFilterVertices
        #expect(area(limit + 1).utf8.count < MapAreaPlanner.maximumAreaText)
        let taken = try MapAreaPlanner.area(areaType: "POLYGON", area: area(limit), extent: nil, bookmark: nil, webMap: .null)
        #expect(taken.geometryJSON["rings"]?[0]?.arrayValue?.count == limit)
        #expect(throws: PackagingError.self) {
            try MapAreaPlanner.area(areaType: "POLYGON", area: area(limit + 1), extent: nil, bookmark: nil, webMap: .null)
        }
    }

    @Test func aBookmarkAreaIsTheBookmarksExtent() throws {
        let berlin = MapAreaShape.envelope(Envelope(xmin: 13, ymin: 52, xmax: 14, ymax: 53), wkid: 4326)
        #expect(try Self.area("BOOKMARK", #"{"name":"Berlin"}"#) == berlin)
        #expect(try Self.area(nil, nil, bookmark: "Berlin") == berlin, "the deprecated bookmark parameter")
    }

    @Test func areaComesBeforeExtentBeforeBookmark() throws {
        let shape = try Self.area(
            "ENVELOPE", #"{"xmin":1,"ymin":2,"xmax":3,"ymax":4}"#, extent: #"{"xmin":5,"ymin":5,"xmax":6,"ymax":6}"#, bookmark: "Berlin")
        #expect(shape.extent.xmin == 1)
        #expect(try Self.area(nil, nil, extent: #"{"xmin":5,"ymin":5,"xmax":6,"ymax":6}"#, bookmark: "Berlin").extent.xmin == 5)
    }

    static let refusals: [(String, String?, String?, String?, PackagingError.Code)] = [
        ("no area at all", nil, nil, nil, .areaMissing),
        ("an unknown bookmark", "BOOKMARK", #"{"name":"Paris"}"#, nil, .invalidParameter),
        (
            "an area over 100,000 characters", "POLYGON", "{\"rings\":[[" + String(repeating: "[0,0],", count: 20_000) + "[0,0]]]}", nil,
            .invalidParameter
        ),
        ("an envelope with no width", "ENVELOPE", #"{"xmin":1,"ymin":2,"xmax":1,"ymax":4}"#, nil, .invalidParameter),
        ("a polygon named an envelope's type", "POLYGON", #"{"xmin":1,"ymin":2,"xmax":3,"ymax":4}"#, nil, .invalidParameter),
        ("an unknown area type", "CIRCLE", #"{"x":1}"#, nil, .invalidParameter),
        ("an extent that is not JSON", nil, nil, "north", .invalidParameter),
    ]

    @Test(arguments: refusals.indices) func badAreasAreRefusedWithArcGISsCodes(_ row: Int) {
        let (reason, type, area, extent, code) = Self.refusals[row]
        #expect(throws: PackagingError.self, "\(reason)") { try Self.area(type, area, extent: extent) }
        do { _ = try Self.area(type, area, extent: extent) } catch { #expect(error.code == code, "\(reason)") }
    }

    @Test func aSeventeenthAreaOrTheSameAreaTwiceIsRefused() throws {
        let areas = (0..<16).map { MapAreaShape.envelope(Envelope(xmin: Double($0), ymin: 0, xmax: Double($0) + 1, ymax: 1), wkid: 4326) }
        let new = MapAreaShape.envelope(Envelope(xmin: 100, ymin: 0, xmax: 101, ymax: 1), wkid: 4326)
        #expect(throws: PackagingError.exceeding(limit: 16)) { try MapAreaPlanner.check(new, existing: areas, limit: 16) }
        #expect(throws: PackagingError.exists) { try MapAreaPlanner.check(areas[3], existing: Array(areas.prefix(5)), limit: 16) }
        try MapAreaPlanner.check(new, existing: Array(areas.prefix(15)), limit: 16)
        #expect(PackagingError.exceeding(limit: 16).json["messageCode"] == "OffPkg_25")
    }

    // MARK: Packages

    static let facts: [String: PackagedServiceFacts] = [
        "https://h/arcgis/rest/services/Demo/FeatureServer": PackagedServiceFacts(editable: true),
        "https://h/arcgis/rest/services/Parcels/FeatureServer": PackagedServiceFacts(editable: false),
    ]

    @Test func onePackagePerFeatureServiceAndPerTiledServiceOfTheMap() {
        let plans = PackagePlanner.plan(webMap: Self.webMap, facts: Self.facts)
        #expect(
            plans.map(\.serviceURL) == [
                "https://h/arcgis/rest/services/Demo/FeatureServer", "https://h/arcgis/rest/services/Parcels/FeatureServer",
                "https://h/arcgis/rest/services/DemoVectorBasemap/VectorTileServer", "https://h/arcgis/rest/services/DemoBasemap/MapServer",
            ])
        guard case .features(let demo) = plans[0] else {
            Issue.record("not a feature package")
            return
        }
        #expect(demo.layers == [0, 2, 3], "layers and tables of one service, sorted")
        #expect(demo.layerQueries == [2: ["queryOption": "useFilter", "where": "height_m > 5"]], "a layer's definition query")
    }

    @Test func editableLayersFollowTheMapsOfflineSettings() {
        // download=features, sync=syncFeaturesUploadAttachments: no attachments, uploaded only.
        guard case .features(let demo) = PackagePlanner.plan(webMap: Self.webMap, facts: Self.facts)[0] else {
            Issue.record("")
            return
        }
        #expect(!demo.returnAttachments && demo.attachmentsSyncDirection == "upload")
        var schemaOnly = Self.webMap
        schemaOnly = .object(schemaOnly.objectValue!.replacing("applicationProperties", with: ["offline": ["editableLayers": ["download": "none"]]]))
        guard case .features(let empty) = PackagePlanner.plan(webMap: schemaOnly, facts: Self.facts)[0] else {
            Issue.record("")
            return
        }
        #expect(empty.layerQueries[0] == ["queryOption": "none"] && !empty.returnAttachments && empty.attachmentsSyncDirection == "upload")
        let withAttachments: JSONValue = .object(Self.webMap.objectValue!.replacing("applicationProperties", with: ["offline": [:]]))
        guard case .features(let all) = PackagePlanner.plan(webMap: withAttachments, facts: Self.facts)[0] else {
            Issue.record("")
            return
        }
        #expect(all.returnAttachments && all.attachmentsSyncDirection == "bidirectional", "the defaults: features, attachments, both ways")
    }

    @Test func readOnlyLayersTakeAttachmentsUnlessTheMapSaysNot() {
        guard case .features(let parcels) = PackagePlanner.plan(webMap: Self.webMap, facts: Self.facts)[1] else {
            Issue.record("")
            return
        }
        #expect(parcels.returnAttachments && parcels.attachmentsSyncDirection == "bidirectional")
        let noAttachments: JSONValue = .object(
            Self.webMap.objectValue!.replacing("applicationProperties", with: ["offline": ["readonlyLayers": ["downloadAttachments": false]]]))
        guard case .features(let without) = PackagePlanner.plan(webMap: noAttachments, facts: Self.facts)[1] else {
            Issue.record("")
            return
        }
        #expect(!without.returnAttachments && without.attachmentsSyncDirection == "none")
    }

    @Test func ignoredLayersAndOptionsOfSetupMapAreaApply() {
        let plans = PackagePlanner.plan(
            webMap: Self.webMap, ignore: ["https://h/arcgis/rest/services/Parcels/FeatureServer/0"],
            tileServices: [TilePackagePlan(serviceURL: "https://h/arcgis/rest/services/DemoBasemap/MapServer", kind: .raster, levels: "0,1,2")],
            featureServices: PackagePlanner.FeatureOverride.parse(
                [["url": "https://h/arcgis/rest/services/Demo/FeatureServer", "layers": [0], "createPkgDeltas": ["maxDeltaAge": 3]]]),
            facts: Self.facts)
        #expect(!plans.map(\.serviceURL).contains("https://h/arcgis/rest/services/Parcels/FeatureServer"))
        guard case .features(let demo) = plans[0], case .tiles(let basemap) = plans.last else {
            Issue.record("\(plans)")
            return
        }
        #expect(demo.layers == [0] && demo.maxDeltaAge == 3)
        #expect(basemap.levels == "0,1,2")
    }
}

extension JSONObject {
    fileprivate func replacing(_ key: String, with value: JSONValue) -> JSONObject {
        var copy = self
        copy[key] = value
        return copy
    }
}
