import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// A feature-tile query and distinct values over HTTP, as the Maps SDK asks them, on both
/// backends: the layer resource advertises them, the answers carry a `transform` and integer
/// coordinates, and bad parameters are the 400 envelope (docs/decisions.md, "Feature tiles").
@Suite struct TileQueryRouteTests {
    typealias Backend = DemoBackend

    static let demos = Guarded<[String: any OutpostBackend]>([:])

    static func withApp(_ backend: Backend, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let store: any OutpostBackend
        if let made = demos.value[backend.name] {
            store = made
        } else {
            store = try backend.make()
            demos.withLock { $0[backend.name] = store }
        }
        let app = Application(router: buildRouter(store: store))
        try await app.test(.router, body)
    }

    static func get(_ client: any TestClientProtocol, _ path: String, _ pairs: [(String, String)]) async throws -> JSONValue {
        let query = pairs.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        return try await client.execute(uri: "\(services)/Demo/FeatureServer/\(path)?\(query)", method: .get) { json($0) }
    }

    @Test(arguments: Backend.all)
    func theLayerAdvertisesWhatTheSDKReadsForTiles(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let layer = try await Self.get(client, "2", [("f", "json")])
            #expect(layer["supportsCoordinatesQuantization"] == true)
            let advanced = layer["advancedQueryCapabilities"]
            for name in [
                "supportsPagination", "supportsQueryWithResultType", "supportsMaxRecordCountFactor", "supportsDistinct", "supportsDefaultSR",
            ] {
                #expect(advanced?[name] == true, "\(name)")
            }
            #expect(layer["maxRecordCount"] == 1000 && layer["tileMaxRecordCount"] == 1000 && layer["standardMaxRecordCount"] == 1000)
            #expect(layer["maxRecordCountFactor"] == 1)
            #expect(layer["supportedQueryFormats"]?.stringValue?.lowercased().contains("pbf") == false)
        }
    }

    /// A tile of zoom 10 over the trees, as the SDK's drill-down source sends it.
    static func tile(factor: Int) -> [(String, String)] {
        let size = 256 * 156_543.03392800014 / 1024
        let (xmin, ymax) = (-20_037_508.342787 + 549 * size, 20_037_508.342787 - 335 * size)
        let extent = #"{"xmin":\#(xmin),"ymin":\#(ymax - size),"xmax":\#(xmin + size),"ymax":\#(ymax),"spatialReference":{"wkid":102100}}"#
        return [
            ("f", "json"), ("geometry", extent), ("geometryType", "esriGeometryEnvelope"), ("spatialRel", "esriSpatialRelIntersects"),
            ("outFields", "OBJECTID"), ("returnGeometry", "true"), ("outSR", "102100"), ("where", "1=1"), ("resultType", "tile"),
            ("returnExceededLimitFeatures", "false"), ("maxRecordCountFactor", String(factor)),
            (
                "quantizationParameters",
                #"{"mode":"view","originPosition":"upperLeft","tolerance":\#(size / 256),"extent":\#(extent)}"#
            ),
        ]
    }

    @Test(arguments: Backend.all)
    func aTileAnswersIntegersOnItsGridOrNothingOverTheLimit(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let plain = try await Self.get(
                client, "2/query", [("f", "json"), ("where", "1=1"), ("outSR", "102100"), ("maxRecordCountFactor", "3")])
            var stored: [Int64: (Double, Double)] = [:]
            for feature in plain["features"]?.arrayValue ?? [] {
                guard let id = feature["attributes"]?["OBJECTID"]?.int64Value, let x = feature["geometry"]?["x"]?.doubleValue,
                    let y = feature["geometry"]?["y"]?.doubleValue
                else { continue }
                stored[id] = (x, y)
            }
            #expect(stored.count == 2500)
            let answer = try await Self.get(client, "2/query", Self.tile(factor: 3))
            let transform = try #require(answer["transform"])
            #expect(transform["originPosition"] == "upperLeft")
            let scale = try #require(transform["scale"]?.arrayValue?.first?.doubleValue)
            let translate = transform["translate"]?.arrayValue?.compactMap { $0.doubleValue } ?? []
            try #require(translate.count == 4)
            let features = try #require(answer["features"]?.arrayValue)
            #expect(features.count > 100 && answer["exceededTransferLimit"] == nil)
            for feature in features {
                let id = try #require(feature["attributes"]?["OBJECTID"]?.int64Value)
                guard case .int(let column)? = feature["geometry"]?["x"], case .int(let row)? = feature["geometry"]?["y"] else {
                    Issue.record("feature \(id) has no integer coordinates: \(String(describing: feature["geometry"]))")
                    continue
                }
                #expect((0...256).contains(column) && (0...256).contains(row))
                let (x, y) = try #require(stored[id])
                #expect(abs(translate[0] + Double(column) * scale - x) <= scale / 2 + 1e-6)
                #expect(abs(translate[1] - Double(row) * scale - y) <= scale / 2 + 1e-6)
            }
            // At factor 1 the whole layer does not fit a tile of zoom 0: no features, the flag set.
            var world = Self.tile(factor: 1)
            world[1].1 =
                #"{"xmin":-20037508.342787,"ymin":-20037508.342787,"xmax":20037508.342787,"ymax":20037508.342787,"spatialReference":{"wkid":102100}}"#
            let over = try await Self.get(client, "2/query", world)
            #expect(over["features"]?.arrayValue?.isEmpty == true && over["exceededTransferLimit"] == true)
            // GeoJSON has no transform: the parameter is not applied.
            var geoJSON = Self.tile(factor: 3)
            geoJSON[0].1 = "geojson"
            let collection = try await Self.get(client, "2/query", geoJSON)
            #expect(collection["transform"] == nil)
            #expect(collection["features"]?.arrayValue?.first?["geometry"]?["coordinates"]?.arrayValue?.first?.doubleValue.map { $0 > 1e6 } == true)
        }
    }

    @Test(arguments: Backend.all)
    func distinctContinentsAndBadParametersOverHTTP(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let distinct = try await Self.get(
                client, "1/query",
                [("f", "json"), ("where", "1=1"), ("outFields", "continent"), ("returnDistinctValues", "true"), ("returnGeometry", "false")])
            #expect(distinct["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["continent"])
            #expect(distinct["features"]?.arrayValue?.count == 8)
            #expect(distinct["features"]?.arrayValue?.first?["attributes"] == ["continent": "Africa"])
            let count = try await Self.get(
                client, "1/query", [("f", "json"), ("outFields", "continent"), ("returnDistinctValues", "true"), ("returnCountOnly", "true")])
            #expect(count == ["count": 8])
            for pairs in [
                [("maxRecordCountFactor", "9")], [("resultType", "page")],
                [("quantizationParameters", #"{"tolerance":1e-300,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#)],
                [("quantizationParameters", #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":102100}}}"#)],
                [("outFields", "continent"), ("returnDistinctValues", "true"), ("orderByFields", "name")],
            ] {
                let error = try await Self.get(client, "1/query", pairs + [("f", "json")])
                #expect(error["error"]?["code"] == 400, "\(pairs)")
            }
        }
    }
}
