import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Edit routes get their own freshly seeded store per test.
func withFreshDemoApp(
    options: ServerOptions = ServerOptions(), clock: any WallClock = SystemClock(),
    _ body: @Sendable (any TestClientProtocol, SpatiaLiteBackend) async throws -> Void
) async throws {
    let store = try makeDemoStore(label: "edits", clock: clock)
    let app = Application(router: buildRouter(store: store, options: options))
    try await app.test(.router) { client in try await body(client, store) }
}

func form(_ pairs: [(String, String)]) -> ByteBuffer {
    ByteBuffer(string: pairs.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&"))
}

let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
let layerURL = "/arcgis/rest/services/Demo/FeatureServer/2"

@Suite struct EditRoutesTests {
    @Test func layerApplyEditsOverMultipartAsThePythonClientSendsIt() async throws {
        try await withFreshDemoApp { client, store in
            let parts: [(String, String)] = [
                ("f", "json"), ("useGlobalIds", "false"), ("rollbackOnFailure", "true"), ("returnEditMoment", "true"),
                ("adds", #"[{"attributes":{"species":"Quercus rubra","height_m":4},"geometry":{"x":13.41,"y":52.51}}]"#),
                ("updates", #"[{"attributes":{"OBJECTID":1,"species":"Tilia x europaea"}}]"#),
                ("deletes", "2,3"),
            ]
            var body = ""
            for (name, value) in parts {
                body += "--B0undary\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            body += "--B0undary--\r\n"
            try await client.execute(
                uri: "\(layerURL)/applyEdits", method: .post,
                headers: [.contentType: "multipart/form-data; boundary=B0undary"], body: ByteBuffer(string: body)
            ) { response in
                let json = json(response)
                #expect(json["addResults"]?.arrayValue?.first?["success"] == true)
                #expect(json["addResults"]?.arrayValue?.first?["globalId"]?.stringValue?.hasPrefix("{") == true)
                #expect(json["updateResults"]?.arrayValue?.first?["objectId"] == 1)
                #expect(json["deleteResults"]?.arrayValue?.compactMap { $0["objectId"]?.int64Value } == [2, 3])
                #expect(json["editMoment"]?.int64Value != nil)
            }
            #expect(try store.features.count(service: "Demo", layer: 2) == 2499)
        }
    }

    @Test func serviceApplyEditsAcrossLayers() async throws {
        try await withFreshDemoApp { client, store in
            let edits = #"[{"id":2,"adds":[{"attributes":{"species":"Ulmus"},"geometry":{"x":13.4,"y":52.5}}]},{"id":3,"deletes":[1]}]"#
            try await client.execute(
                uri: "/arcgis/rest/services/Demo/FeatureServer/applyEdits", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("edits", edits)])
            ) { response in
                let layers = json(response).arrayValue ?? []
                #expect(layers.map { $0["id"] } == [2, 3])
                #expect(layers[0]["addResults"]?.arrayValue?.first?["success"] == true)
                #expect(layers[1]["deleteResults"]?.arrayValue?.first?["success"] == true)
            }
            #expect(try store.features.count(service: "Demo", layer: 3) == 599)
        }
    }

    @Test func addUpdateAndDeleteFeatures() async throws {
        try await withFreshDemoApp { client, store in
            try await client.execute(
                uri: "\(layerURL)/addFeatures", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("features", #"[{"attributes":{"species":"Salix"},"geometry":{"x":13.4,"y":52.5}}]"#)])
            ) { response in
                #expect(json(response)["addResults"]?.arrayValue?.first?["success"] == true)
            }
            try await client.execute(
                uri: "\(layerURL)/updateFeatures", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("features", #"[{"attributes":{"OBJECTID":5,"healthy":0}}]"#)])
            ) { response in
                #expect(json(response)["updateResults"]?.arrayValue?.first?["objectId"] == 5)
            }
            try await client.execute(
                uri: "\(layerURL)/deleteFeatures", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("where", "OBJECTID <= 10"), ("rollbackOnFailure", "true")])
            ) { response in
                #expect(json(response)["deleteResults"]?.arrayValue?.count == 10)
            }
            #expect(try store.features.count(service: "Demo", layer: 2) == 2491)
        }
    }

    @Test func perEditErrorsAndRollback() async throws {
        try await withFreshDemoApp { client, store in
            let adds =
                #"[{"attributes":{"species":"ok"},"geometry":{"x":13.4,"y":52.5}},{"attributes":{"height_m":"tall"},"geometry":{"x":13.4,"y":52.5}}]"#
            try await client.execute(
                uri: "\(layerURL)/applyEdits", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("adds", adds), ("rollbackOnFailure", "true")])
            ) { response in
                let results = json(response)["addResults"]?.arrayValue ?? []
                #expect(results.map { $0["success"] } == [false, false])
                #expect(results[0]["error"]?["code"] == 1003)
                #expect(results[1]["error"]?["description"] == "Field 'height_m' expects a number, got a string.")
            }
            #expect(try store.features.count(service: "Demo", layer: 2) == 2500)
            try await client.execute(
                uri: "\(layerURL)/applyEdits", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("adds", adds), ("rollbackOnFailure", "false")])
            ) { response in
                #expect(json(response)["addResults"]?.arrayValue?.map { $0["success"] } == [true, false])
            }
            #expect(try store.features.count(service: "Demo", layer: 2) == 2501)
        }
    }

    @Test(
        arguments: [
            ("\(layerURL)/applyEdits", [("adds", "{not json")], "'adds' parameter is invalid: not valid JSON (Expected a quoted key at offset 1)"),
            ("\(layerURL)/applyEdits", [("adds", "{}")], "'adds' parameter is invalid: expected a JSON array of features"),
            ("\(layerURL)/applyEdits", [("deletes", "1,x")], "'deletes' parameter is invalid: 'x' is not an object id"),
            ("\(layerURL)/applyEdits", [("deletes", "1"), ("useGlobalIds", "true")], "'deletes' parameter is invalid: '1' is not a GlobalID"),
            (
                "\(layerURL)/applyEdits", [("rollbackOnFailure", "sometimes")],
                "'rollbackOnFailure' parameter is invalid: expected true or false, got 'sometimes'"
            ),
            (
                "\(layerURL)/deleteFeatures", [],
                "'objectIds' parameter is invalid: give objectIds, where or geometry to choose the features to delete"
            ),
            ("/arcgis/rest/services/Demo/FeatureServer/applyEdits", [], "'edits' parameter is required."),
            ("/arcgis/rest/services/Demo/FeatureServer/9/applyEdits", [("adds", "[]")], "Layer 9 of service 'Demo' not found."),
        ] as [(String, [(String, String)], String)])
    func badRequestsChangeNothing(_ uri: String, _ parameters: [(String, String)], _ detail: String) async throws {
        try await withFreshDemoApp { client, store in
            let generation = try store.edits.currentGeneration()
            try await client.execute(uri: uri, method: .post, headers: formHeaders, body: form([("f", "json")] + parameters)) { response in
                #expect(json(response)["error"]?["details"] == [.string(detail)])
            }
            #expect(try store.edits.currentGeneration() == generation)
        }
    }

    /// docs/reliability.md, Limits: each answers an ArcGIS error envelope and changes nothing.
    @Test func everyLimitAnswersAnErrorAndChangesNothing() async throws {
        try await withFreshDemoApp(options: ServerOptions(limits: UploadLimits(maxBodyBytes: 16 * 1024 * 1024))) { client, store in
            let generation = try store.edits.currentGeneration()
            let longWhere = "species = 'x' OR " + String(repeating: "height_m > 1 OR ", count: 5_000) + "1=1"
            let deepWhere = String(repeating: "(", count: 200) + "1=1" + String(repeating: ")", count: 200)
            let ids = (1...100_001).map(String.init).joined(separator: ",")
            let ring = "[" + (0...1_000_001).map { "[\(Double($0 % 1000) / 100),\(Double($0 / 1000) / 100)]" }.joined(separator: ",") + ",[0,0]]"
            let cases: [(String, [(String, String)])] = [
                ("\(layerURL)/deleteFeatures", [("where", longWhere)]),
                ("\(layerURL)/deleteFeatures", [("where", deepWhere)]),
                ("\(layerURL)/deleteFeatures", [("objectIds", ids)]),
                (
                    "/arcgis/rest/services/Demo/FeatureServer/1/applyEdits",
                    [
                        ("adds", #"[{"attributes":{"name":"huge"},"geometry":{"rings":[\#(ring)]}}]"#),
                        ("rollbackOnFailure", "true"),
                    ]
                ),
                ("\(layerURL)/applyEdits", [("adds", String(repeating: "[", count: 100_000))]),
            ]
            for (uri, parameters) in cases {
                try await client.execute(uri: uri, method: .post, headers: formHeaders, body: form([("f", "json")] + parameters)) { response in
                    let error = json(response)["error"]
                    let failedEdit = json(response)["addResults"]?[0]?["error"]
                    let code = error?["code"]?.int64Value ?? failedEdit?["code"]?.int64Value
                    #expect(code != nil && code != 200, "\(uri) \(parameters.map(\.0)): \(String(buffer: response.body).prefix(300))")
                    #expect(error == nil || (error?["message"]?.stringValue?.isEmpty == false && error?["details"]?.arrayValue?.isEmpty == false))
                }
            }
            // Bigger than the body limit: refused before it is read.
            let oversized = String(repeating: "x", count: 17 * 1024 * 1024)
            try await client.execute(
                uri: "\(layerURL)/applyEdits", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("adds", oversized)])
            ) { response in
                #expect(json(response)["error"]?["code"] == 413)
            }
            #expect(try store.edits.currentGeneration() == generation)
            #expect(try store.features.count(service: "Demo", layer: 2) == 2500)
            #expect(try store.features.count(service: "Demo", layer: 1) == 177)
        }
    }

    @Test func editsArePostOnly() async throws {
        try await withFreshDemoApp { client, _ in
            try await client.execute(uri: "\(layerURL)/applyEdits?f=json&adds=%5B%5D", method: .get) { response in
                #expect(json(response)["error"]?["code"] == 405)
            }
        }
    }
}
