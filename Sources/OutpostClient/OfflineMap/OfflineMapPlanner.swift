import Foundation
import OutpostSync
import OutpostWire

/// What a service of the map is, as the planner needs it (read by `OfflineMapTask.load`).
public struct OfflineServiceFacts: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case feature, mapTiles, vectorTiles }
    public var kind: Kind
    public var syncEnabled = false
    public var supportsPerLayerSync = false
    /// Editable offline (`LayerCapabilities.isEditableOffline`).
    public var editable = false
    public var layers: [FeatureServiceInfo.LayerSummary] = []
    public var exportTilesAllowed = false
    public var lods: [TileLevel] = []
    public var minScale = 0.0
    public var maxScale = 0.0

    public struct TileLevel: Sendable, Equatable {
        public var level: Int
        public var scale: Double
        public init(level: Int, scale: Double) {
            self.level = level
            self.scale = scale
        }
    }

    public init(kind: Kind) { self.kind = kind }
}

/// Whether a layer or table of the map can go offline (`OfflineCapability`).
public struct OfflineCapability: Sendable, Equatable, Codable {
    public var supportsOffline: Bool
    /// Kept in the offline map, still reading its service.
    public var remainsOnline: Bool
    public var error: String?
}

/// The offline map `GenerateOfflineMapJob` makes, decided ahead (offline-maps.md §1.5, §4.1, A.2):
/// each layer's capability, one geodatabase per feature service, one tile cache per tiled
/// service, the layers left online.
public struct OfflineMapPlan: Sendable, Equatable, Codable {
    public struct LayerEntry: Sendable, Equatable, Codable {
        /// The web map's layer `id` (or its URL when it has none).
        public var mapLayerId: String
        public var title: String
        public var isTable: Bool
        public var isBasemap: Bool
        public var serviceURL: String?
        public var capability: OfflineCapability
    }

    public struct Geodatabase: Sendable, Equatable, Codable {
        public var serviceURL: String
        public var parameters: GenerateGeodatabaseParameters
        public var mapLayerIds: [String]
    }

    public struct TileCache: Sendable, Equatable, Codable {
        public var serviceURL: String
        public var parameters: ExportTileCacheParameters
        public var isVector: Bool
        public var mapLayerIds: [String]
    }

    public var layers: [LayerEntry] = []
    public var geodatabases: [Geodatabase] = []
    public var tileCaches: [TileCache] = []
    /// The basemap comes from a tile package already on the device.
    public var referenceBasemap: URL?
    /// Locators (`…/GeocodeServer`) and route services (`…/NAServer`) carried as files, for
    /// `LocatorTask` and `RouteTask` on the device (`PortalHelperServices.asked`).
    public var locators: [String] = []
    public var networks: [String] = []

    public var hasErrors: Bool { layers.contains { $0.capability.error != nil } }
}

