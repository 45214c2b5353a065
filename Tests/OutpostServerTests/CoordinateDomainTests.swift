import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostGeometry
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Coordinates a spatial reference admits (docs/decisions.md, "Coordinate domains"), on both
/// backends: edits outside are refused with error 1000; rows already stored outside (before
/// the rule, or imported) neither fail a page nor make an extent null; `defaultSR` leaves a
/// GeoJSON answer in WGS 84.
@Suite struct CoordinateDomainTests {
    typealias Backend = DemoBackend

    /// A demo of its own; `prepare` writes to it before the router is built.
    static func withApp(
        _ backend: Backend, prepare: (any OutpostBackend) throws -> Void = { _ in }, _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let store = try backend.make()
        try prepare(store)
        let app = Application(router: buildRouter(store: store))
        try await app.test(.router, body)
    }

    static func results(_ answer: JSONValue, _ key: String) -> [(success: Bool, code: Int64?)] {
        (answer[key]?.arrayValue ?? []).map { ($0["success"] == true, $0["error"]?["code"]?.int64Value) }
    }

    @Test(arguments: Backend.all)
    func editsOutsideTheReferencesDomainAreRefusedWithError1000(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let refused = [
                #"{"x":1e300,"y":0}"#, #"{"x":1e10,"y":0}"#, #"{"x":360.5,"y":0}"#, #"{"x":-361,"y":0}"#, #"{"x":0,"y":90.0001}"#,
                #"{"x":0,"y":-91}"#, #"{"x":1e300,"y":0,"spatialReference":{"wkid":102100}}"#,
                #"{"x":0,"y":5e11,"spatialReference":{"wkid":3857}}"#,
            ]
            let admitted = [
                #"{"x":-180,"y":-90}"#, #"{"x":359.9,"y":90}"#, #"{"x":20000000,"y":0,"spatialReference":{"wkid":102100}}"#,
            ]
            let adds = (refused + admitted).map { #"{"attributes":{"name":"Probe"},"geometry":\#($0)}"# }
            let answer = try await QueryAttackTests.post(
                client, "0/applyEdits", [("f", "json"), ("rollbackOnFailure", "false"), ("adds", "[\(adds.joined(separator: ","))]")])
            let outcomes = Self.results(answer, "addResults")
            #expect(outcomes.count == refused.count + admitted.count, "\(answer)")
            for (geometry, outcome) in zip(refused + admitted, outcomes) {
                let shouldPass = admitted.contains(geometry)
                #expect(outcome.success == shouldPass && (shouldPass || outcome.code == 1000), "\(geometry): \(outcome)")
            }
            // Updates and the per-layer operations take the same rule; so does a polygon's vertex.
            let update = try await QueryAttackTests.post(
                client, "0/updateFeatures",
                [("f", "json"), ("rollbackOnFailure", "false"), ("features", #"[{"attributes":{"OBJECTID":1},"geometry":{"x":0,"y":1000}}]"#)])
            #expect(Self.results(update, "updateResults").map(\.code) == [1000], "\(update)")
            let ring = #"{"rings":[[[0,0],[0,100],[1,1],[0,0]]]}"#
            let polygon = try await QueryAttackTests.post(
                client, "1/addFeatures", [("f", "json"), ("features", #"[{"attributes":{"name":"Over the pole"},"geometry":\#(ring)}]"#)])
            #expect(Self.results(polygon, "addResults").map(\.code) == [1000], "\(polygon)")
            let stored = try await QueryAttackTests.get(client, "0/query", [("f", "json"), ("where", "name = 'Probe'"), ("outFields", "OBJECTID")])
            let xs = (stored["features"]?.arrayValue ?? []).compactMap { $0["geometry"]?["x"]?.doubleValue }
            #expect(xs.count == admitted.count && xs.allSatisfy { abs($0) <= 360 }, "\(xs)")
        }
    }

    /// Rows outside the domain, as a bulk load writes them (an import keeps what its source
    /// holds, and rows stored before edits were bounded are still there).
    static func storeRowsOutsideTheDomain(_ store: any OutpostBackend) throws {
        try store.edits.insert(
            [
                FeatureRow(attributes: ["name": "Far east"], geometry: .point(Point(x: 1e300, y: 0))),
                FeatureRow(attributes: ["name": "Beyond the pole"], geometry: .point(Point(x: 10, y: 95))),
                FeatureRow(attributes: ["name": "Far west"], geometry: .point(Point(x: -1e10, y: 0))),
            ], service: "Demo", layer: 0)
    }

    @Test(arguments: Backend.all)
    func aRowStoredOutsideTheDomainIsAnsweredWithoutGeometry(_ backend: Backend) async throws {
        try await Self.withApp(backend, prepare: Self.storeRowsOutsideTheDomain) { client in
            let all = [("f", "json"), ("where", "1=1"), ("outFields", "OBJECTID,name")]
            let plain = try await QueryAttackTests.get(client, "0/query", all)
            let count = plain["features"]?.arrayValue?.count ?? 0
            #expect(count > 100)
            func withoutGeometry(_ answer: JSONValue) -> [String] {
                (answer["features"]?.arrayValue ?? []).filter { $0["geometry"] == nil }.compactMap { $0["attributes"]?["name"]?.stringValue }
            }
            // Reprojected: PostGIS refuses the three rows (a 500 before), SpatiaLite made infinities (nulls).
            let projected = try await QueryAttackTests.get(client, "0/query", all + [("outSR", "102100")])
            #expect(projected["error"] == nil && projected["features"]?.arrayValue?.count == count, "\(projected["error"] ?? "")")
            #expect(Set(withoutGeometry(projected)) == ["Far east", "Beyond the pole", "Far west"], "\(withoutGeometry(projected))")
            let points = (projected["features"]?.arrayValue ?? []).compactMap { $0["geometry"] }
            #expect(points.count == count - 3 && points.allSatisfy { $0["x"]?.doubleValue != nil && $0["y"]?.doubleValue != nil })
            // Quantized without a spatial filter (the Maps SDK's snapshot), view and edit mode.
            for mode in ["view", "edit"] {
                let grid = #"{"mode":"\#(mode)","tolerance":0.01,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#
                let snapshot = try await QueryAttackTests.get(client, "0/query", all + [("quantizationParameters", grid)])
                #expect(snapshot["error"] == nil && snapshot["features"]?.arrayValue?.count == count, "\(mode): \(snapshot["error"] ?? "")")
                #expect(withoutGeometry(snapshot).contains("Far east"), "\(mode)")
                #expect(!withoutGeometry(snapshot).contains("Beyond the pole"), "inside 2^52 cells: quantized as stored")
            }
            // A grid too fine for rows inside the domain is still the client's 400.
            let tooFine = #"{"tolerance":1e-14,"extent":{"xmin":0,"ymin":0,"xmax":0.001,"ymax":0.001}}"#
            let refused = try await QueryAttackTests.get(client, "0/query", all + [("quantizationParameters", tooFine)])
            #expect(refused["error"]?["code"] == 400)
            // Extents: finite numbers, in the layer's reference and projected.
            for extra in [[], [("outSR", "102100")]] {
                let extent = try await QueryAttackTests.get(client, "0/query", all + [("returnExtentOnly", "true")] + extra)
                #expect(extent["error"] == nil && extent["count"]?.int64Value == Int64(count), "\(extent)")
                for bound in ["xmin", "ymin", "xmax", "ymax"] {
                    #expect(extent["extent"]?[bound]?.doubleValue?.isFinite == true, "\(extra) \(bound): \(extent)")
                }
            }
            let layer = try await QueryAttackTests.get(client, "0", [("f", "json")])
            let service = try await client.execute(uri: "\(QueryAttackTests.demo)?f=json", method: .get) { json($0) }
            for (name, extent) in [("layer", layer["extent"]), ("service", service["fullExtent"])] {
                for bound in ["xmin", "ymin", "xmax", "ymax"] {
                    #expect(extent?[bound]?.doubleValue?.isFinite == true, "\(name) \(bound): \(extent?.jsonText ?? "none")")
                }
                #expect((extent?["xmax"]?.doubleValue ?? .infinity) <= 360, "\(name): kept inside the domain")
            }
        }
    }

    /// GeoJSON is WGS 84 (RFC 7946): `defaultSR` does not change a GeoJSON answer's reference,
    /// `outSR` does; an Esri JSON answer takes `defaultSR`.
    @Test(arguments: Backend.all)
    func defaultSRLeavesGeoJSONInWGS84(_ backend: Backend) async throws {
        try await QueryAttackTests.withApp(backend) { client in
            let base = [("where", "OBJECTID = 1"), ("outFields", "OBJECTID"), ("defaultSR", "102100")]
            let geoJSON = try await QueryAttackTests.get(client, "0/query", base + [("f", "geojson")])
            let longitude = geoJSON["features"]?[0]?["geometry"]?["coordinates"]?[0]?.doubleValue
            let esri = try await QueryAttackTests.get(client, "0/query", base + [("f", "json")])
            let metres = esri["features"]?[0]?["geometry"]?["x"]?.doubleValue
            #expect(longitude.map { abs($0) <= 180 } == true, "\(geoJSON)")
            #expect(esri["spatialReference"]?["wkid"] == 102100 && metres.map { abs($0) > 180 } == true, "\(esri)")
            let asked = try await QueryAttackTests.get(client, "0/query", base + [("f", "geojson"), ("outSR", "3857")])
            #expect(asked["features"]?[0]?["geometry"]?["coordinates"]?[0]?.doubleValue == metres)
        }
    }
}
