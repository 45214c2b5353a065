import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// `content/features/analyze` says what publish will make of a CSV file, and publish takes
/// the coordinate columns it names (docs/portal.md, "Publishing").
@Suite struct PublishAnalyzeTests {
    typealias Publish = PublishRoutesTests

    static func analyze(_ client: any TestClientProtocol, token: String, _ fields: [(String, String)]) async throws -> JSONValue {
        try await post(client, "\(Publish.portal)/content/features/analyze", [("f", "json"), ("token", token)] + fields)
    }

    @Test func anItemsColumnsAndCoordinatesAreAnalyzed() async throws {
        try await OAuthFlows.with { client, _, tokens in
            let eve = tokens["eve"]!
            let csv = Array("name;longitude;latitude;visits\nMitte;13.4;52.5;3\nPankow;13.41;52.57;4\n".utf8)
            let item = try await Publish.addFile(client, token: eve, owner: "eve", type: "CSV", name: "places.csv", bytes: csv)
            let answer = try await Self.analyze(client, token: eve, [("itemid", item), ("fileType", "csv"), ("analyzeParameters", "{}")])
            let parameters = try #require(answer["publishParameters"], "\(answer)")
            #expect(parameters["locationType"]?.stringValue == "coordinates" && parameters["columnDelimiter"]?.stringValue == ";")
            #expect(parameters["longitudeFieldName"]?.stringValue == "longitude" && parameters["latitudeFieldName"]?.stringValue == "latitude")
            let fields = parameters["layerInfo"]?["fields"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
            #expect(fields == ["esriFieldTypeString", "esriFieldTypeDouble", "esriFieldTypeDouble", "esriFieldTypeInteger"], "\(parameters)")
            #expect(answer["records"]?[1]?["geometry"]?["y"]?.doubleValue == 52.57, "\(answer)")
            // Text given in place of an item; another file type; a viewer.
            let text = try await Self.analyze(client, token: eve, [("text", "a,b\n1,2\n"), ("fileType", "csv")])
            #expect(text["publishParameters"]?["locationType"]?.stringValue == "none", "\(text)")
            let excel = try await Self.analyze(client, token: eve, [("itemid", item), ("fileType", "excel")])
            #expect(excel["error"]?["code"]?.int64Value == 400, "\(excel)")
            let viewer = try await Self.analyze(client, token: tokens["vic"]!, [("text", "a\n1\n")])
            #expect(viewer["error"]?["code"]?.int64Value == 403, "\(viewer)")
            let foreign = try await Self.analyze(client, token: tokens["ed"]!, [("itemid", item)])
            #expect(foreign["error"]?["code"]?.int64Value == 400, "a private item of another's is not found: \(foreign)")
        }
    }

    /// Columns of other names are taken when publish names them; a name GDAL would read as a
    /// list or a pattern is refused.
    @Test func publishTakesTheCoordinateColumnsItIsGiven() async throws {
        try await OAuthFlows.with { client, store, tokens in
            let eve = tokens["eve"]!
            let csv = Array("ort,ost,nord\nMitte,13.4,52.5\n".utf8)
            let item = try await Publish.addFile(client, token: eve, owner: "eve", type: "CSV", name: "orte.csv", bytes: csv)
            for hostile in ["ost,nord", "o*"] {
                let refused = try await post(
                    client, "\(Publish.portal)/content/users/eve/publish",
                    [
                        ("f", "json"), ("token", eve), ("itemID", item), ("filetype", "csv"),
                        (
                            "publishParameters",
                            JSONValue.object(["name": "Bad", "longitudeFieldName": .string(hostile), "latitudeFieldName": "nord"]).jsonText
                        ),
                    ])
                #expect(refused["error"]?["code"]?.int64Value == 400, "\(hostile): \(refused)")
            }
            let answer = try await post(
                client, "\(Publish.portal)/content/users/eve/publish",
                [
                    ("f", "json"), ("token", eve), ("itemID", item), ("filetype", "csv"),
                    ("publishParameters", #"{"name":"Orte","longitudeFieldName":"ost","latitudeFieldName":"nord"}"#),
                ])
            let status = try await Publish.finished(client, token: eve, owner: "eve", answer)
            #expect(status["status"]?.stringValue == "completed", "\(status)")
            let features = try await post(
                client, "/arcgis/rest/services/Orte/FeatureServer/0/query", [("f", "json"), ("token", eve), ("where", "1=1"), ("outFields", "*")])
            #expect(features["features"]?[0]?["geometry"]?["x"]?.doubleValue == 13.4, "\(features)")
            #expect(features["features"]?[0]?["attributes"]?["ort"]?.stringValue == "Mitte", "\(features)")
            #expect(try !store.catalog().services.contains { $0.definition.name == "Bad" })
        }
    }
}
