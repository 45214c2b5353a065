import Foundation
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// The two kinds of package, made through the same code as `createReplica` and `exportTiles`.
extension MapAreaPackager {
    /// A feature service's package: the replica `createReplica` would make for the packager's
    /// request (offline-maps.md §1.3), registered for the area's owner, its GeoPackage the item's file.
    func featurePackage(_ plan: FeaturePackagePlan, area: PortalItem, shape: MapAreaShape) throws -> PortalItem {
        let name = try serviceName(plan.serviceURL, kind: "FeatureServer")
        let (properties, resultName) = try featurePackageFile(plan, area: area, shape: shape)
        return try addPackage(
            from: resultName, fileName: "replica_\(PortalNames.newId()).gpkg", type: "GeoPackage",
            keywords: ["GeoPackage", "Replica", "Syncable", "Bidirectional", "MapAreaPackage", "Data", "Package", "ReferenceURL#\(plan.serviceURL)"],
            title: "\(area.title) \(name)", properties: properties, area: area)
    }

    /// The replica of a feature package, exported and registered: its properties and result file.
    func featurePackageFile(_ plan: FeaturePackagePlan, area: PortalItem, shape: MapAreaShape) throws -> (JSONObject, String) {
        let name = try serviceName(plan.serviceURL, kind: "FeatureServer")
        let service = try store.service(named: name)
        guard service.definition.capabilities.contains("Sync") else {
            throw PackagingError(.syncNotEnabled, "Sync is not enabled on \(plan.serviceURL).", params: ["url": plan.serviceURL])
        }
        var isPolygon = false
        if case .polygon = shape { isPolygon = true }
        var pairs: [(String, String)] = [
            ("replicaName", "\(area.title)-\(name)"), ("layers", plan.layers.map(String.init).joined(separator: ",")),
            ("geometry", shape.geometryJSON.jsonText), ("geometryType", isPolygon ? "esriGeometryPolygon" : "esriGeometryEnvelope"),
            ("inSR", String(shape.wkid)), ("returnAttachments", String(plan.returnAttachments)),
            ("attachmentsSyncDirection", plan.attachmentsSyncDirection), ("syncModel", service.definition.isVersioned ? "perReplica" : "perLayer"),
            ("syncDirection", "bidirectional"), ("dataFormat", "sqlite"), ("transportType", "esriTransportTypeUrl"), ("async", "false"),
        ]
        if !plan.layerQueries.isEmpty {
            let queries = JSONObject(plan.layerQueries.sorted { $0.key < $1.key }.map { (String($0.key), $0.value) })
            pairs.append(("layerQueries", JSONValue.object(queries).jsonText))
        }
        // Registered for the area's owner, whoever sets it up (an administrator may): the package
        // is the owner's item, and its replica must be theirs to sync.
        let owner = (try? store.users.user(named: area.owner)) ?? user
        let creation = CreateReplica(backend: store)
        let planned = try creation.plan(try CreateReplicaRequest.parse(RequestParameters(pairs)), service: name, for: Caller(user: owner))
        let (definition, resultName) = try creation.exportToFile(planned, files: files, serviceURL: plan.serviceURL)
        var properties = PackagePlan.features(plan).properties
        properties["replicaID"] = .string(definition.id)
        properties["syncModel"] = .string(service.definition.isVersioned ? "perReplica" : "perLayer")
        properties["useSyncForRefresh"] = true
        definition.generations?.write(into: &properties)
        return (properties, resultName)
    }

