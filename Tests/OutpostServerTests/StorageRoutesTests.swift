import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Storage per service from `rest/admin/storage` (docs/operations.md, "Storage"): a feature
/// service's tables with their indexes as the database counts them, a tile service's file.
@Suite struct StorageRoutesTests {
    static func services(_ client: any TestClientProtocol, token: String) async throws -> [String: (type: String, bytes: Int64)] {
        let usage = try await post(client, "/arcgis/rest/admin/storage/services", [("f", "json"), ("token", token)])
        var services: [String: (type: String, bytes: Int64)] = [:]
        for service in usage["services"]?.arrayValue ?? [] {
            services[service["name"]?.stringValue ?? ""] = (service["type"]?.stringValue ?? "", service["bytes"]?.int64Value ?? -1)
        }
        return services
    }

    @Test(arguments: DemoBackend.all)
    func eachServiceIsCountedByWhatItTakesOnDisk(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let before = try await Self.services(client, token: tokens["ada"]!)
            let demo = try #require(before["Demo"], "\(before)")
            #expect(demo.type == "FeatureServer" && demo.bytes > 0)
            let basemap = try #require(before["DemoBasemap"], "\(before)")
            let basemapFile = try store.tiles.storedBytes(set: "DemoBasemap")
            #expect(basemap.type == "MapServer" && basemap.bytes == basemapFile && basemap.bytes > 10_000)
            // 2,000 features of 70-byte names: the Demo service grows by at least their bytes; the others do not.
            let name = String(repeating: "x", count: 66)
            let features = (0..<2_000).map { #"{"attributes":{"name":"\#(name)\#(1_000 + $0)"},"geometry":{"x":\#(Double($0) / 10),"y":1}}"# }
            let added = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/0/addFeatures",
                [("f", "json"), ("token", tokens["eve"]!), ("features", "[" + features.joined(separator: ",") + "]")])
            #expect(added["addResults"]?.arrayValue?.count == 2_000, "\(String(describing: added).prefix(500))")
            let after = try await Self.services(client, token: tokens["ada"]!)
            #expect((after["Demo"]?.bytes ?? 0) - demo.bytes >= 2_000 * 70, "\(demo.bytes) → \(after["Demo"]?.bytes ?? 0)")
            for (service, usage) in before where service != "Demo" {
                #expect(after[service]?.bytes == usage.bytes, "\(service): \(usage.bytes) → \(after[service]?.bytes ?? -1)")
            }
            // Largest first, as the organisation page lists them.
            let usage = try await post(client, "/arcgis/rest/admin/storage/services", [("f", "json"), ("token", tokens["ada"]!)])
            let sizes = usage["services"]?.arrayValue?.compactMap { $0["bytes"]?.int64Value } ?? []
            #expect(sizes == sizes.sorted(by: >) && sizes.count == after.count)
            // The owners' storage does not measure services; an editor measures nothing.
            let owners = try await post(client, "/arcgis/rest/admin/storage", [("f", "json"), ("token", tokens["ada"]!)])
            #expect(owners["services"] == nil && owners["owners"] != nil, "\(owners)")
            let refused = try await post(client, "/arcgis/rest/admin/storage/services", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(refused["error"]?["code"]?.int64Value == 403, "\(refused)")
        }
    }

    /// The organisation page links the measurement and shows it only when asked.
    @Test func theOrganizationPageMeasuresServicesWhenAsked() async throws {
        try await OAuthFlows.with { client, _, _ in
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            let page = try await admin.open("organization.html")
            #expect(page.text.contains("id=\"measure-services\"") && !page.text.contains("id=\"service-storage\""), "\(page.text.suffix(800))")
            let measured = try await admin.open("organization.html?measure=services")
            let table = try #require(measured.text.range(of: "id=\"service-storage\"").map { String(measured.text[$0.lowerBound...]) })
            #expect(table.contains(">Demo<") && table.contains(">DemoBasemap<") && table.contains("MapServer"), "\(table.prefix(1_500))")
        }
    }
}
