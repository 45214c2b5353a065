import Foundation
import OutpostClient
import OutpostWire

/// A scenario could not check what it checks, for a reason the server gives.
struct Unsupported: Error { var reason: String }

/// A check failed.
struct Failed: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Fails unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw Failed(message()) }
}

/// A replica a scenario made: its id, generation and the GlobalIDs it holds.
struct ScenarioReplica {
    var id: String
    var generation: Int64
    var globalIds: Set<String>
}

/// What every scenario works with: the service, the layer under test, and helpers that make
/// well-formed requests. Everything a scenario creates is removed by `cleanUp`.
final class ConformanceContext: @unchecked Sendable {
    let connection: ServiceConnection
    let service: JSONValue
    let info: FeatureServiceInfo
    let layerId: Int
    let layer: JSONValue
    let syncModel: SyncModel
    private(set) var replicas: [String] = []
    private(set) var features: Set<String> = []
    private var counter = 0

    init(connection: ServiceConnection, service: JSONValue, layerId: Int, layer: JSONValue) {
        self.connection = connection
        self.service = service
        info = FeatureServiceInfo(json: service)
        self.layerId = layerId
        self.layer = layer
        syncModel = info.supportsPerLayerSync ? .perLayer : .perReplica
    }

    var globalIdField: String { layer["globalIdField"]?.stringValue ?? "GlobalID" }
    var objectIdField: String { layer["objectIdField"]?.stringValue ?? "OBJECTID" }
    var geometryType: EsriGeometryType? { layer["geometryType"]?.stringValue.flatMap { EsriGeometryType(lenient: $0) } }
    var hasAttachments: Bool { layer["hasAttachments"]?.boolValue ?? false }
    var wkid: Int64 { layer["extent"]?["spatialReference"]?["wkid"]?.int64Value ?? service["spatialReference"]?["wkid"]?.int64Value ?? 4326 }

    /// The layer's extent (its spatial reference is `wkid`).
    var extent: Envelope {
        let e = layer["extent"] ?? service["fullExtent"]
        return Envelope(
            xmin: e?["xmin"]?.doubleValue ?? -10, ymin: e?["ymin"]?.doubleValue ?? -10,
            xmax: e?["xmax"]?.doubleValue ?? 10, ymax: e?["ymax"]?.doubleValue ?? 10)
    }

    /// A small box around the middle of the layer: where scenario features go.
    var testBox: Envelope {
        let e = extent
        let cx = (e.xmin + e.xmax) / 2
        let cy = (e.ymin + e.ymax) / 2
        let w = max((e.xmax - e.xmin) / 50, 1e-6)
        let h = max((e.ymax - e.ymin) / 50, 1e-6)
        return Envelope(xmin: cx - w, ymin: cy - h, xmax: cx + w, ymax: cy + h)
    }

    var spatialReference: JSONValue { ["wkid": .int(wkid)] }

    /// A geometry of the layer's type inside `box` (or far outside it: `outside`).
    func geometry(in box: Envelope? = nil, outside: Bool = false) -> JSONValue? {
        guard let type = geometryType else { return nil }
        let b = box ?? testBox
        let e = extent
        let x = outside ? e.xmin + (e.xmax - e.xmin) * 0.02 : (b.xmin + b.xmax) / 2
        let y = outside ? e.ymin + (e.ymax - e.ymin) * 0.02 : (b.ymin + b.ymax) / 2
        let d = min(b.xmax - b.xmin, b.ymax - b.ymin) / 10
        func pair(_ px: Double, _ py: Double) -> JSONValue { [.double(px), .double(py)] }
        switch type {
        case .point: return ["x": .double(x), "y": .double(y), "spatialReference": spatialReference]
        case .multipoint: return ["points": [pair(x, y)], "spatialReference": spatialReference]
        case .polyline: return ["paths": [[pair(x, y), pair(x + d, y + d)]], "spatialReference": spatialReference]
        case .polygon, .envelope:
            return ["rings": [[pair(x, y), pair(x, y + d), pair(x + d, y + d), pair(x + d, y), pair(x, y)]], "spatialReference": spatialReference]
        }
    }

