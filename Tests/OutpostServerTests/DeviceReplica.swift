import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostWire
import Testing

@testable import OutpostServer

/// A device holding one layer of a replica, as a sync client keeps it: GlobalID → feature.
/// Downloads apply adds and updates as upserts and deleteIds as removals.
struct DeviceReplica {
    var id: String
    var layer: Int
    var generation: Int64
    var features: [String: JSONObject] = [:]

    init(created answer: JSONValue, layer: Int) throws {
        id = try #require(answer["replicaID"]?.stringValue)
        self.layer = layer
        generation = try #require(answer["layerServerGens"]?.arrayValue?.first { $0["id"] == .int(Int64(layer)) }?["serverGen"]?.int64Value)
        for feature in answer["layers"]?.arrayValue?.first(where: { $0["id"] == .int(Int64(layer)) })?["features"]?.arrayValue ?? [] {
            upsert(feature)
        }
    }

    /// A device that registered `id` earlier and holds nothing the test needs to compare.
    init(id: String, layer: Int, generation: Int64) {
        self.id = id
        self.layer = layer
        self.generation = generation
    }

    /// Adds a feature, or merges its attributes into the one held.
    mutating func upsert(_ feature: JSONValue) {
        guard let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue else { return }
        var merged = features[id] ?? JSONObject()
        for (key, value) in attributes { merged[key] = value }
        features[id] = merged
    }

    /// Makes local edits (the layer's `features` member of sync edits).
    mutating func edit(_ edits: JSONValue) {
        for feature in (edits["adds"]?.arrayValue ?? []) + (edits["updates"]?.arrayValue ?? []) { upsert(feature) }
        for id in edits["deleteIds"]?.arrayValue ?? [] { features[id.stringValue ?? ""] = nil }
    }

    /// Takes a sync answer: the layer's changes and its new generation.
    mutating func receive(_ answer: JSONValue) throws {
        let entry = answer["edits"]?.arrayValue?.first { $0["id"] == .int(Int64(layer)) }
        for feature in (entry?["features"]?["adds"]?.arrayValue ?? []) + (entry?["features"]?["updates"]?.arrayValue ?? []) {
            upsert(feature)
        }
        for id in entry?["features"]?["deleteIds"]?.arrayValue ?? [] { features[id.stringValue ?? ""] = nil }
        if let gen = answer["layerServerGens"]?.arrayValue?.first(where: { $0["id"] == .int(Int64(layer)) })?["serverGen"]?.int64Value {
            generation = gen
        }
    }

    /// Synchronizes bidirectionally with `edits` (the layer's `features` member) and takes the answer.
    @discardableResult
    mutating func sync(_ client: any TestClientProtocol, edits: String? = nil, extra: [(String, String)] = []) async throws -> JSONValue {
        var pairs: [(String, String)] = [
            ("f", "json"), ("replicaID", id), ("transportType", "esriTransportTypeEmbedded"), ("returnIdsForAdds", "true"),
            ("syncLayers", #"[{"id":\#(layer),"serverGen":\#(generation),"syncDirection":"bidirectional"}]"#),
        ]
        if let edits {
            edit(try JSONParser.parse(edits))
            pairs.append(("edits", #"[{"id":\#(layer),"features":\#(edits)}]"#))
        }
        let answer = try await post(client, "\(serviceURL)/synchronizeReplica", pairs + extra)
        if answer["error"] == nil { try receive(answer) }
        return answer
    }
}

/// A small corner of the trees layer, so whole-state comparisons stay small.
let corner = "13.2,52.4,13.26,52.46"

func createTreeReplica(
    _ client: any TestClientProtocol, name: String, geometry: String = corner, extra: [(String, String)] = []
) async throws -> JSONValue {
    try await post(
        client, "\(serviceURL)/createReplica",
        [
            ("f", "json"), ("replicaName", name), ("layers", "2"), ("geometry", geometry), ("geometryType", "esriGeometryEnvelope"),
            ("inSR", "4326"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
        ] + extra)
}

/// The server's trees in `geometry`, GlobalID → attributes.
func serverTrees(_ client: any TestClientProtocol, geometry: String = corner) async throws -> [String: JSONObject] {
    let answer = try await get(client, "\(layerURL)/query?where=1%3D1&geometry=\(geometry)&outFields=*&f=json")
    var result: [String: JSONObject] = [:]
    for feature in answer["features"]?.arrayValue ?? [] {
        if let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue { result[id] = attributes }
    }
    return result
}

func tree(_ globalId: String, height: Double, x: Double = 13.22, y: Double = 52.42, species: String = "Quercus robur") -> String {
    #"{"attributes":{"GlobalID":"\#(globalId)","species":"\#(species)","height_m":\#(height)},"geometry":{"x":\#(x),"y":\#(y)}}"#
}
