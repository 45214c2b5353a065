import Foundation
import Logging
import OutpostStorage
import OutpostSync
import OutpostWire

/// SetupMapArea's work (docs/map-areas.md, "Packages"): for a map area, one package per
/// feature service (a replica, as `createReplica` makes it) and per tile service (an
/// `exportTiles` package), each an item related to the area by `Area2Package` and shared as
/// the area is. A package that cannot be made says why; the others are still made, and the
/// area's `properties.status` ends `complete` or `failed`.
struct MapAreaPackager<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    /// `<scheme>://<host>` the request came to: the map's server-relative URLs are this server's.
    let server: String
    let maxExportTiles: Int
    let caller: PortalCaller
    let user: ServerUser?

    typealias Areas = MapAreas<Backend>

    /// Makes the area's packages, keeping those it has that are made as wanted and deleting the
    /// others (`PackageReuse`); returns SetupMapArea's `packages`.
    func setup(
        areaId: String, ignore: [String], tileServices: [TilePackagePlan], featureServices: [PackagePlanner.FeatureOverride],
        progress: (JobProgress) -> Void
    ) throws -> JSONValue {
        let areas = Areas(backend: store, caller: caller)
        guard var area = try store.portal.item(id: areaId), area.type == "Map Area", caller.maySee(area), let shape = Areas.shape(area) else {
            throw PackagingError.invalid("mapAreaItemId", "'\(areaId)' is not a map area you can see.")
        }
        guard caller.mayChange(area) else { throw PackagingError.invalid("mapAreaItemId", "Only the area's owner or an administrator packages it.") }
        guard let map = try areas.webMap(of: area) else { throw PackagingError(.areaMissing, "The map area belongs to no web map.") }
        let webMap = ServerRelativeURLs.absolute(try areas.webMapJSON(of: map), server: server)
        var facts: [String: PackagedServiceFacts] = [:]
        for service in try store.catalog().services {
            facts[url(of: service.definition.name, "FeatureServer")] = PackagedServiceFacts(
                editable: LayerCapabilities(service.definition.capabilities).isEditableOffline)
        }
        let plans = PackagePlanner.plan(
            webMap: webMap, ignore: ignore, tileServices: tileServices, featureServices: featureServices, facts: facts)
        let existing = try areas.packages(of: area).map {
            PackageReuse.Existing(itemId: $0.id, plan: PackagePlan(packageType: $0.type, properties: $0.properties))
        }
        let decision = PackageReuse.decide(existing: existing, wanted: plans)
        var results: [JSONValue] = []
        for id in decision.delete {
            let source = try store.portal.item(id: id)?.properties["url"]?.stringValue
            try areas.removePackage(id, of: area)
            results.append(["source": source.map(JSONValue.string) ?? .null, "itemId": .string(id), "state": "deleted"])
        }
        var failed = false
        for (index, (plan, kept)) in decision.wanted.enumerated() {
            progress(JobProgress(done: index, total: plans.count))
            if let kept {
                results.append(["source": .string(plan.serviceURL), "itemId": .string(kept), "state": "unchanged"])
                continue
            }
            do {
                let package = try make(plan, area: area, shape: shape)
                try store.portal.addRelationship(ItemRelationship(origin: area.id, destination: package.id, type: Areas.areaToPackage))
                results.append(["source": .string(plan.serviceURL), "itemId": .string(package.id), "state": "new"])
            } catch {
                failed = true
                let answer = ArcGISError(answering: error)
                let reason =
                    (error as? PackagingError) ?? PackagingError(.invalidParameter, ([answer.message] + answer.details).joined(separator: " "))
                results.append(["source": .string(plan.serviceURL), "state": "failed", "error": .string(reason.json.jsonText)])
            }
        }
        progress(JobProgress(done: plans.count, total: plans.count))
        if case .object(var properties) = area.properties {
            properties["status"] = failed ? "failed" : "complete"
            if failed {
                properties["failedPackages"] = .array(results.filter { $0["state"] == "failed" })
            } else {
                properties["failedPackages"] = nil
            }
            area.properties = .object(properties)
        }
        area.modified = store.clock.milliseconds()
        try store.portal.updateItem(area, data: nil)
        return .array(results)
    }

    func url(of service: String, _ kind: String) -> String { "\(server)/arcgis/rest/services/\(service)/\(kind)" }

    /// The service of this server a URL names, or a refusal saying it is not one.
    func serviceName(_ serviceURL: String, kind: String) throws -> String {
        let prefix = "\(server)/arcgis/rest/services/"
        guard serviceURL.hasPrefix(prefix), serviceURL.hasSuffix("/\(kind)") else {
            throw PackagingError.invalid("url", "\(serviceURL) is not a \(kind) of this server.")
        }
        return String(serviceURL.dropFirst(prefix.count).dropLast(kind.count + 1))
    }

    private func make(_ plan: PackagePlan, area: PortalItem, shape: MapAreaShape) throws -> PortalItem {
        switch plan {
        case .features(let features): return try featurePackage(features, area: area, shape: shape)
        case .tiles(let tiles): return try tilePackage(tiles, area: area, shape: shape)
        }
    }
}
