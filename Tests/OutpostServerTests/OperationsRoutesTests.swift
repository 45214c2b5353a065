import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

/// Health, metrics and request ids (docs/operations.md).
@Suite struct OperationsRoutesTests {
    @Test func healthAnswersInBothShapes() async throws {
        try await withFreshDemoApp { client, _ in
            try await client.execute(uri: "/health/live", method: .get) { #expect($0.status == .ok && json($0)["status"] == "live") }
            try await client.execute(uri: "/health/ready", method: .get) { #expect($0.status == .ok && json($0)["status"] == "ready") }
            try await client.execute(uri: "/arcgis/rest/info/healthCheck?f=json", method: .get) { #expect(json($0)["success"] == true) }
        }
    }

    @Test func metricsMoveWithRequestsEditsReplicasAndConflicts() async throws {
        try await withFreshDemoApp { client, _ in
            func scrape() async throws -> [String: Double] {
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                    var values: [String: Double] = [:]
                    for line in String(buffer: response.body).split(separator: "\n") where !line.hasPrefix("#") {
                        let parts = line.split(separator: " ")
                        if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
                    }
                    return values
                }
            }
            let before = try await scrape()
            #expect(before["outpost_edits_applied_total"] == 0)
            #expect(before["outpost_replicas_registered"] == 0)
            #expect((before["outpost_database_bytes"] ?? 0) > 1_000_000)
            _ = try await post(
                client, "\(serviceURL)/2/applyEdits",
                [
                    ("f", "json"),
                    (
                        "adds",
                        #"[{"attributes":{"species":"a"},"geometry":{"x":13.3,"y":52.5}},{"attributes":{"species":"b"},"geometry":{"x":13.3,"y":52.5}}]"#
                    ),
                ])
            _ = try await createTreeReplica(client, name: "metrics")
            let after = try await scrape()
            #expect(after["outpost_edits_applied_total"] == 2)
            #expect(after["outpost_replicas_registered"] == 1)
            #expect(after[#"outpost_requests_total{operation="applyEdits",status="200"}"#] == 1)
            #expect(after[#"outpost_request_duration_seconds_count{operation="createReplica"}"#] == 1)
            #expect(after[#"outpost_jobs{state="running"}"#] == 0)
            #expect(after["outpost_conflicts_recorded_total"] == 0)
        }
    }

    @Test func everyAnswerCarriesARequestId() async throws {
        try await withFreshDemoApp { client, _ in
            try await client.execute(uri: "/arcgis/rest/services?f=json", method: .get, headers: [.init("X-Request-Id")!: "trace-42"]) { response in
                #expect(response.headers[.init("X-Request-Id")!] == "trace-42")
            }
            try await client.execute(uri: "/arcgis/rest/services?f=json", method: .get, headers: [.init("X-Request-Id")!: "bad id\u{7}"]) {
                response in
                #expect(response.headers[.init("X-Request-Id")!]?.count == 36)
            }
        }
    }

    @Test func tileAndPortalRequestsHaveLabelsOfTheirOwn() {
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5") == "tile")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/V/VectorTileServer/tile/3/2/5.pbf") == "tile")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Basemaps/V/VectorTileServer/tilemap/1/0/0/2/2") == "tilemap")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/V/VectorTileServer/resources/styles/root.json") == "style")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/DemoBasemap/MapServer") == "service")
        #expect(ServerMetrics.operationLabel("/arcgis/sharing/rest/content/items/de3000000000000000000000000000a1/data") == "portal")
    }

    @Test func operationLabelsNameNoIds() {
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Demo/FeatureServer/2/query") == "query")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Demo/FeatureServer/replicas/%7BAB%7D") == "replicaInfo")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Demo/FeatureServer/2/17/attachments/3") == "attachments")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Demo/FeatureServer/2") == "layer")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Demo/FeatureServer") == "service")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Demo/replicafiles/x.sqlite") == "replicaFile")
        // Through a folder: the same labels, and the folder itself.
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Field/Cities/FeatureServer/0/query") == "query")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Field/Cities/FeatureServer") == "service")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Field/Cities/FeatureServer/synchronizeReplica") == "synchronizeReplica")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Field/Cities/replicafiles/x.gpkg") == "replicaFile")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Field") == "folder")
        #expect(ServerMetrics.operationLabel("/arcgis/rest/services/Field/Cities") == "other")
    }
}
