import Foundation
import OutpostWire

/// The offline map folder's two JSON files, made from the plan and what the child jobs did
/// (docs/offline-map-format.md): pure functions, tested without I/O.
enum OfflineMapFolder {
    /// The web map with each layer taken offline pointing at its file (`url` relative to the
    /// folder, the service's URL kept as `x-outpost-source`, a feature layer's id as
    /// `x-outpost-layerId`), layers left online as they were, and the others left out.
    static func map(webMap: JSONValue, plan: OfflineMapPlan, children: [GenerateOfflineMapJob.Child]) -> JSONValue {
        guard case .object(var object) = webMap else { return webMap }
        let layers = Dictionary(plan.layers.map { ($0.mapLayerId, $0) }, uniquingKeysWith: { a, _ in a })
        func rewrite(_ entries: JSONValue?) -> JSONValue {
            var kept: [JSONValue] = []
            for (index, entry) in (entries?.arrayValue ?? []).enumerated() {
                guard case .object(var layer) = entry else { continue }
                let url = layer["url"]?.stringValue
                let id = layer["id"]?.stringValue ?? url ?? "layer\(index)"
                guard let planned = layers[id] else { continue }
                if planned.capability.remainsOnline {
                    kept.append(entry)
                    continue
                }
                if planned.isBasemap, let reference = plan.referenceBasemap {
                    layer["x-outpost-source"] = url.map(JSONValue.string) ?? .null
                    layer["url"] = .string(reference.path)
                    kept.append(.object(layer))
                    continue
                }
                guard planned.capability.supportsOffline,
                    let child = children.first(where: { $0.state == .done && $0.mapLayerIds.contains(id) })
                else { continue }
                layer["x-outpost-source"] = url.map(JSONValue.string) ?? .null
                layer["url"] = .string(child.file)
                if child.kind == .geodatabase, let tail = url?.split(separator: "/").last, let layerId = Int(tail) {
                    layer["x-outpost-layerId"] = .int(Int64(layerId))
                }
                kept.append(.object(layer))
            }
            return .array(kept)
        }
        object["operationalLayers"] = rewrite(webMap["operationalLayers"])
        object["tables"] = rewrite(webMap["tables"])
        if case .object(var basemap) = webMap["baseMap"] ?? .null {
            basemap["baseMapLayers"] = rewrite(basemap["baseMapLayers"])
            object["baseMap"] = .object(basemap)
        }
        return .object(object)
    }

    /// `package.json`: what the folder holds, where it came from, what could not be taken.
    static func manifest(document: GenerateOfflineMapJob.Document, item: JSONValue, thumbnail: String? = nil) -> JSONValue {
        let parameters = document.parameters
        let area = parameters.areaOfInterest
        let files: [JSONValue] = document.children.filter { $0.state == .done }.map { child in
            var entry: JSONObject = [
                "kind": .string(child.kind == .geodatabase ? "geodatabase" : child.kind.rawValue), "file": .string(child.file),
                "serviceUrl": .string(child.serviceURL), "mapLayerIds": .array(child.mapLayerIds.map(JSONValue.string)),
            ]
            if let item = child.packageItemId { entry["packageItemId"] = .string(item) }
            return .object(entry)
        }
        let preplanned = document.mapAreaId != nil
        let result = GenerateOfflineMapJob.result(document)
        let errors: [JSONValue] =
            (result.layerErrors.merging(result.tableErrors) { a, _ in a }).sorted { $0.key < $1.key }.map {
                ["mapLayerId": .string($0.key), "message": .string($0.value.description)]
            }
            + result.taskErrors.sorted { $0.key < $1.key }.map { ["serviceUrl": .string($0.key), "message": .string($0.value.description)] }
        let info = parameters.itemInfo
        return [
            "format": "outpost-offline-map", "version": 1,
            "source": [
                "portal": .string(document.portal), "webMapId": .string(document.webMapItemId),
                "mapAreaId": document.mapAreaId.map(JSONValue.string) ?? .null, "mode": preplanned ? "preplanned" : "onDemand",
            ],
            "itemInfo": [
                "title": .string(info?.title ?? item["title"]?.stringValue ?? ""), "snippet": .string(info?.snippet ?? ""),
                "description": .string(info?.description ?? ""), "tags": .array((info?.tags ?? []).map(JSONValue.string)),
            ],
            "areaOfInterest": [
                "xmin": .double(area.xmin), "ymin": .double(area.ymin), "xmax": .double(area.xmax), "ymax": .double(area.ymax),
                "spatialReference": ["wkid": .int(Int64(parameters.areaSpatialReference.wkid))],
            ],
            "minScale": .double(parameters.minScale), "maxScale": .double(parameters.maxScale),
            "updateMode": .string(document.preplannedUpdateMode?.rawValue ?? parameters.updateMode.rawValue), "map": "map.json",
            "thumbnail": thumbnail.map(JSONValue.string) ?? .null,
            "files": .array(files),
            "referenceBasemap": plan(document).referenceBasemap.map { .string($0.path) } ?? .null, "errors": .array(errors),
        ]
    }

    /// The thumbnail's file name in the folder, by what the bytes are; nil when they are not
    /// a PNG, JPEG or GIF image (an error answer, say).
    static func thumbnailName(_ bytes: Data) -> String? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "thumbnail.png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "thumbnail.jpg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "thumbnail.gif" }
        return nil
    }

    private static func plan(_ document: GenerateOfflineMapJob.Document) -> OfflineMapPlan { document.plan }
}