public enum OfflineMapPlanner {
    /// The plan for `webMap` (its URLs absolute) with `parameters`, knowing each service's
    /// `facts` by URL (a service missing from it could not be read).
    public static func plan(
        webMap: JSONValue, parameters: GenerateOfflineMapParameters, facts: [String: OfflineServiceFacts],
        tasks: (locators: [String], networks: [String]) = ([], [])
    ) -> OfflineMapPlan {
        var plan = OfflineMapPlan()
        (plan.locators, plan.networks) = tasks
        let connected = WebMapOfflineSettings(webMap: webMap).connectedOnlineLayers
        var seenURLs: Set<String> = []
        var featureLayers: [String: [(id: Int, entry: String, filter: String?, isTable: Bool)]] = [:]
        var featureOrder: [String] = []
        var tileEntries: [String: [String]] = [:]
        var tileOrder: [String] = []
        if parameters.includeBasemap, let directory = parameters.referenceBasemapDirectory, let file = parameters.referenceBasemapFilename {
            plan.referenceBasemap = directory.appendingPathComponent(file)
        }

        let entries =
            (webMap["operationalLayers"]?.arrayValue ?? []).map { ($0, false, false) }
            + (webMap["tables"]?.arrayValue ?? []).map { ($0, true, false) }
            + (webMap["baseMap"]?["baseMapLayers"]?.arrayValue ?? []).map { ($0, false, true) }
        for (entry, isTable, isBasemap) in entries {
            let url = entry["url"]?.stringValue
            let id = entry["id"]?.stringValue ?? url ?? "layer\(plan.layers.count)"
            if isBasemap && !parameters.includeBasemap { continue }
            var layer = OfflineMapPlan.LayerEntry(
                mapLayerId: id, title: entry["title"]?.stringValue ?? id, isTable: isTable, isBasemap: isBasemap,
                serviceURL: url.map(PackagePlanner.serviceURL), capability: OfflineCapability(supportsOffline: true, remainsOnline: false))
            func refuse(_ reason: String) {
                let online: Bool =
                    switch parameters.onlineOnlyServicesOption {
                    case .exclude: false
                    case .include: true
                    case .useAuthoredSettings: connected.contains(id)
                    }
                layer.capability = OfflineCapability(supportsOffline: false, remainsOnline: online && url != nil, error: reason)
            }
            defer { plan.layers.append(layer) }
            if isBasemap, plan.referenceBasemap != nil { continue }
            guard let url, let service = layer.serviceURL,
                ["/FeatureServer", "/MapServer", "/VectorTileServer"].contains(where: { service.hasSuffix($0) })
            else {
                refuse("Layer type is not supported")
                continue
            }
            guard seenURLs.insert(url).inserted else {
                refuse("The same layer is in the map twice (\(url)).")
                continue
            }
            guard let fact = facts[service] else {
                refuse("The service \(service) could not be read.")
                continue
            }
            switch fact.kind {
            case .feature:
                guard fact.syncEnabled else {
                    refuse("The feature service does not support sync (its capabilities lack Sync).")
                    continue
                }
                let ids = layerIds(url, fact: fact)
                if featureLayers[service] == nil { featureOrder.append(service) }
                let filter = parameters.definitionExpressionFilterEnabled ? entry["layerDefinition"]?["definitionExpression"]?.stringValue : nil
                for layerId in ids where !(featureLayers[service] ?? []).contains(where: { $0.id == layerId }) {
                    let table = fact.layers.first { $0.id == layerId }?.isTable ?? isTable
                    featureLayers[service, default: []].append((layerId, id, filter, table))
                }
            case .mapTiles, .vectorTiles:
                guard fact.exportTilesAllowed else {
                    refuse("The tile service does not allow exporting tiles (exportTilesAllowed).")
                    continue
                }
                let levels = ExportTileCacheParameters.levels(
                    of: fact.lods.map { ($0.level, $0.scale) }, minScale: parameters.minScale, maxScale: parameters.maxScale,
                    serviceMinScale: fact.minScale, serviceMaxScale: fact.maxScale)
                guard !levels.isEmpty else {
                    refuse("No level of the tile service lies between the scales asked.")
                    continue
                }
                if tileEntries[service] == nil { tileOrder.append(service) }
                tileEntries[service, default: []].append(id)
            }
        }

        for service in featureOrder {
            guard let fact = facts[service], let layers = featureLayers[service] else { continue }
            plan.geodatabases.append(
                OfflineMapPlan.Geodatabase(
                    serviceURL: service, parameters: geodatabaseParameters(layers, fact: fact, parameters: parameters),
                    mapLayerIds: layers.map(\.entry).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }))
        }
        // Tiles as MBTiles, raster and vector alike: every GIS reads them (QGIS and QField with
        // any GDAL; `.tpkx` needs GDAL 3.8 or later). docs/offline-map-format.md.
        for service in tileOrder {
            guard let fact = facts[service] else { continue }
            let levels = ExportTileCacheParameters.levels(
                of: fact.lods.map { ($0.level, $0.scale) }, minScale: parameters.minScale, maxScale: parameters.maxScale,
                serviceMinScale: fact.minScale, serviceMaxScale: fact.maxScale)
            plan.tileCaches.append(
                OfflineMapPlan.TileCache(
                    serviceURL: service,
                    parameters: ExportTileCacheParameters(
                        levelIDs: levels, areaOfInterest: parameters.areaOfInterest, areaSpatialReference: parameters.areaSpatialReference,
                        storageFormat: "MBTiles"),
                    isVector: fact.kind == .vectorTiles, mapLayerIds: tileEntries[service] ?? []))
        }
        return plan
    }

    /// A feature service's `createReplica`: the area, each layer filtered (or schema only when
    /// editable and asked so), tables by `destinationTableRowFilter`, attachments by
    /// `returnLayerAttachmentOption`, per-layer sync when the service has it; no sync model at
    /// all with `noUpdates` (nothing is registered).
    static func geodatabaseParameters(
        _ layers: [(id: Int, entry: String, filter: String?, isTable: Bool)], fact: OfflineServiceFacts, parameters: GenerateOfflineMapParameters
    ) -> GenerateGeodatabaseParameters {
        let schemaOnly = fact.editable && parameters.returnSchemaOnlyForEditableLayers
        let options = layers.sorted { $0.id < $1.id }.map { layer -> GenerateLayerOption in
            if schemaOnly { return GenerateLayerOption(layerId: layer.id, queryOption: .none, useGeometry: false, includeRelated: false) }
            if layer.isTable {
                return parameters.destinationTableRowFilter == .all
                    ? GenerateLayerOption(layerId: layer.id, queryOption: .all, whereClause: layer.filter, useGeometry: false)
                    : GenerateLayerOption(layerId: layer.id, queryOption: .none, useGeometry: false, includeRelated: true)
            }
            return GenerateLayerOption(layerId: layer.id, queryOption: .useFilter, whereClause: layer.filter, useGeometry: true)
        }
        let attachments = OfflineAttachments(
            editable: fact.editable, downloaded: parameters.returnLayerAttachmentOption.includes(editable: fact.editable),
            asked: parameters.attachmentSyncDirection)
        return GenerateGeodatabaseParameters(
            extent: parameters.areaOfInterest, extentSpatialReference: parameters.areaSpatialReference, layerOptions: options,
            syncModel: parameters.updateMode == .noUpdates ? .none : (fact.supportsPerLayerSync ? .perLayer : .perReplica),
            returnAttachments: attachments.returnAttachments,
            attachmentsSyncDirection: parameters.updateMode == .noUpdates ? .none : attachments.syncDirection)
    }

    /// The layer ids a map entry names: its URL's, else every layer of the service.
    static func layerIds(_ url: String, fact: OfflineServiceFacts) -> [Int] {
        if let last = url.split(separator: "/").last, let id = Int(last) { return [id] }
        return fact.layers.map(\.id)
    }
}
