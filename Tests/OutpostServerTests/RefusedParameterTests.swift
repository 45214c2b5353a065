import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// A backend refuses a value without naming the parameter that carried it (`StorageRefusal`);
/// the route that read the request names it, with the code and message ArcGIS answers.
@Suite struct RefusedParameterTests {
    static let countries = "/arcgis/rest/services/Demo/FeatureServer/1/query"
    static let count = #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]"#

    static let refusals: [([(String, String)], String, String)] = [
        ([("where", "nope = 1")], "where", "unknown field 'nope'"),
        (
            [("outStatistics", count), ("groupByFieldsForStatistics", "continent"), ("having", "SUM(pop_est + 1) > 1")], "having",
            "SUM takes one field"
        ),
        ([("orderByFields", "nope")], "orderByFields", "unknown field 'nope'"),
        ([("geometry", "0,0,1,1"), ("inSR", "999999")], "inSR", "unknown spatial reference 999999"),
        ([("outStatistics", count), ("groupByFieldsForStatistics", "nope")], "groupByFieldsForStatistics", "unknown field 'nope'"),
        (
            [("outStatistics", #"[{"statisticType":"sum","onStatisticField":"continent","outStatisticFieldName":"s"}]"#)], "outStatistics",
            "sum needs a numeric field"
        ),
        (
            [("returnDistinctValues", "true"), ("outFields", "continent"), ("orderByFields", "pop_est")], "orderByFields",
            "'pop_est' is not one of the distinct fields"
        ),
    ]

    @Test(arguments: refusals)
    func aQueryNamesTheParameterThatCarriedTheValue(pairs: [(String, String)], parameter: String, reason: String) async throws {
        try await withStoreApp { client, _ in
            let answer = try await post(client, Self.countries, [("f", "json")] + pairs)
            #expect(answer["error"]?["code"] == 400, "\(answer)")
            #expect(answer["error"]?["details"] == [.string("'\(parameter)' parameter is invalid: \(reason)")], "\(answer)")
        }
    }

    @Test func uploadsNameThePartParameters() async throws {
        try await withStoreApp { client, _ in
            let uploads = "/arcgis/rest/services/Demo/FeatureServer/uploads"
            let registered = try await post(client, "\(uploads)/register", [("f", "json"), ("itemName", "a.bin")])
            let itemID = try #require(registered["item"]?["itemID"]?.stringValue, "\(registered)")
            let (headers, body) = multipart(fields: [("f", "json"), ("partId", "0")], file: ("file", "blob", "application/octet-stream", [1]))
            let part = try await client.execute(uri: "\(uploads)/\(itemID)/uploadPart", method: .post, headers: headers, body: body) { json($0) }
            #expect(part["error"]?["details"] == ["'partId' parameter is invalid: part ids are 1 to 10000, not 0"], "\(part)")
            let commit = try await post(client, "\(uploads)/\(itemID)/commit", [("f", "json"), ("parts", "1,x")])
            #expect(commit["error"]?["code"] == 400 && commit["error"]?["message"] == "Invalid or missing input parameters.", "\(commit)")
            #expect(commit["error"]?["details"] == ["'parts' parameter is invalid: part 1 was not uploaded"], "\(commit)")
        }
    }

    /// Unnamed (a route that does not name it), a refusal says what was wrong, with the same answer.
    @Test func aRefusalNotNamedSaysWhatWasWrong() throws {
        let refusal = StorageRefusal.unknownSpatialReference(999_999, of: .outputSpatialReference)
        #expect(refusal.arcGISError.details == ["unknown spatial reference 999999"])
        let named = refusal.arcGISError(naming: "outSR")
        #expect(named.details == ["'outSR' parameter is invalid: unknown spatial reference 999999"])
        #expect(named.code == refusal.arcGISError.code && named.message == refusal.arcGISError.message)
        #expect(throws: refusal) { try StorageRefusal.naming([.replicaSpatialReference: "replicaSR"]) { throw refusal } }
        #expect(throws: named) { try StorageRefusal.naming(RefusedParameters.query) { throw refusal } }
    }
}
