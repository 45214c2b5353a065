import Foundation
import OutpostWire

extension GenerateOfflineMapJob {
    func run() async {
        let staging = self.staging
        do {
            for folder in ["data", "tiles", "tasks"] {
                try FileManager.default.createDirectory(atPath: "\(staging)/\(folder)", withIntermediateDirectories: true)
            }
        } catch {
            return core.finish(.failure(.geodatabase("cannot write \(staging): \(error)")))
        }
        let outcome = await core.runChildren(
            make: { try makeChild($1, staging: staging) },
            describe: { "\($0.kind == .geodatabase ? "replica" : $0.kind.rawValue) of \($0.serviceURL)" })
        switch outcome {
        case .stopped: return core.stopped()
        case .failed(let error): return core.finish(.failure(error))
        case .finished: break
        }
        do {
            try await registerPreplannedCopies(in: staging)
            try writeMap(into: staging, thumbnail: await writeThumbnail(into: staging))
            let directory = core.document.directory
            try? FileManager.default.removeItem(atPath: directory)  // empty, as checked when the job was made
            guard rename(staging, directory) == 0 else { throw ClientError.geodatabase("cannot move the offline map to \(directory)") }
            core.finish(.success(()))
        } catch {
            core.finish(.failure(error as? ClientError ?? .geodatabase("\(error)")))
        }
    }

    private func makeChild(_ record: Child, staging: String) throws -> any ChildJob {
        guard let url = URL(string: record.serviceURL) else { throw ClientError.invalidResponse("bad service URL \(record.serviceURL)") }
        let file = URL(fileURLWithPath: "\(staging)/\(record.file)")
        let (plan, portal) = (core.document.plan, core.document.portal)
        if let item = record.packageItemId {
            guard let base = URL(string: portal) else { throw ClientError.invalidResponse("bad portal \(portal)") }
            let connection = ServiceConnection(serviceURL: base, token: token, transport: transport)
            let url = base.appendingPathComponent("sharing/rest/content/items/\(item)/data")
            // A pause stops the download; the resume starts it over.
            return RestartableChild {
                _ = try await connection.downloadFile(url, to: file.path)
                return ChildOutput()
            }
        }
        switch record.kind {
        case .geodatabase:
            if let saved = record.saved { return try GenerateGeodatabaseJob.fromJSON(saved, token: token, transport: transport) }
            guard let planned = plan.geodatabases.first(where: { $0.serviceURL == record.serviceURL }) else {
                throw ClientError.invalidResponse("no plan for \(record.serviceURL)")
            }
            let task = GeodatabaseSyncTask(url: url, token: token, transport: transport)
            return task.makeGenerateGeodatabaseJob(parameters: planned.parameters, downloadFileURL: file)
        case .tiles:
            if let saved = record.saved { return try ExportTileCacheJob.fromJSON(saved, token: token, transport: transport) }
            guard let planned = plan.tileCaches.first(where: { $0.serviceURL == record.serviceURL }) else {
                throw ClientError.invalidResponse("no plan for \(record.serviceURL)")
            }
            return ExportTileCacheTask(url: url, token: token, transport: transport).makeExportTileCacheJob(
                parameters: planned.parameters, downloadFileURL: file)
        case .locator:
            let task = LocatorTask(url: url, token: token, transport: transport)
            return RestartableChild {
                try await task.downloadLocator(to: file.path)
                return ChildOutput()
            }
        case .network:
            let task = RouteTask(url: url, token: token, transport: transport)
            return RestartableChild {
                try await task.downloadNetwork(to: file.path)
                return ChildOutput()
            }
        case .sync, .scheduledUpdates:
            throw ClientError.invalidResponse("not a child of an offline map generation: \(record.kind)")
        }
    }

    /// A preplanned area that syncs: each downloaded geodatabase registered as a replica of its
    /// own (every device's copy syncs independently of the package's replica).
    private func registerPreplannedCopies(in staging: String) async throws {
        let document = core.document
        guard document.preplannedUpdateMode == .syncWithFeatureServices else { return }
        for (index, child) in document.children.enumerated() where child.kind == .geodatabase && child.state == .done {
            guard let url = URL(string: child.serviceURL) else { continue }
            do {
                let geodatabase = try Geodatabase.open(URL(fileURLWithPath: "\(staging)/\(child.file)"))
                defer { geodatabase.close() }
                let replica = try await GeodatabaseSyncTask(url: url, token: token, transport: transport).registerSyncEnabledGeodatabase(geodatabase)
                core.note("\(child.file) registered as replica \(replica)")
            } catch {
                let reason = error as? ClientError ?? .invalidResponse("\(error)")
                guard document.parameters.continueOnErrors else { throw reason }
                // A copy that cannot sync is not left in the folder.
                try? FileManager.default.removeItem(atPath: "\(staging)/\(child.file)")
                core.note("\(child.file) could not be registered: \(reason.description)")
                core.update {
                    $0.children[index].state = .failed
                    $0.children[index].error = reason
                }
            }
        }
    }