    /// A tile service's package: the `exportTiles` of the area's tiles, at the levels asked or,
    /// without any, the set's levels less the deepest ones past the tile limit.
    func tilePackage(_ plan: TilePackagePlan, area: PortalItem, shape: MapAreaShape) throws -> PortalItem {
        let kindName = plan.kind == .raster ? "MapServer" : "VectorTileServer"
        let name = try serviceName(plan.serviceURL, kind: kindName)
        guard let set = try store.tiles.tileSet(named: name), set.kind == plan.kind else {
            throw PackagingError(.exportTileError, "\(plan.serviceURL) is not a tile service of this server.")
        }
        var request = TileExportRequest(levels: plan.levels, format: plan.kind == .raster ? .tpkx : .mbtiles)
        switch shape {
        case .envelope(let envelope, let wkid):
            request.extent = Self.webMercator(envelope, wkid: wkid)
        case .polygon(let rings, let wkid):
            request.areaOfInterest = rings.map { ring in ring.map { Self.webMercator($0, wkid: wkid) } }
        }
        let export: ExportTiles<Backend>
        do {
            export = try ExportTiles(backend: store, set: set, request: request, maximum: maxExportTiles)
        } catch TileExportRefusal.tooManyTiles(_, _, _, let drop) where plan.levels == nil && !drop.isEmpty {
            request.levels = (set.minZoom...set.maxZoom).filter { !drop.contains($0) }.map(String.init).joined(separator: ",")
            export = try ExportTiles(backend: store, set: set, request: request, maximum: maxExportTiles)
        } catch let refusal as TileExportRefusal {
            throw PackagingError(.exportTileError, refusal.arcGISError.message, params: ["url": plan.serviceURL])
        }
        let resultName = ResultFiles.newName(extension: request.format.fileExtension)
        let temporary = try files.temporaryPath(for: resultName)
        do {
            try export.write(to: temporary)
            try files.publish(resultName)
        } catch {
            files.discard(resultName)
            throw error
        }
        defer { files.discard(resultName) }
        let levels = export.plan.levels.map { String($0.level) }.joined(separator: ",")
        let raster = plan.kind == .raster
        var properties = PackagePlan.tiles(plan).properties
        properties["levels"] = .string(levels)
        return try addPackage(
            from: resultName, fileName: "tile_\(PortalNames.newId()).\(request.format.fileExtension)",
            type: raster ? "Compact Tile Package" : "MBTiles",
            keywords: (raster ? ["Compact Tile Package", "Tile Package", "tpkx"] : ["MBTiles", "Vector Tiles"])
                + ["MapAreaPackage", "Data", "Package", "ReferenceURL#\(plan.serviceURL)"],
            title: "\(area.title) \(name)", properties: properties, area: area)
    }

    /// A result file the packager made, taken over for an item (moved, not copied: nobody
    /// was given its URL), its owner record forgotten.
    func take(_ resultName: String) throws -> String {
        try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
        let path = (store.temporaryDirectory as NSString).appendingPathComponent("package-\(PortalNames.newId())")
        try files.take(resultName, to: path)
        try? store.resultFiles.forgetResultFiles([resultName])
        return path
    }

    /// A package item, its file taken from a result file, shared as the area is.
    func addPackage(
        from resultName: String, fileName: String, type: String, keywords: [String], title: String, properties: JSONObject, area: PortalItem
    ) throws -> PortalItem {
        let copy = try take(resultName)
        var object = properties
        object["area"] = area.properties["area"]
        object["extent"] = area.properties["extent"]
        let size = ((try? FileManager.default.attributesOfItem(atPath: copy))?[.size] as? NSNumber)?.int64Value ?? 0
        let item = PortalItem(
            id: PortalNames.newId(), owner: area.owner, title: title, type: type, access: area.access, created: store.clock.milliseconds(),
            ownerFolder: area.ownerFolder, typeKeywords: keywords, properties: .object(object), extent: area.extent, spatialReference: "4326",
            name: fileName, size: size)
        try store.portal.addItem(item, data: .file(name: fileName, path: copy))
        return item
    }

    static func webMercator(_ point: Point, wkid: Int) -> Point {
        guard wkid == 4326 else { return point }
        let (x, y) = WebMercatorTiling.project(longitude: point.x, latitude: point.y)
        return Point(x: x, y: y)
    }

    static func webMercator(_ envelope: Envelope, wkid: Int) -> Envelope {
        let low = webMercator(Point(x: envelope.xmin, y: envelope.ymin), wkid: wkid)
        let high = webMercator(Point(x: envelope.xmax, y: envelope.ymax), wkid: wkid)
        return Envelope(xmin: low.x, ymin: low.y, xmax: high.x, ymax: high.y)
    }
}
