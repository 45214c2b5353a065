import Foundation
import OutpostSync
import OutpostWire

/// A web map, as `OfflineMapTask` read it: the item, its JSON (URLs absolute), and what each
/// of its services is.
public struct OfflineMapSource: Sendable, Equatable {
    public var itemId: String
    public var item: JSONValue
    public var webMap: JSONValue
    public var facts: [String: OfflineServiceFacts]
    /// The portal's locators and route service (none when `portals/self` could not be read).
    public var helpers = PortalHelperServices()
}

/// Takes a web map offline, after the ArcGIS Maps SDKs' `OfflineMapTask` (docs/client.md,
/// "Offline maps"): which layers can go, the default parameters from the map's offline
/// settings, and `GenerateOfflineMapJob`.
public final class OfflineMapTask: Sendable {
    /// `…/arcgis` (the portal is `…/arcgis/sharing/rest`).
    public let portal: URL
    public let webMapItemId: String
    let connection: ServiceConnection
    /// What `load()` read: the task reads the map and its services once (`reload()` reads again).
    private let loaded = Locked<OfflineMapSource?>(nil)

    public init(portal: URL, webMapItemId: String, token: String? = nil, retryWindow: Duration = .seconds(600), transport: (any HTTPTransport)? = nil)
    {
        self.portal = portal
        self.webMapItemId = webMapItemId
        connection = ServiceConnection(serviceURL: portal, token: token, retryWindow: retryWindow, transport: transport)
    }

    /// From a portal item's URL (`…/arcgis/sharing/rest/content/items/<id>`, or its `/data`).
    public convenience init(portalItemURL: URL, token: String? = nil, transport: (any HTTPTransport)? = nil) throws {
        let parts = portalItemURL.path.split(separator: "/").map(String.init)
        guard let items = parts.firstIndex(of: "items"), items + 1 < parts.count, let sharing = parts.firstIndex(of: "sharing"),
            var components = URLComponents(url: portalItemURL, resolvingAgainstBaseURL: false)
        else { throw ClientError.invalidResponse("\(portalItemURL) is not a portal item's URL") }
        components.path = "/" + parts[..<sharing].joined(separator: "/")
        components.query = nil
        guard let portal = components.url else { throw ClientError.invalidResponse("\(portalItemURL) is not a portal item's URL") }
        self.init(portal: portal, webMapItemId: parts[items + 1], token: token, transport: transport)
    }

    func portalURL(_ path: String) -> URL { portal.appendingPathComponent("sharing/rest/" + path) }

    /// The item, the map and every service it names, read once (a service that cannot be read
    /// is left out: the plan says so for its layers).
    public func load() async throws -> OfflineMapSource {
        if let source = loaded.withLock({ $0 }) { return source }
        return try await reload()
    }

    /// Reads the item, the map and its services again.
    @discardableResult
    public func reload() async throws -> OfflineMapSource {
        let item = try await connection.getJSON(portalURL("content/items/\(webMapItemId)"))
        guard item["type"]?.stringValue == "Web Map" else { throw ClientError.unsupported("item \(webMapItemId) is not a web map") }
        if item["typeKeywords"]?.arrayValue?.contains("OfflineDisabled") == true {
            throw ClientError.unsupported("the web map is disabled for offline use (OfflineDisabled)")
        }
        let webMap = try await connection.getJSON(portalURL("content/items/\(webMapItemId)/data"))
        var services: [String] = []
        let entries =
            (webMap["operationalLayers"]?.arrayValue ?? []) + (webMap["tables"]?.arrayValue ?? [])
            + (webMap["baseMap"]?["baseMapLayers"]?.arrayValue ?? [])
        for url in entries.compactMap({ $0["url"]?.stringValue }) {
            let service = PackagePlanner.serviceURL(url)
            if !services.contains(service) { services.append(service) }
        }
        var facts: [String: OfflineServiceFacts] = [:]
        for service in services {
            guard let url = URL(string: service) else { continue }
            facts[service] = try? await Self.facts(of: url, connection: connection)
        }
        var source = OfflineMapSource(itemId: webMapItemId, item: item, webMap: webMap, facts: facts)
        if let portalSelf = try? await connection.getJSON(portalURL("portals/self")) { source.helpers = PortalHelperServices(portalSelf: portalSelf) }
        loaded.withLock { $0 = source }
        return source
    }

    static func facts(of service: URL, connection: ServiceConnection) async throws -> OfflineServiceFacts? {
        let path = service.path
        let json = try await connection.getJSON(service)
        if path.hasSuffix("/FeatureServer") {
            let info = FeatureServiceInfo(json: json)
            var facts = OfflineServiceFacts(kind: .feature)
            facts.syncEnabled = info.syncEnabled
            facts.supportsPerLayerSync = info.supportsPerLayerSync
            facts.layers = info.layers
            facts.editable = LayerCapabilities(text: json["capabilities"]?.stringValue ?? "").isEditableOffline
            return facts
        }
        guard path.hasSuffix("/MapServer") || path.hasSuffix("/VectorTileServer") else { return nil }
        var facts = OfflineServiceFacts(kind: path.hasSuffix("/MapServer") ? .mapTiles : .vectorTiles)
        facts.exportTilesAllowed = json["exportTilesAllowed"]?.boolValue ?? false
        facts.lods = (json["tileInfo"]?["lods"]?.arrayValue ?? []).compactMap { lod in
            guard let level = lod["level"]?.int64Value, let scale = lod["scale"]?.doubleValue else { return nil }
            return OfflineServiceFacts.TileLevel(level: Int(level), scale: scale)
        }
        facts.minScale = json["minScale"]?.doubleValue ?? 0
        facts.maxScale = json["maxScale"]?.doubleValue ?? 0
        return facts
    }

