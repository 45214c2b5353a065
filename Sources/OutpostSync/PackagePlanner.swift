import OutpostWire

/// What a map area's feature service package is made with: one `createReplica` (offline-maps.md
/// §1.3, §2.3 SetupMapArea step 5).
public struct FeaturePackagePlan: Equatable, Sendable {
    public var serviceURL: String
    public var layers: [Int]
    public var returnAttachments: Bool
    /// `bidirectional`, `upload` or `none`.
    public var attachmentsSyncDirection: String
    /// Per layer id: `{"queryOption":"useFilter","where":…}` or `{"queryOption":"none"}`.
    public var layerQueries: [Int: JSONValue]
    /// Scheduled-update deltas kept this many days (`createPkgDeltas.maxDeltaAge`); nil for none.
    public var maxDeltaAge: Int?

    public init(
        serviceURL: String, layers: [Int], returnAttachments: Bool, attachmentsSyncDirection: String, layerQueries: [Int: JSONValue],
        maxDeltaAge: Int?
    ) {
        self.serviceURL = serviceURL
        self.layers = layers
        self.returnAttachments = returnAttachments
        self.attachmentsSyncDirection = attachmentsSyncDirection
        self.layerQueries = layerQueries
        self.maxDeltaAge = maxDeltaAge
    }
}

/// What a map area's tile package is made with: one `exportTiles`.
public struct TilePackagePlan: Equatable, Sendable {
    public var serviceURL: String
    public var kind: TileSet.Kind
    /// `levels` as given (`"3,4,5"`); nil lets the packager choose.
    public var levels: String?

    public init(serviceURL: String, kind: TileSet.Kind, levels: String?) {
        self.serviceURL = serviceURL
        self.kind = kind
        self.levels = levels
    }
}

public enum PackagePlan: Equatable, Sendable {
    case features(FeaturePackagePlan)
    case tiles(TilePackagePlan)

    public var serviceURL: String {
        switch self {
        case .features(let plan): plan.serviceURL
        case .tiles(let plan): plan.serviceURL
        }
    }
}

/// What a feature service is, as the planner needs it.
public struct PackagedServiceFacts: Equatable, Sendable {
    /// Editable offline (`LayerCapabilities.isEditableOffline`).
    public var editable: Bool
    public init(editable: Bool) { self.editable = editable }
}

/// SetupMapArea's plan (offline-maps.md §2.3): one package per feature service of the web map's
/// operational layers and tables, one per tiled service of its layers and basemap, less
/// `mapLayersToIgnore`, with `featureServices`/`tileServices` adding services or overriding
/// options; feature defaults derived from the map's offline settings as §1.3's table says.
public enum PackagePlanner {
    public struct FeatureOverride: Equatable, Sendable {
        public var url: String
        public var layers: [Int]?
        public var returnAttachments: Bool?
        public var attachmentsSyncDirection: String?
        public var maxDeltaAge: Int?

        public init(
            url: String, layers: [Int]? = nil, returnAttachments: Bool? = nil, attachmentsSyncDirection: String? = nil, maxDeltaAge: Int? = nil
        ) {
            self.url = url
            self.layers = layers
            self.returnAttachments = returnAttachments
            self.attachmentsSyncDirection = attachmentsSyncDirection
            self.maxDeltaAge = maxDeltaAge
        }

        /// `featureServices` of SetupMapArea.
        public static func parse(_ json: JSONValue) -> [FeatureOverride] {
            (json.arrayValue ?? []).compactMap { entry in
                guard let url = entry["url"]?.stringValue else { return nil }
                return FeatureOverride(
                    url: PackagePlanner.serviceURL(url), layers: entry["layers"]?.arrayValue?.compactMap { $0.int64Value.map(Int.init) },
                    returnAttachments: entry["returnAttachments"]?.boolValue,
                    attachmentsSyncDirection: entry["attachmentsSyncDirection"]?.stringValue,
                    maxDeltaAge: entry["createPkgDeltas"].map { $0["maxDeltaAge"]?.int64Value.map(Int.init) ?? 5 })
            }
        }
    }

    /// The service a layer URL belongs to (`…/FeatureServer/3` → `…/FeatureServer`).
    public static func serviceURL(_ url: String) -> String {
        var trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        for kind in ["/FeatureServer", "/MapServer", "/VectorTileServer"] {
            if let range = trimmed.range(of: kind + "/") {
                trimmed = String(trimmed[..<range.upperBound].dropLast())
            }
        }
        return trimmed
    }

