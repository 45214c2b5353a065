import Foundation
import OutpostClient
import OutpostConformance
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@Suite struct ConformanceTests {
    /// Outpost passes every scenario its services support, and leaves nothing behind.
    @Test func outpostPassesEveryScenarioAndCleansUp() async throws {
        try await withLiveServer { url, store, _ in
            let citiesBefore = try store.features.count(service: "Demo", layer: 0)
            let demo = try await ConformanceRunner(connection: ServiceConnection(serviceURL: url), layerId: 0).run()
            #expect(demo.failed == 0, "\(demo.table)")
            #expect(demo.entries.filter { $0.status == .unsupported }.map(\.id) == ["sync.direction-control", "register.not-on-versioned"])
            #expect(demo.entries.count == ConformanceCatalogue.scenarios.count)
            #expect(try store.features.count(service: "Demo", layer: 0) == citiesBefore)
            #expect(try store.replicas.replicas(service: "Demo").isEmpty)

            let parcelsURL = url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Parcels/FeatureServer")
            let parcels = try await ConformanceRunner(connection: ServiceConnection(serviceURL: parcelsURL)).run()
            // A versioned service registers no copies: those two scenarios are unsupported there.
            #expect(parcels.conforms && parcels.passed == ConformanceCatalogue.scenarios.count - 2, "\(parcels.table)")
            #expect(
                parcels.entries.filter { $0.status == .unsupported }.map(\.id) == [
                    "register.not-after-unregister", "register.not-after-original-unregistered",
                ])
            #expect(parcels.markdown.contains("| `sync.direction-control` Upload-only and download-only syncs |"))
        }
    }

    /// A service with sync disabled is reported, scenario by scenario, as not conforming.
    @Test func aServiceWithoutSyncIsReportedAsFailing() async throws {
        try await withLiveServer { url, store, _ in
            let layer = LayerDefinition(
                id: 0, name: "Points", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
                fields: LayerDefinition.withSystemFields([FieldDefinition(name: "label", type: .string, length: 64)]))
            try store.schema.createService(
                ServiceDefinition(
                    name: "NoSync", capabilities: ["Query", "Create", "Update", "Delete", "Editing"],
                    layers: [layer]))
            let noSync = url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("NoSync/FeatureServer")
            let report = try await ConformanceRunner(connection: ServiceConnection(serviceURL: noSync)).run()
            #expect(!report.conforms)
            let failed = Set(report.entries.filter { $0.status == .fail }.map(\.id))
            #expect(failed.isSuperset(of: ["service.sync-capabilities", "create.extent-filter", "sync.upload-add", "replicas.unregister"]))
            #expect(report.entries.first { $0.id == "create.extent-filter" }?.detail.contains("Sync is not enabled") == true)
        }
    }
}

@Suite struct ConformanceCatalogueTests {
    /// docs/conformance.md lists every scenario of the catalogue.
    @Test func theCatalogueIsDocumented() throws {
        let document = try String(contentsOfFile: TestFolders.repository + "/docs/conformance.md", encoding: .utf8)
        for scenario in ConformanceCatalogue.scenarios {
            #expect(document.contains("| `\(scenario.id)` |"), "\(scenario.id) is not in docs/conformance.md")
        }
    }
}
