import Foundation
import Logging
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

/// RefreshMapAreaPackage (docs/map-areas.md, "Refreshing packages"): a feature package is
/// brought up to date by a download-only sync of its replica — the same sync a device runs —
/// whose delta is merged into the package file and, with `createPkgDeltas`, kept as the
/// package's resource `d_<gen>.gpkg` for devices to download (deltas older than `maxDeltaAge`
/// days purged, `lastPurgedGen` recorded). A tile package never changes (a set is fixed).
extension MapAreaPackager {
    func refresh(packages: [String], progress: (JobProgress) -> Void) -> JSONValue {
        var results: [JSONValue] = []
        for (index, id) in packages.enumerated() {
            progress(JobProgress(done: index, total: packages.count))
            do {
                results.append(["itemId": .string(id), "state": .string(try refreshPackage(id))])
            } catch {
                let answer = ArcGISError(answering: error)
                let reason =
                    (error as? PackagingError) ?? PackagingError(.invalidParameter, ([answer.message] + answer.details).joined(separator: " "))
                results.append(["itemId": .string(id), "state": "failed", "error": .string(reason.json.jsonText)])
            }
        }
        progress(JobProgress(done: packages.count, total: packages.count))
        return .array(results)
    }

    /// `updated`, or `unchanged` when there was nothing new.
    func refreshPackage(_ id: String) throws -> String {
        guard var item = try store.portal.item(id: id), caller.maySee(item) else {
            throw PackagingError.invalid("packages", "'\(id)' is not a package you can see.")
        }
        guard caller.mayChange(item) else { throw PackagingError.invalid("packages", "Only the package's owner or an administrator refreshes it.") }
        guard item.type == "GeoPackage", let replicaId = item.properties["replicaID"]?.stringValue, let url = item.properties["url"]?.stringValue
        else { return "unchanged" }
        let name = try serviceName(url, kind: "FeatureServer")
        let service = try store.service(named: name)
        guard let replica = try store.replicas.replica(service: name, id: replicaId) else { return try replaceWhole(item) }
        guard case .file(let fileName, let packagePath) = try store.portal.data(of: id) else {
            throw PackagingError(.invalidParameter, "The package has no file.")
        }

        // The sync a device would send, from the generations the package file holds: a download.
        let sync = try SynchronizeReplica(
            backend: store, request: try Self.downloadRequest(of: replica, from: item.properties), replica: replica, service: service, edits: nil)
        let done = try sync.deliver(to: .file(files), serviceURL: url, logger: Logger(label: "outpost.packaging"))
        let generations = replica.generations(answered: done.answer.generations)
        guard let deltaName = done.fileName, done.answer.changes > 0 else {
            if let deltaName = done.fileName { files.discard(deltaName) }
            return "unchanged"
        }
        defer { files.discard(deltaName) }

        // The delta merged into a copy of the package file, which then replaces it. The file is
        // its owner's to replace (`update`): it is checked to run nothing but the writer's own
        // triggers, and the copy may grow by the delta's size and no more.
        do { try ReplicaFile.checkWritable(packagePath) } catch {
            throw PackagingError(.invalidParameter, "The package's file is not one the packager made: \(error.description). Set the area up again.")
        }
        try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
        let merged = (store.temporaryDirectory as NSString).appendingPathComponent("package-\(PortalNames.newId())")
        defer { try? FileManager.default.removeItem(atPath: merged) }
        try FileManager.default.copyItem(atPath: packagePath, toPath: merged)
        let delta = try files.file(deltaName)
        let allowed = Self.mergedBytesAllowed(package: merged, delta: delta)
        try ReplicaDeltaMerge.merge(deltaAt: delta, intoFileAt: merged, maximumBytes: allowed, now: store.clock.milliseconds())

        guard case .object(var properties) = item.properties else { return "unchanged" }
        properties["replicaServerGen"] = nil
        properties["layerServerGens"] = nil
        generations.write(into: &properties)
        if let maxAge = item.properties["createPkgDeltas"]?["maxDeltaAge"]?.int64Value {
            let generation: Int64
            switch generations {
            case .perReplica(let value): generation = value
            case .perLayer(let layers): generation = layers.map(\.serverGen).max() ?? 0
            }
            _ = try store.portal.addResource(item: id, name: "d_\(generation).gpkg", data: .file(path: try take(deltaName)))
            if let purged = try purgeDeltas(of: id, olderThanDays: maxAge) { properties["lastPurgedGen"] = .int(purged) }
        }
        item.properties = .object(properties)
        item.modified = store.clock.milliseconds()
        item.size = ((try? FileManager.default.attributesOfItem(atPath: merged))?[.size] as? NSNumber)?.int64Value ?? item.size
        try store.portal.updateItem(item, data: .file(name: fileName, path: merged))
        return "updated"
    }