    /// Parameters for an area, from the map's offline settings, the item's title and tags.
    public func makeDefaultGenerateOfflineMapParameters(
        areaOfInterest: Envelope, spatialReference: SpatialReference = .wgs84, minScale: Double = 0, maxScale: Double = 0
    ) async throws -> GenerateOfflineMapParameters {
        let source = try await load()
        var parameters = GenerateOfflineMapParameters(
            defaultsFor: source.webMap, areaOfInterest: areaOfInterest, areaSpatialReference: spatialReference, minScale: minScale, maxScale: maxScale
        )
        parameters.itemInfo = OfflineMapItemInfo(
            title: source.item["title"]?.stringValue ?? webMapItemId, snippet: source.item["snippet"]?.stringValue ?? "",
            description: source.item["description"]?.stringValue ?? "", tags: source.item["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        return parameters
    }

    /// Which layers and tables go offline with these parameters, which stay online, and why.
    public func offlineMapCapabilities(parameters: GenerateOfflineMapParameters) async throws -> OfflineMapPlan {
        let source = try await load()
        return OfflineMapPlanner.plan(
            webMap: source.webMap, parameters: parameters, facts: source.facts, tasks: source.helpers.asked(by: source.webMap, portal: portal))
    }
}

extension OfflineMapTask {
    /// A job that takes the map offline into `downloadDirectory`, which must be empty or absent.
    /// `overrides` (from `makeGenerateOfflineMapParameterOverrides`) change a service's replica or tile export.
    public func makeGenerateOfflineMapJob(
        parameters: GenerateOfflineMapParameters, downloadDirectory: URL, overrides: GenerateOfflineMapParameterOverrides? = nil
    ) async throws -> GenerateOfflineMapJob {
        let path = downloadDirectory.path
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw ClientError.geodatabase("\(path) is not empty")
        }
        let source = try await load()
        let plan = OfflineMapPlanner.plan(
            webMap: source.webMap, parameters: parameters, facts: source.facts, tasks: source.helpers.asked(by: source.webMap, portal: portal)
        ).applying(overrides)
        var children: [GenerateOfflineMapJob.Child] = []
        for database in plan.geodatabases {
            children.append(
                .init(
                    kind: .geodatabase, serviceURL: database.serviceURL, mapLayerIds: database.mapLayerIds,
                    file: "data/\(Self.name(database.serviceURL)).gpkg"))
        }
        for tiles in plan.tileCaches {
            let format = tiles.isVector || tiles.parameters.storageFormat == "MBTiles" ? "mbtiles" : "tpkx"
            children.append(
                .init(
                    kind: .tiles, serviceURL: tiles.serviceURL, mapLayerIds: tiles.mapLayerIds, file: "tiles/\(Self.name(tiles.serviceURL)).\(format)"
                ))
        }
        var taskFiles = Set<String>()
        for (kind, services) in [(ChildJobRecord.Kind.locator, plan.locators), (.network, plan.networks)] {
            for service in services {
                // Folder and name: `F1/Addr` and `F2/Addr` are two files; a clash gets a number.
                let base = "tasks/\(Self.taskName(service))"
                var file = "\(base).\(kind.rawValue)"
                var number = 1
                while !taskFiles.insert(file).inserted {
                    number += 1
                    file = "\(base)-\(number).\(kind.rawValue)"
                }
                children.append(.init(kind: kind, serviceURL: service, mapLayerIds: [], file: file))
            }
        }
        if !parameters.continueOnErrors, let refused = plan.layers.first(where: { $0.capability.error != nil && !$0.capability.remainsOnline }) {
            throw ClientError.unsupported("\(refused.mapLayerId): \(refused.capability.error ?? "")")
        }
        let document = GenerateOfflineMapJob.Document(
            id: GeodatabaseSyncTask.newJobId(), portal: portal.absoluteString, webMapItemId: webMapItemId, webMap: source.webMap.jsonText,
            item: source.item.jsonText, parameters: parameters, plan: plan, directory: path, children: children)
        return GenerateOfflineMapJob(document: document, token: connection.token, transport: connection.transport)
    }

    /// `Folder_Name` (or `Name`) of `…/services/[Folder/]Name/GeocodeServer`, safe as a file name.
    static func taskName(_ serviceURL: String) -> String {
        let path = serviceURL.components(separatedBy: "/services/").last ?? serviceURL
        let name = path.split(separator: "/").dropLast().joined(separator: "_")
        return name.isEmpty ? "service" : name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? String($0) : "_" }.joined()
    }

    /// `Name` of `…/services/[Folder/]Name/FeatureServer`, safe as a file name.
    static func name(_ serviceURL: String) -> String {
        let parts = serviceURL.split(separator: "/")
        let name = parts.count >= 2 ? String(parts[parts.count - 2]) : "service"
        return name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? String($0) : "_" }.joined()
    }
}