    public static func plan(
        webMap: JSONValue, ignore: [String] = [], tileServices: [TilePackagePlan] = [], featureServices: [FeatureOverride] = [],
        facts: [String: PackagedServiceFacts]
    ) -> [PackagePlan] {
        let ignored = Set(ignore.map(serviceURL))
        let offline = WebMapOfflineSettings(webMap: webMap)
        var layersByService: [(url: String, layers: [(id: Int, filter: String?)])] = []
        var tiles: [TilePackagePlan] = []
        let entries =
            (webMap["operationalLayers"]?.arrayValue ?? []) + (webMap["tables"]?.arrayValue ?? [])
            + (webMap["baseMap"]?["baseMapLayers"]?.arrayValue ?? [])
        for entry in entries {
            guard let url = entry["url"]?.stringValue, !ignored.contains(serviceURL(url)), !ignore.contains(url) else { continue }
            let service = serviceURL(url)
            if service.hasSuffix("/FeatureServer") {
                let ids = layerIds(url, entry: entry)
                let filter = entry["layerDefinition"]?["definitionExpression"]?.stringValue
                if let index = layersByService.firstIndex(where: { $0.url == service }) {
                    for id in ids where !layersByService[index].layers.contains(where: { $0.id == id }) {
                        layersByService[index].layers.append((id, filter))
                    }
                } else {
                    layersByService.append((service, ids.map { ($0, filter) }))
                }
            } else if service.hasSuffix("/MapServer") || service.hasSuffix("/VectorTileServer"), !tiles.contains(where: { $0.serviceURL == service })
            {
                tiles.append(TilePackagePlan(serviceURL: service, kind: service.hasSuffix("/MapServer") ? .raster : .vector, levels: nil))
            }
        }
        for override in featureServices where !layersByService.contains(where: { $0.url == override.url }) {
            layersByService.append((override.url, (override.layers ?? []).map { ($0, nil) }))
        }
        for given in tileServices {
            let url = serviceURL(given.serviceURL)
            if let index = tiles.firstIndex(where: { $0.serviceURL == url }) { tiles[index].levels = given.levels } else { tiles.append(given) }
        }
        var plans: [PackagePlan] = []
        for (url, layers) in layersByService {
            let override = featureServices.first { $0.url == url }
            let editable = facts[url]?.editable ?? false
            var plan = defaults(for: url, layers: layers, editable: editable, offline: offline)
            if let chosen = override?.layers, !chosen.isEmpty { plan.layers = chosen.sorted() }
            if let value = override?.returnAttachments { plan.returnAttachments = value }
            if let value = override?.attachmentsSyncDirection { plan.attachmentsSyncDirection = value }
            plan.maxDeltaAge = override?.maxDeltaAge
            plans.append(.features(plan))
        }
        return plans + tiles.map(PackagePlan.tiles)
    }

    /// §1.3's table: attachments and queries from the map's offline settings, attachments by
    /// the offline maps' own rule (`OfflineAttachments`).
    static func defaults(
        for url: String, layers: [(id: Int, filter: String?)], editable: Bool, offline: WebMapOfflineSettings
    ) -> FeaturePackagePlan {
        var queries: [Int: JSONValue] = [:]
        for layer in layers {
            if editable, offline.schemaOnlyForEditableLayers {
                queries[layer.id] = ["queryOption": "none"]
            } else if let filter = layer.filter, !filter.isEmpty {
                queries[layer.id] = ["queryOption": "useFilter", "where": .string(filter)]
            }
        }
        // Without attachments downloaded, attachments made on the device still go up: `upload`
        // (Outpost's createReplica refuses `bidirectional` with `returnAttachments=false`).
        let attachments = OfflineAttachments(
            editable: editable, downloaded: offline.downloadsAttachments(editable: editable), asked: offline.attachmentsSyncDirection)
        return FeaturePackagePlan(
            serviceURL: url, layers: layers.map(\.id).sorted(), returnAttachments: attachments.returnAttachments,
            attachmentsSyncDirection: attachments.syncDirection.rawValue, layerQueries: queries, maxDeltaAge: nil)
    }

    /// The layer ids an operational layer names: its URL's, else its `layerId`, else none (the whole service, filled in by the caller).
    private static func layerIds(_ url: String, entry: JSONValue) -> [Int] {
        if let last = url.split(separator: "/").last, let id = Int(last) { return [id] }
        if let id = entry["layerId"]?.int64Value { return [Int(id)] }
        return []
    }
}