    /// The thumbnail `itemInfo` gives, else the web map item's (downloaded); nil when there is
    /// none (or it cannot be read: an offline map does not fail for want of a picture).
    private func writeThumbnail(into folder: String) async -> String? {
        let document = core.document
        var bytes = document.parameters.itemInfo?.thumbnail
        if bytes == nil, let item = try? JSONParser.parse(document.item), let name = item["thumbnail"]?.stringValue, !name.isEmpty,
            let portal = URL(string: document.portal)
        {
            let connection = ServiceConnection(serviceURL: portal, token: token, transport: transport)
            let url = portal.appendingPathComponent("sharing/rest/content/items/\(document.webMapItemId)/info/\(name)")
            let file = "\(folder)/thumbnail.download"
            defer { try? FileManager.default.removeItem(atPath: file) }
            if (try? await connection.downloadFile(url, to: file)) != nil { bytes = FileManager.default.contents(atPath: file) }
        }
        guard let bytes, let name = OfflineMapFolder.thumbnailName(bytes) else { return nil }
        return (try? bytes.write(to: URL(fileURLWithPath: "\(folder)/\(name)"))) != nil ? name : nil
    }

    /// `map.json`, `package.json` and `project.qgs` (docs/offline-map-format.md).
    private func writeMap(into folder: String, thumbnail: String?) throws {
        let document = core.document
        let webMap = (try? JSONParser.parse(document.webMap)) ?? .null
        let item = (try? JSONParser.parse(document.item)) ?? .null
        let map = OfflineMapFolder.map(webMap: webMap, plan: document.plan, children: document.children)
        let manifest = OfflineMapFolder.manifest(document: document, item: item, thumbnail: thumbnail)
        try Data(map.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/map.json"))
        try Data(manifest.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/package.json"))
        let title = document.parameters.itemInfo?.title ?? item["title"]?.stringValue ?? "Offline map"
        try Data(QGISProject.xml(title: title, layers: try qgisLayers(map, folder: folder)).utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/project.qgs"))
    }

    /// The offline map's layers as QGIS layers, top first: each GeoPackage table read from its file.
    private func qgisLayers(_ map: JSONValue, folder: String) throws -> [QGISProject.Layer] {
        var tables: [String: [Int: GeodatabaseFeatureTable]] = [:]
        func table(_ file: String, _ layerId: Int) throws -> GeodatabaseFeatureTable? {
            if tables[file] == nil {
                let geodatabase = try Geodatabase.open(URL(fileURLWithPath: "\(folder)/\(file)"))
                defer { geodatabase.close() }
                tables[file] = Dictionary(try geodatabase.featureTables().map { ($0.layerId, $0) }, uniquingKeysWith: { a, _ in a })
            }
            return tables[file]?[layerId]
        }
        var layers: [QGISProject.Layer] = []
        let entries =
            (map["operationalLayers"]?.arrayValue ?? []).reversed() + (map["tables"]?.arrayValue ?? [])
            + (map["baseMap"]?["baseMapLayers"]?.arrayValue ?? []).reversed()
        for entry in entries {
            guard let file = entry["url"]?.stringValue, !file.hasPrefix("http") else { continue }
            let id = entry["id"]?.stringValue ?? file
            let name = entry["title"]?.stringValue ?? id
            if file.hasSuffix(".gpkg"), let layerId = entry["x-outpost-layerId"]?.int64Value, let found = try table(file, Int(layerId)) {
                let epsg = Int(found.srsId) > 0 ? Int(found.srsId) : 4326
                layers.append(
                    .init(
                        id: id, name: name, file: file,
                        kind: .vector(table: found.tableName, geometry: QGISProject.geometry(found.geometryType?.rawValue), epsg: epsg)))
            } else if file.hasSuffix(".tpkx") {
                layers.append(.init(id: id, name: name, file: file, kind: .raster))
            } else if file.hasSuffix(".mbtiles") {
                let vector = (entry["x-outpost-source"]?.stringValue ?? "").hasSuffix("/VectorTileServer")
                layers.append(.init(id: id, name: name, file: file, kind: vector ? .vectorTiles : .raster))
            }
        }
        return layers
    }
}
