import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

private let parcelsURL = "/arcgis/rest/services/Parcels/FeatureServer"

/// A per-replica replica of the versioned Parcels service: its id, generation and parcels.
private struct ParcelReplica {
    var id: String
    var generation: Int64
    var parcels: [String: JSONObject]

    static func create(_ client: any TestClientProtocol, name: String, extra: [(String, String)] = []) async throws -> ParcelReplica {
        let answer = try await post(
            client, "\(parcelsURL)/createReplica",
            [
                ("f", "json"), ("replicaName", name), ("layers", "0"), ("syncModel", "perReplica"),
                ("transportType", "esriTransportTypeEmbedded"), ("returnAttachments", "false"),
            ] + extra)
        var parcels: [String: JSONObject] = [:]
        for feature in answer["layers"]?[0]?["features"]?.arrayValue ?? [] {
            if let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue { parcels[id] = attributes }
        }
        return ParcelReplica(
            id: try #require(answer["replicaID"]?.stringValue),
            generation: try #require(answer["replicaServerGen"]?.int64Value), parcels: parcels)
    }

    /// Syncs with `updates` (full rows from the replica's copy, with `changes` applied).
    mutating func sync(
        _ client: any TestClientProtocol, direction: String = "bidirectional", changes: [String: JSONObject] = [:],
        deletes: [String] = []
    ) async throws -> JSONValue {
        let updates = changes.sorted { $0.key < $1.key }.map { id, change -> JSONValue in
            var attributes = parcels[id] ?? [:]
            for (key, value) in change { attributes[key] = value }
            return ["attributes": .object(attributes)]
        }
        let edits: JSONValue = [["id": 0, "features": ["adds": [], "updates": .array(updates), "deleteIds": .array(deletes.map { .string($0) })]]]
        let answer = try await post(
            client, "\(parcelsURL)/synchronizeReplica",
            [
                ("f", "json"), ("replicaID", id), ("replicaServerGen", String(generation)), ("syncDirection", direction),
                ("transportType", "esriTransportTypeEmbedded"), ("edits", edits.jsonText),
            ])
        if let gen = answer["replicaServerGen"]?.int64Value { generation = gen }
        for feature in answer["edits"]?[0]?["features"]?["updates"]?.arrayValue ?? [] {
            if let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue { parcels[id] = attributes }
        }
        return answer
    }
}

private func serverParcel(_ client: any TestClientProtocol, _ globalId: String) async throws -> JSONObject? {
    let answer = try await get(client, "\(parcelsURL)/0/query?where=\(FormURLEncoding.percentEncode("GlobalID = '\(globalId)'"))&outFields=*&f=json")
    return answer["features"]?[0]?["attributes"]?.objectValue
}

@Suite struct VersionedSyncTests {
    @Test func differentFieldsChangedByTwoReplicasMergeWithoutConflict() async throws {
        try await withFreshDemoApp { client, _ in
            var first = try await ParcelReplica.create(client, name: "north")
            var second = try await ParcelReplica.create(client, name: "south")
            let parcel = try #require(first.parcels.keys.sorted().first)
            let original = try #require(first.parcels[parcel])
            _ = try await first.sync(client, changes: [parcel: ["owner": "Ana"]])
            // The second replica sends its whole row: only the field it changed counts.
            let answer = try await second.sync(client, changes: [parcel: ["zoning": "C9"]])
            #expect(answer["edits"]?[0]?["updateResults"]?[0]?["success"] == true)
            let merged = try #require(try await serverParcel(client, parcel))
            #expect(merged["owner"] == "Ana" && merged["zoning"] == "C9")
            #expect(merged["owner"] != original["owner"])
            // No conflict: nothing was overwritten. The merged row comes back to the replica.
            let conflicts = try await get(client, "\(parcelsURL)/replicas/\(second.id)/conflicts?f=json")
            #expect(conflicts["conflicts"]?.arrayValue?.isEmpty == true)
            #expect(second.parcels[parcel]?["owner"] == "Ana" && second.parcels[parcel]?["zoning"] == "C9")
            // And the first replica receives the merge on its next download.
            _ = try await first.sync(client, direction: "download")
            #expect(first.parcels[parcel]?["zoning"] == "C9" && first.parcels[parcel]?["owner"] == "Ana")
        }
    }