    /// A new feature (its GlobalID recorded for clean-up): required fields filled, `values` over them.
    func newFeature(_ values: JSONObject = [:], outside: Bool = false) -> (globalId: String, json: JSONValue) {
        counter += 1
        let globalId = GlobalID.make()
        features.insert(globalId)
        var attributes: JSONObject = [globalIdField: .string(globalId)]
        for field in layer["fields"]?.arrayValue ?? [] {
            guard let name = field["name"]?.stringValue, field["nullable"]?.boolValue == false, field["editable"]?.boolValue != false,
                field["defaultValue"]?.isNull ?? true, let type = field["type"]?.stringValue
            else { continue }
            switch EsriFieldType(rawValue: type) {
            case .string?: attributes[name] = .string(String("conformance".prefix(Int(field["length"]?.int64Value ?? 11))))
            case .integer?, .smallInteger?: attributes[name] = .int(Int64(counter))
            case .double?, .single?: attributes[name] = .double(Double(counter))
            case .date?: attributes[name] = .int(Int64(Date().timeIntervalSince1970 * 1000))
            default: break
            }
        }
        for (key, value) in values { attributes[key] = value }
        var feature: JSONObject = ["attributes": .object(attributes)]
        if let geometry = geometry(outside: outside) { feature["geometry"] = geometry }
        return (globalId, .object(feature))
    }

    /// A text field scenarios may change: the longest editable string field that is not a
    /// system field (scenario values are at most 10 characters).
    var textField: String? {
        let tracking = ["creator", "editor", "created_user", "last_edited_user"]
        return (layer["fields"]?.arrayValue ?? []).filter { field in
            field["type"] == "esriFieldTypeString" && field["editable"]?.boolValue != false
                && !tracking.contains((field["name"]?.stringValue ?? "").lowercased()) && (field["length"]?.int64Value ?? 255) >= 10
        }.max { ($0["length"]?.int64Value ?? 255) < ($1["length"]?.int64Value ?? 255) }?["name"]?.stringValue
    }

    // MARK: Requests

    func createReplica(
        _ name: String, box: Envelope? = nil, whereClause: String? = nil, extra: [(String, String)] = []
    ) async throws -> ScenarioReplica {
        var query: JSONObject = ["queryOption": "useFilter", "useGeometry": .bool(box != nil)]
        if let whereClause { query["where"] = .string(whereClause) }
        var fields: [(String, String)] = [
            ("replicaName", "conformance-\(name)-\(UUID().uuidString.prefix(8))"), ("layers", String(layerId)),
            ("layerQueries", JSONValue.object(["\(layerId)": .object(query)]).jsonText), ("syncModel", syncModel.rawValue),
            ("transportType", TransportType.embedded.rawValue), ("returnAttachments", "false"), ("dataFormat", "json"),
        ]
        if let box {
            fields += [
                ("geometry", "\(box.xmin),\(box.ymin),\(box.xmax),\(box.ymax)"), ("geometryType", "esriGeometryEnvelope"),
                ("inSR", String(wkid)),
            ]
        }
        let answer = try await connection.postForm(connection.url("createReplica"), fields + extra)
        return try replica(from: answer)
    }

    func replica(from answer: JSONValue) throws -> ScenarioReplica {
        guard let id = answer["replicaID"]?.stringValue, !id.isEmpty else { throw Failed("createReplica answered no replicaID") }
        replicas.append(id)
        let generation =
            answer["layerServerGens"]?.arrayValue?.first { $0["id"]?.int64Value == Int64(layerId) }?["serverGen"]?.int64Value
            ?? answer["replicaServerGen"]?.int64Value
        guard let generation else { throw Failed("createReplica answered no layerServerGens / replicaServerGen") }
        let layerData = answer["layers"]?.arrayValue?.first { $0["id"]?.int64Value == Int64(layerId) }
        let ids = (layerData?["features"]?.arrayValue ?? []).compactMap {
            $0["attributes"]?.objectValue?.value(forCaseInsensitiveKey: globalIdField)?.stringValue
        }
        return ScenarioReplica(id: id, generation: generation, globalIds: Set(ids.compactMap(GlobalID.normalize)))
    }

    /// One sync of the layer; takes the new generation into `replica`.
    @discardableResult
    func sync(
        _ replica: inout ScenarioReplica, direction: SyncDirection = .bidirectional, adds: [JSONValue] = [], updates: [JSONValue] = [],
        deletes: [String] = [], attachments: JSONValue? = nil, extra: [(String, String)] = []
    ) async throws -> JSONValue {
        let answer = try await connection.postForm(
            connection.url("synchronizeReplica"),
            syncFields(
                replica, direction: direction, adds: adds, updates: updates, deletes: deletes,
                attachments: attachments) + extra)
        if let gen = answer["layerServerGens"]?.arrayValue?.first(where: { $0["id"]?.int64Value == Int64(layerId) })?["serverGen"]?.int64Value
            ?? answer["replicaServerGen"]?.int64Value
        {
            replica.generation = gen
        }
        return answer
    }