    /// The download-only sync of a package's replica from the generations its properties hold
    /// (`replicaServerGen`, or `layerServerGens` for a per-layer replica), as a device would send it.
    static func downloadRequest(of replica: ReplicaDefinition, from properties: JSONValue) throws -> SynchronizeReplicaRequest {
        var request = SynchronizeReplicaRequest(replicaId: replica.id)
        request.syncDirection = .download
        request.dataFormat = .sqlite
        request.transportType = .url
        if let generation = properties["replicaServerGen"]?.int64Value {
            request.replicaServerGen = generation
        } else if let layers = properties["layerServerGens"]?.arrayValue {
            request.syncLayers = .layers(
                try layers.map { layer in
                    guard let id = layer["id"]?.int64Value, id >= 0 else {
                        throw ArcGISError.invalidParameter("syncLayers", "every entry needs a layer 'id'")
                    }
                    return SyncLayerRequest(layerId: Int(id), serverGen: layer["serverGen"]?.int64Value, syncDirection: .download)
                })
        }
        return request
    }

    /// How large a package may grow when a delta is merged into it: its size, twice the
    /// delta's (its rows and their index entries), and 4 MiB of pages for the indexes' splits.
    static func mergedBytesAllowed(package: String, delta: String) -> Int {
        func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0 }
        return size(package) + 2 * size(delta) + (4 << 20)
    }

    /// A package whose replica is gone (unregistered, the server restored) cannot be synced:
    /// it is made again — a new replica of the same layers and area — in the same item, its
    /// deltas removed and `lastPurgedGen` set past them, so every device takes it whole.
    func replaceWhole(_ item: PortalItem) throws -> String {
        guard
            let relation = try store.portal.relationships(of: item.id).first(where: {
                $0.type == MapAreas<Backend>.areaToPackage && $0.destination == item.id
            }), let area = try store.portal.item(id: relation.origin), let shape = MapAreas<Backend>.shape(area),
            item.properties["url"]?.stringValue != nil
        else { throw PackagingError(.areaMissing, "The package belongs to no map area; it cannot be made again.") }
        guard case .features(let plan) = PackagePlan(packageType: item.type, properties: item.properties) else {
            throw PackagingError(.invalidParameter, "The package's properties no longer say how it was made; set the area up again.")
        }
        let (properties, resultName) = try featurePackageFile(plan, area: area, shape: shape)
        defer { files.discard(resultName) }
        var replaced = item
        var object = properties
        object["area"] = area.properties["area"]
        object["extent"] = area.properties["extent"]
        object["replacedWhole"] = JSONValue.int(store.clock.milliseconds())
        // The new replica's generation: devices behind it take the package whole.
        let newest =
            properties["replicaServerGen"]?.int64Value
            ?? properties["layerServerGens"]?.arrayValue?.compactMap { $0["serverGen"]?.int64Value }.max()
        for resource in try store.portal.resources(of: item.id) where resource.name.hasPrefix("d_") {
            try store.portal.removeResource(item: item.id, name: resource.name)
        }
        if let newest { object["lastPurgedGen"] = JSONValue.int(newest) }
        replaced.properties = .object(object)
        replaced.modified = store.clock.milliseconds()
        let copy = try take(resultName)
        replaced.size = ((try? FileManager.default.attributesOfItem(atPath: copy))?[.size] as? NSNumber)?.int64Value ?? item.size
        try store.portal.updateItem(replaced, data: .file(name: item.name ?? "replica_\(PortalNames.newId()).gpkg", path: copy))
        return "replaced"
    }

    /// Removes the package's deltas created more than `days` days ago; returns the newest
    /// generation removed (devices behind it must download the package whole), if any.
    func purgeDeltas(of id: String, olderThanDays days: Int64) throws -> Int64? {
        let limit = store.clock.milliseconds() - days * 86_400_000
        var purged: Int64?
        for resource in try store.portal.resources(of: id) where resource.created < limit {
            guard resource.name.hasPrefix("d_"), resource.name.hasSuffix(".gpkg"),
                let generation = Int64(resource.name.dropFirst(2).dropLast(5))
            else { continue }
            try store.portal.removeResource(item: id, name: resource.name)
            purged = max(purged ?? generation, generation)
        }
        return purged
    }
}