    @Test func theSameFieldChangedByTwoReplicasIsAConflictKeptWithAllThreeValues() async throws {
        try await withFreshDemoApp { client, _ in
            var first = try await ParcelReplica.create(client, name: "north")
            var second = try await ParcelReplica.create(client, name: "south")
            let parcel = try #require(first.parcels.keys.sorted().first)
            let base = try #require(first.parcels[parcel]?["owner"])
            _ = try await first.sync(client, changes: [parcel: ["owner": "Ana"]])
            _ = try await second.sync(client, changes: [parcel: ["owner": "Bo", "area_m2": 2600]])
            let server = try #require(try await serverParcel(client, parcel))
            #expect(server["owner"] == "Bo" && server["area_m2"]?.doubleValue == 2600)  // last in wins
            let conflicts = try await get(client, "\(parcelsURL)/replicas/\(second.id)/conflicts?f=json")["conflicts"]?.arrayValue ?? []
            #expect(conflicts.count == 1)
            let fields = conflicts.first?["fields"]?.arrayValue ?? []
            #expect(fields.count == 1)  // area_m2 changed on one side only: no conflict
            #expect(fields.first?["field"] == "owner" && fields.first?["base"] == base)
            #expect(fields.first?["default"] == "Ana" && fields.first?["replica"] == "Bo")
            #expect(conflicts.first?["overwrittenBy"]?.stringValue == first.id)
        }
    }

    @Test func eachDirectionAndTheReplicasVersion() async throws {
        try await withFreshDemoApp { client, store in
            var device = try await ParcelReplica.create(client, name: "field")
            #expect(try store.versions.versions(service: "Parcels").map(\.name).contains { $0.hasPrefix("outpost.field_") })
            #expect(try store.versions.versions(service: "Parcels").first?.name == SpatiaLiteBackend.defaultVersionName)
            let ids = device.parcels.keys.sorted()
            _ = try await post(
                client, "\(parcelsURL)/0/applyEdits",
                [
                    ("f", "json"), ("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(ids[1])","zoning":"OS2"}}]"#),
                ])
            // Upload: the edit is posted, nothing comes back, the generation stays.
            let generation = device.generation
            let upload = try await device.sync(client, direction: "upload", changes: [ids[0]: ["owner": "Up"]])
            #expect(upload["edits"]?[0]?["updateResults"]?[0]?["success"] == true)
            #expect(upload["edits"]?[0]?["features"]?["updates"]?.arrayValue?.isEmpty == true)
            #expect(device.generation == generation)
            #expect(try await serverParcel(client, ids[0])?["owner"] == "Up")
            // Download: edits in the request are ignored; DEFAULT's changes since G come down
            // (with the replica's own posted edit, as merged on the server).
            let download = try await device.sync(client, direction: "download", changes: [ids[2]: ["owner": "Ignored"]])
            #expect(try await serverParcel(client, ids[2])?["owner"] != "Ignored")
            let received = Set(
                download["edits"]?[0]?["features"]?["updates"]?.arrayValue?.compactMap { $0["attributes"]?["GlobalID"]?.stringValue } ?? [])
            #expect(received == [ids[0], ids[1]])
            #expect(device.parcels[ids[1]]?["zoning"] == "OS2")
            #expect(device.generation > generation)
            // Snapshot: the current data whole.
            let snapshot = try await device.sync(client, direction: "snapshot")
            #expect(snapshot["layers"]?[0]?["features"]?.arrayValue?.count == 400)
            // Unregistering removes its version.
            _ = try await post(client, "\(parcelsURL)/unRegisterReplica", [("f", "json"), ("replicaID", device.id)])
            #expect(try store.versions.versions(service: "Parcels").map(\.name) == [SpatiaLiteBackend.defaultVersionName])
        }
    }

    @Test func aDownloadOnlyReplicaRefusesUploadsAndPerLayerSyncIsRefused() async throws {
        try await withFreshDemoApp { client, store in
            var reader = try await ParcelReplica.create(client, name: "reader", extra: [("syncDirection", "download")])
            let parcel = try #require(reader.parcels.keys.sorted().first)
            let generation = try store.edits.currentGeneration()
            let refused = try await reader.sync(client, changes: [parcel: ["owner": "Nope"]])
            #expect(refused["error"]?["code"] == 400)
            #expect(try store.edits.currentGeneration() == generation)
            let perLayer = try await post(
                client, "\(parcelsURL)/createReplica",
                [
                    ("f", "json"), ("layers", "0"), ("syncModel", "perLayer"), ("transportType", "esriTransportTypeEmbedded"),
                ])
            #expect(perLayer["error"]?["code"] == 400)
            #expect(perLayer["error"]?["details"]?[0]?.stringValue?.contains("perReplica") == true)
        }
    }
}