    func syncFields(
        _ replica: ScenarioReplica, direction: SyncDirection, adds: [JSONValue] = [], updates: [JSONValue] = [],
        deletes: [String] = [], attachments: JSONValue? = nil
    ) -> [(String, String)] {
        var entry: JSONObject = [
            "id": .int(Int64(layerId)),
            "features": ["adds": .array(adds), "updates": .array(updates), "deleteIds": .array(deletes.map { .string($0) })],
        ]
        if let attachments { entry["attachments"] = attachments }
        var fields: [(String, String)] = [
            ("replicaID", replica.id), ("transportType", TransportType.embedded.rawValue), ("returnIdsForAdds", "true"),
            ("dataFormat", "json"), ("rollbackOnFailure", "false"),
        ]
        if !(adds.isEmpty && updates.isEmpty && deletes.isEmpty && attachments == nil) {
            fields.append(("edits", JSONValue.array([.object(entry)]).jsonText))
        }
        switch syncModel {
        case .perLayer:
            fields.append(
                (
                    "syncLayers",
                    JSONValue.array([
                        [
                            "id": .int(Int64(layerId)), "serverGen": .int(replica.generation),
                            "syncDirection": .string(direction.rawValue),
                        ]
                    ]).jsonText
                ))
        default:
            fields += [("replicaServerGen", String(replica.generation)), ("syncDirection", direction.rawValue)]
        }
        return fields
    }

    /// The layer entry of a sync answer.
    func entry(_ answer: JSONValue) -> JSONValue? {
        answer["edits"]?.arrayValue?.first { $0["id"]?.int64Value == Int64(layerId) }
    }

    func ids(_ values: JSONValue?) -> Set<String> {
        Set(
            (values?.arrayValue ?? []).compactMap { value in
                (value.stringValue ?? value["attributes"]?.objectValue?.value(forCaseInsensitiveKey: globalIdField)?.stringValue).flatMap(
                    GlobalID.normalize)
            })
    }

    /// Online edits of the layer (`applyEdits` by GlobalID).
    @discardableResult
    func applyEdits(adds: [JSONValue] = [], updates: [JSONValue] = [], deletes: [String] = []) async throws -> JSONValue {
        var fields: [(String, String)] = [("useGlobalIds", "true"), ("rollbackOnFailure", "true")]
        if !adds.isEmpty { fields.append(("adds", JSONValue.array(adds).jsonText)) }
        if !updates.isEmpty { fields.append(("updates", JSONValue.array(updates).jsonText)) }
        if !deletes.isEmpty { fields.append(("deletes", JSONValue.array(deletes.map { .string($0) }).jsonText)) }
        let answer = try await connection.postForm(connection.url("\(layerId)/applyEdits"), fields)
        for result in (answer["addResults"]?.arrayValue ?? []) + (answer["updateResults"]?.arrayValue ?? [])
            + (answer["deleteResults"]?.arrayValue ?? [])
        where result["success"]?.boolValue != true {
            throw Failed("applyEdits failed: \(result.jsonText)")
        }
        return answer
    }

    /// The feature with this GlobalID on the server (attributes), if any.
    func feature(_ globalId: String) async throws -> JSONObject? {
        let answer = try await connection.getJSON(
            connection.url("\(layerId)/query"),
            [
                ("where", "\(globalIdField) = '\(globalId)'"), ("outFields", "*"), ("returnGeometry", "false"),
            ])
        return answer["features"]?[0]?["attributes"]?.objectValue
    }

    func count(where clause: String) async throws -> Int {
        Int(
            try await connection.getJSON(connection.url("\(layerId)/query"), [("where", clause), ("returnCountOnly", "true")])["count"]?.int64Value
                ?? -1)
    }

    /// Removes what the scenarios made: their features and their replicas.
    func cleanUp() async {
        let created = features.sorted()
        for chunk in stride(from: 0, to: created.count, by: 100) {
            let slice = Array(created[chunk..<min(chunk + 100, created.count)])
            _ = try? await connection.postForm(
                connection.url("\(layerId)/applyEdits"),
                [
                    ("useGlobalIds", "true"), ("rollbackOnFailure", "false"), ("deletes", JSONValue.array(slice.map { .string($0) }).jsonText),
                ])
        }
        for id in replicas {
            _ = try? await connection.postForm(connection.url("unRegisterReplica"), [("replicaID", id)])
        }
    }
}
