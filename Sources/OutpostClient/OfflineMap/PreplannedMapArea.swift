import Foundation
import OutpostWire

/// How a downloaded preplanned area keeps current (`PreplannedUpdateMode`).
public enum PreplannedUpdateMode: String, Sendable, Codable, Equatable {
    /// Each geodatabase is registered as a replica of its own and syncs both ways.
    case syncWithFeatureServices
    /// Read-only: the server's scheduled-update deltas are applied (docs/map-areas.md, "Updating a copy").
    case downloadScheduledUpdates
    /// A snapshot.
    case noUpdates
}

/// A map area of the web map, prepared by its author (`PreplannedMapArea`).
public struct PreplannedMapArea: Sendable, Equatable {
    public struct Package: Sendable, Equatable {
        public var itemId: String
        public var type: String
        /// The service the package was made of.
        public var serviceURL: String
    }

    public var id: String
    public var title: String
    /// `processing`, `complete` or `failed`.
    public var status: String
    public var areaOfInterest: Envelope?
    public var packages: [Package]
    /// The area item's thumbnail, when it has one.
    public var thumbnailURL: URL?
}

public struct DownloadPreplannedOfflineMapParameters: Sendable, Equatable {
    public var updateMode: PreplannedUpdateMode
    public var includeBasemap = true
    public var continueOnErrors = true

    public init(updateMode: PreplannedUpdateMode) { self.updateMode = updateMode }
}

extension OfflineMapTask {
    /// The task for the web map a map area belongs to (`Map2Area`, reverse).
    public static func forMapArea(
        _ areaItemId: String, portal: URL, token: String? = nil, transport: (any HTTPTransport)? = nil
    ) async throws -> OfflineMapTask {
        let connection = ServiceConnection(serviceURL: portal, token: token, transport: transport)
        let related = try await connection.getJSON(
            portal.appendingPathComponent("sharing/rest/content/items/\(areaItemId)/relatedItems"),
            [("relationshipTypes", "Map2Area"), ("direction", "reverse")])
        guard let map = related["relatedItems"]?[0]?["id"]?.stringValue else {
            throw ClientError.unsupported("\(areaItemId) is not a map area of a web map")
        }
        return OfflineMapTask(portal: portal, webMapItemId: map, token: token, transport: transport)
    }

    /// The map's areas (`Map2Area`) with their packages (`Area2Package`).
    public func preplannedMapAreas() async throws -> [PreplannedMapArea] {
        let related = try await connection.getJSON(
            portalURL("content/items/\(webMapItemId)/relatedItems"), [("relationshipTypes", "Map2Area"), ("direction", "forward")])
        var areas: [PreplannedMapArea] = []
        for item in related["relatedItems"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue else { continue }
            let packages = try await connection.getJSON(
                portalURL("content/items/\(id)/relatedItems"), [("relationshipTypes", "Area2Package"), ("direction", "forward")])
            let extent = item["properties"]?["extent"]
            var envelope: Envelope?
            if let xmin = extent?["xmin"]?.doubleValue, let ymin = extent?["ymin"]?.doubleValue, let xmax = extent?["xmax"]?.doubleValue,
                let ymax = extent?["ymax"]?.doubleValue
            {
                envelope = Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
            }
            areas.append(
                PreplannedMapArea(
                    id: id, title: item["title"]?.stringValue ?? id, status: item["properties"]?["status"]?.stringValue ?? "",
                    areaOfInterest: envelope,
                    packages: (packages["relatedItems"]?.arrayValue ?? []).compactMap { package in
                        guard let itemId = package["id"]?.stringValue, let type = package["type"]?.stringValue,
                            let url = package["properties"]?["url"]?.stringValue
                        else { return nil }
                        return PreplannedMapArea.Package(itemId: itemId, type: type, serviceURL: url)
                    },
                    thumbnailURL: item["thumbnail"]?.stringValue.map { portalURL("content/items/\(id)/info/\($0)") }))
        }
        return areas
    }

    /// Scheduled updates when the area's feature packages keep deltas, else sync.
    public func makeDefaultDownloadPreplannedOfflineMapParameters(area: PreplannedMapArea) async throws -> DownloadPreplannedOfflineMapParameters {
        var keepsDeltas = false
        for package in area.packages where package.type == "GeoPackage" {
            let item = try await connection.getJSON(portalURL("content/items/\(package.itemId)"))
            if item["properties"]?["createPkgDeltas"]?["maxDeltaAge"] != nil { keepsDeltas = true }
        }
        return DownloadPreplannedOfflineMapParameters(updateMode: keepsDeltas ? .downloadScheduledUpdates : .syncWithFeatureServices)
    }

    /// A job that downloads the area's packages into `downloadDirectory` (absent or empty): the
    /// same folder as an on-demand offline map; each geodatabase registered as a replica of its
    /// own with `syncWithFeatureServices`, left as the package with scheduled updates.
    public func makeDownloadPreplannedOfflineMapJob(
        area: PreplannedMapArea, parameters: DownloadPreplannedOfflineMapParameters, downloadDirectory: URL
    ) async throws -> DownloadPreplannedOfflineMapJob {
        guard area.status == "complete" || area.status.isEmpty else { throw ClientError.unsupported("the map area \(area.id) is \(area.status)") }
        let path = downloadDirectory.path
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw ClientError.geodatabase("\(path) is not empty")
        }
        let source = try await load()
        var offline = GenerateOfflineMapParameters(areaOfInterest: area.areaOfInterest ?? Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90))
        offline.includeBasemap = parameters.includeBasemap
        offline.continueOnErrors = parameters.continueOnErrors
        offline.updateMode = parameters.updateMode == .syncWithFeatureServices ? .syncWithFeatureServices : .noUpdates
        offline.itemInfo = OfflineMapItemInfo(title: area.title)
        // Each map layer is taken from the area's package of its service, if there is one.
        var plan = OfflineMapPlanner.plan(webMap: source.webMap, parameters: offline, facts: source.facts)
        plan.geodatabases = []
        plan.tileCaches = []
        var children: [GenerateOfflineMapJob.Child] = []
        for index in plan.layers.indices {
            let layer = plan.layers[index]
            guard layer.capability.supportsOffline, let service = layer.serviceURL else { continue }
            guard let package = area.packages.first(where: { $0.serviceURL == service }) else {
                plan.layers[index].capability = OfflineCapability(
                    supportsOffline: false, remainsOnline: false, error: "The map area has no package of \(service).")
                continue
            }
            if let existing = children.firstIndex(where: { $0.packageItemId == package.itemId }) {
                children[existing].mapLayerIds.append(layer.mapLayerId)
                continue
            }
            let isFeatures = package.type == "GeoPackage"
            let fileExtension = isFeatures ? "gpkg" : package.type == "Compact Tile Package" ? "tpkx" : "mbtiles"
            children.append(
                .init(
                    kind: isFeatures ? .geodatabase : .tiles, serviceURL: service, mapLayerIds: [layer.mapLayerId],
                    file: "\(isFeatures ? "data" : "tiles")/\(Self.name(service)).\(fileExtension)", packageItemId: package.itemId))
        }
        var document = GenerateOfflineMapJob.Document(
            id: GeodatabaseSyncTask.newJobId(), portal: portal.absoluteString, webMapItemId: webMapItemId, webMap: source.webMap.jsonText,
            item: source.item.jsonText, parameters: offline, plan: plan, directory: path, children: children)
        document.mapAreaId = area.id
        document.preplannedUpdateMode = parameters.updateMode
        return GenerateOfflineMapJob(document: document, token: connection.token, transport: connection.transport)
    }
}
