import Foundation
import OutpostClient
import Testing

/// Taking a web map offline, decided without I/O (docs/client.md, "Offline maps"): the
/// defaults from the map's offline settings, each layer's capability, one geodatabase per
/// feature service and one tile cache per tiled service with their parameters.
@Suite struct OfflineMapPlannerTests {
    static let base = "https://h/arcgis/rest/services"
    static let area = Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56)

    static func map(offline: JSONValue? = nil) -> JSONValue {
        var object: JSONObject = [
            "operationalLayers": [
                ["id": "cities", "url": .string("\(base)/Demo/FeatureServer/0"), "title": "Cities"],
                ["id": "trees", "url": .string("\(base)/Demo/FeatureServer/2"), "layerDefinition": ["definitionExpression": "height_m > 5"]],
                ["id": "nosync", "url": .string("\(base)/NoSync/FeatureServer/0")],
                ["id": "wms", "layerType": "WMS", "url": "https://other/wms"],
                ["id": "sketch", "layerType": "ArcGISFeatureLayer", "featureCollection": ["layers": []]],
                ["id": "again", "url": .string("\(base)/Demo/FeatureServer/0")],
                ["id": "gone", "url": .string("\(base)/Gone/FeatureServer/0")],
            ],
            "tables": [["id": "inspections", "url": .string("\(base)/Demo/FeatureServer/3")]],
            "baseMap": ["baseMapLayers": [["id": "basemap", "url": .string("\(base)/DemoBasemap/MapServer")]]],
        ]
        if let offline { object["applicationProperties"] = ["offline": offline] }
        return .object(object)
    }

    static var facts: [String: OfflineServiceFacts] {
        var demo = OfflineServiceFacts(kind: .feature)
        demo.syncEnabled = true
        demo.supportsPerLayerSync = true
        demo.editable = true
        demo.layers = [
            .init(id: 0, name: "Cities", isTable: false), .init(id: 2, name: "Trees", isTable: false),
            .init(id: 3, name: "Inspections", isTable: true),
        ]
        var noSync = OfflineServiceFacts(kind: .feature)
        noSync.layers = [.init(id: 0, name: "Points", isTable: false)]
        var basemap = OfflineServiceFacts(kind: .mapTiles)
        basemap.exportTilesAllowed = true
        basemap.lods = [(0, 591_657_527.591555), (1, 295_828_763.795777), (2, 147_914_381.897889), (3, 73_957_190.948944)].map {
            OfflineServiceFacts.TileLevel(level: $0.0, scale: $0.1)
        }
        return ["\(base)/Demo/FeatureServer": demo, "\(base)/NoSync/FeatureServer": noSync, "\(base)/DemoBasemap/MapServer": basemap]
    }

    static func capability(_ plan: OfflineMapPlan, _ id: String) -> OfflineCapability? { plan.layers.first { $0.mapLayerId == id }?.capability }

    @Test func eachLayerSaysWhetherItGoesOfflineAndWhy() throws {
        let plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: GenerateOfflineMapParameters(areaOfInterest: Self.area), facts: Self.facts)
        #expect(plan.layers.map(\.mapLayerId) == ["cities", "trees", "nosync", "wms", "sketch", "again", "gone", "inspections", "basemap"])
        #expect(Self.capability(plan, "gone")?.error?.contains("could not be read") == true)
        for id in ["cities", "trees", "inspections", "basemap"] { #expect(Self.capability(plan, id)?.supportsOffline == true, "\(id)") }
        #expect(Self.capability(plan, "nosync")?.error?.contains("Sync") == true)
        #expect(Self.capability(plan, "wms")?.error == "Layer type is not supported", "not a feature or tile service")
        #expect(Self.capability(plan, "sketch")?.error == "Layer type is not supported")
        #expect(Self.capability(plan, "again")?.error?.contains("twice") == true)
        #expect(plan.hasErrors && plan.layers.allSatisfy { !$0.capability.remainsOnline }, "exclude: nothing stays online")
        #expect(plan.geodatabases.map(\.serviceURL) == ["\(Self.base)/Demo/FeatureServer"])
        #expect(plan.geodatabases[0].mapLayerIds == ["cities", "trees", "inspections"])
        #expect(plan.tileCaches.map(\.serviceURL) == ["\(Self.base)/DemoBasemap/MapServer"])
    }

    @Test func onlineOnlyLayersStayAsTheOptionSays() {
        var parameters = GenerateOfflineMapParameters(areaOfInterest: Self.area)
        parameters.onlineOnlyServicesOption = .include
        let included = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        #expect(Self.capability(included, "nosync")?.remainsOnline == true && Self.capability(included, "wms")?.remainsOnline == true)
        #expect(Self.capability(included, "sketch")?.remainsOnline == false, "no service to stay connected to")
        parameters.onlineOnlyServicesOption = .useAuthoredSettings
        let authored = OfflineMapPlanner.plan(
            webMap: Self.map(offline: ["connectedOnlineLayers": [["id": "wms"]]]), parameters: parameters, facts: Self.facts)
        #expect(Self.capability(authored, "wms")?.remainsOnline == true && Self.capability(authored, "nosync")?.remainsOnline == false)
    }

    /// docs/client.md, "Attachments offline": (editable, returnLayerAttachmentOption,
    /// attachmentSyncDirection) → (returnAttachments, attachmentsSyncDirection) of the replica.
    static let attachmentRows: [(Bool, ReturnLayerAttachmentOption, AttachmentsSyncDirection, Bool, AttachmentsSyncDirection)] = [
        (true, .allLayers, .bidirectional, true, .bidirectional),
        (true, .editableLayers, .upload, true, .upload),
        (true, .readOnlyLayers, .bidirectional, false, .upload),
        (true, .none, .upload, false, .upload),
        (true, .none, .none, false, .none),
        (true, .allLayers, .none, false, .none),
        (false, .allLayers, .upload, true, .bidirectional),
        (false, .readOnlyLayers, .none, true, .bidirectional),
        (false, .editableLayers, .bidirectional, false, .none),
        (false, .none, .bidirectional, false, .none),
    ]

    @Test(arguments: attachmentRows.indices)
    func attachmentsFollowTheOptionTheDirectionAndWhetherTheLayerIsEditable(_ row: Int) throws {
        let (editable, option, direction, returned, synced) = Self.attachmentRows[row]
        var facts = Self.facts
        facts["\(Self.base)/Demo/FeatureServer"]?.editable = editable
        var parameters = GenerateOfflineMapParameters(areaOfInterest: Self.area)
        parameters.returnLayerAttachmentOption = option
        parameters.attachmentSyncDirection = direction
        let replica = try #require(OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: facts).geodatabases.first?.parameters)
        #expect(replica.returnAttachments == returned && replica.attachmentsSyncDirection == synced)
    }

    @Test func aFeatureServicesReplicaFollowsTheParameters() throws {
        var parameters = GenerateOfflineMapParameters(areaOfInterest: Self.area)
        var plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        var replica = try #require(plan.geodatabases.first?.parameters)
        #expect(replica.layerOptions.map(\.layerId) == [0, 2, 3] && replica.syncModel == .perLayer && replica.extent == Self.area)
        #expect(replica.layerOptions[1].whereClause == "height_m > 5" && replica.layerOptions[1].queryOption == .useFilter)
        #expect(replica.layerOptions[2].queryOption == .none && replica.layerOptions[2].includeRelated, "a table: related rows only")
        #expect(replica.returnAttachments && replica.attachmentsSyncDirection == .bidirectional)

        parameters.definitionExpressionFilterEnabled = false
        parameters.destinationTableRowFilter = .all
        parameters.returnLayerAttachmentOption = .readOnlyLayers
        plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        replica = try #require(plan.geodatabases.first?.parameters)
        #expect(replica.layerOptions[1].whereClause == nil && replica.layerOptions[2].queryOption == .all)
        #expect(!replica.returnAttachments && replica.attachmentsSyncDirection == .upload, "editable: attachments made offline still go up")

        parameters.returnSchemaOnlyForEditableLayers = true
        parameters.updateMode = .noUpdates
        plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        replica = try #require(plan.geodatabases.first?.parameters)
        #expect(replica.layerOptions.allSatisfy { $0.queryOption == .none && !$0.includeRelated }, "schema only")
        #expect(replica.syncModel == .none, "noUpdates: nothing registered")
    }

    @Test func tilesFollowTheScalesTheBasemapOptionsAndAReferenceBasemap() throws {
        var parameters = GenerateOfflineMapParameters(areaOfInterest: Self.area, minScale: 295_828_764, maxScale: 147_914_381.9)
        var plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        #expect(plan.tileCaches.first?.parameters.levelIDs == [1, 2] && plan.tileCaches.first?.parameters.areaOfInterest == Self.area)
        parameters.minScale = 30_000_000
        parameters.maxScale = 20_000_000
        plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        #expect(plan.tileCaches.isEmpty && Self.capability(plan, "basemap")?.error?.contains("scales") == true)
        parameters.includeBasemap = false
        plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        #expect(!plan.layers.contains { $0.isBasemap } && plan.tileCaches.isEmpty)
        parameters.includeBasemap = true
        parameters.referenceBasemapDirectory = URL(fileURLWithPath: "/device/basemaps")
        parameters.referenceBasemapFilename = "Europe.tpkx"
        plan = OfflineMapPlanner.plan(webMap: Self.map(), parameters: parameters, facts: Self.facts)
        #expect(plan.referenceBasemap?.path == "/device/basemaps/Europe.tpkx" && plan.tileCaches.isEmpty)
        #expect(Self.capability(plan, "basemap")?.supportsOffline == true)
    }

    /// Each row: the map's offline settings, and the defaults they give.
    static let settings: [(JSONValue?, ReturnLayerAttachmentOption, AttachmentsSyncDirection, Bool, OnlineOnlyServicesOption)] = [
        (nil, .allLayers, .bidirectional, false, .exclude),
        (["editableLayers": ["download": "features"]], .readOnlyLayers, .bidirectional, false, .useAuthoredSettings),
        (["editableLayers": ["download": "none", "sync": "syncFeaturesUploadAttachments"]], .readOnlyLayers, .upload, true, .useAuthoredSettings),
        (["readonlyLayers": ["downloadAttachments": false]], .editableLayers, .bidirectional, false, .useAuthoredSettings),
        (
            ["editableLayers": ["download": "features", "sync": "uploadFeaturesAndAttachments"], "readonlyLayers": ["downloadAttachments": false]],
            .none, .upload, false, .useAuthoredSettings
        ),
    ]

    @Test(arguments: settings.indices) func theMapsOfflineSettingsGiveTheDefaults(_ row: Int) {
        let (offline, attachments, direction, schemaOnly, online) = Self.settings[row]
        let parameters = GenerateOfflineMapParameters(defaultsFor: Self.map(offline: offline), areaOfInterest: Self.area)
        #expect(parameters.returnLayerAttachmentOption == attachments)
        #expect(parameters.attachmentSyncDirection == direction)
        #expect(parameters.returnSchemaOnlyForEditableLayers == schemaOnly)
        #expect(parameters.onlineOnlyServicesOption == online)
    }

    @Test func aReferenceBasemapNamedByTheMapIsTheDefault() {
        let parameters = GenerateOfflineMapParameters(
            defaultsFor: Self.map(offline: ["offlinebasemap": ["referenceBasemapName": "LocalBasemap.tpkx"]]), areaOfInterest: Self.area)
        #expect(parameters.referenceBasemapFilename == "LocalBasemap.tpkx")
    }
}
