import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// One seeded demo store shared by the read-only route tests.
let demoStore: SpatiaLiteBackend = {
    try! makeDemoStore(label: "routes")
}()

func withDemoApp(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    let app = Application(router: buildRouter(store: demoStore))
    try await app.test(.router, body)
}

/// The body as JSON; `.null` when it is not JSON, which every expectation below rejects.
func json(_ response: TestResponse) -> JSONValue {
    (try? JSONParser.parse(String(buffer: response.body))) ?? .null
}

let services = "/arcgis/rest/services"

@Suite struct DirectoryRouteTests {
    @Test func infoAndServicesList() async throws {
        try await withDemoApp { client in
            try await client.execute(uri: "/arcgis/rest/info?f=json", method: .get) { response in
                #expect(json(response)["currentVersion"] == 11.1)
            }
            try await client.execute(uri: "\(services)?f=json", method: .get) { response in
                let body = json(response)
                #expect(body["folders"] == [])
                #expect(body["version"] == [11, 1], "read by the ArcGIS API for Python as gis.version")
                #expect(
                    body["services"] == [
                        ["name": "Demo", "type": "FeatureServer"], ["name": "Parcels", "type": "FeatureServer"],
                        ["name": "DemoBasemap", "type": "MapServer"], ["name": "DemoVectorBasemap", "type": "VectorTileServer"],
                        ["name": "DemoPlaces", "type": "GeocodeServer"],
                    ])
            }
        }
    }

    @Test func serviceMetadataDescribesSyncAndLayers() async throws {
        try await withDemoApp { client in
            // POST with a form body, as the ArcGIS API for Python sends it; service names ignore case.
            try await client.execute(
                uri: "\(services)/demo/FeatureServer", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "f=json")
            ) { response in
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let body = json(response)
                #expect(body["syncEnabled"] == true)
                #expect(body["hasVersionedData"] == false)
                #expect(body["syncCapabilities"]?["supportsPerLayerSync"] == true)
                #expect(body["syncCapabilities"]?["supportsASync"] == true)
                #expect(body["layers"]?.arrayValue?.map { $0["name"] } == ["Cities", "Countries", "Trees"])
                #expect(body["tables"]?.arrayValue?.map { $0["id"] } == [3])
                #expect(body["maxRecordCount"] == 2000)
                let extent = try #require(body["fullExtent"])
                #expect(extent["xmin"]?.doubleValue ?? 0 < -179 && extent["spatialReference"]?["wkid"] == 4326)
            }
            try await client.execute(uri: "\(services)/Parcels/FeatureServer?f=json", method: .get) { response in
                let body = json(response)
                #expect(body["hasVersionedData"] == true)
                #expect(body["syncCapabilities"]?["supportsPerReplicaSync"] == true)
                #expect(body["syncCapabilities"]?["supportsSyncDirectionControl"] == true)
                #expect(body["spatialReference"]?["wkid"] == 102100)
            }
        }
    }

    @Test func layerMetadataHasWhatClientsRead() async throws {
        try await withDemoApp { client in
            try await client.execute(uri: "\(services)/Demo/FeatureServer/0?f=pjson", method: .get) { response in
                #expect(String(buffer: response.body).contains("\n  \"id\": 0"))
                let body = json(response)
                #expect(body["objectIdField"] == "OBJECTID")
                #expect(body["globalIdField"] == "GlobalID")
                #expect(body["hasAttachments"] == true)
                #expect(body["geometryType"] == "esriGeometryPoint")
                #expect(body["advancedQueryCapabilities"]?["supportsPagination"] == true)
                #expect(body["editFieldsInfo"]?["editorField"] == "Editor")
                #expect(body["relationships"]?.arrayValue?.first?["relatedTableId"] == 3)
                let types = body["fields"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
                #expect(types.prefix(2) == ["esriFieldTypeOID", "esriFieldTypeGlobalID"])
                #expect(body["maxRecordCount"]?.int64Value ?? 0 >= 1000)
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/3?f=json", method: .get) { response in
                let body = json(response)
                #expect(body["type"] == "Table")
                #expect(body["geometryType"] == .null)
                #expect(body["relationships"]?.arrayValue?.first?["role"] == "esriRelRoleDestination")
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/layers?f=json", method: .get) { response in
                let body = json(response)
                #expect(body["layers"]?.arrayValue?.count == 3 && body["tables"]?.arrayValue?.count == 1)
            }
        }
    }

    @Test func jsonpWrapsOnlySafeCallbacks() async throws {
        try await withDemoApp { client in
            try await client.execute(uri: "/arcgis/rest/info?f=json&callback=cb.x", method: .get) { response in
                #expect(String(buffer: response.body).hasPrefix("cb.x({"))
            }
            try await client.execute(uri: "/arcgis/rest/info?f=json&callback=alert(1)", method: .get) { response in
                #expect(String(buffer: response.body).hasPrefix("{"))
            }
        }
    }
}

@Suite struct QueryRouteTests {
    @Test func pagesWithExceededTransferLimit() async throws {
        try await withDemoApp { client in
            try await client.execute(uri: "\(services)/Demo/FeatureServer/2/query?where=1%3D1&outFields=*&f=json", method: .get) { response in
                let body = json(response)
                #expect(body["features"]?.arrayValue?.count == 1000)
                #expect(body["exceededTransferLimit"] == true)
                #expect(body["features"]?.arrayValue?.first?["geometry"]?["x"]?.doubleValue != nil)
            }
            try await client.execute(
                uri: "\(services)/Demo/FeatureServer/2/query?where=1%3D1&resultOffset=2000&resultRecordCount=1000&f=json", method: .get
            ) { response in
                let body = json(response)
                #expect(body["features"]?.arrayValue?.count == 500)
                #expect(body["exceededTransferLimit"] == nil)
            }
        }
    }

    @Test func countIdsAndExtentAnswers() async throws {
        try await withDemoApp { client in
            try await client.execute(uri: "\(services)/Demo/FeatureServer/2/query?where=OBJECTID%3E0&returnCountOnly=true&f=json", method: .get) {
                response in
                #expect(json(response) == ["count": 2500])
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/2/query?where=1%3D1&returnIdsOnly=true&f=json", method: .get) { response in
                let body = json(response)
                #expect(body["objectIdFieldName"] == "OBJECTID")
                #expect(body["objectIds"]?.arrayValue?.count == 2500, "ids are never capped by maxRecordCount")
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/2/query?where=1%3D1&returnExtentOnly=true&f=geojson", method: .get) {
                response in
                let bbox = json(response)["bbox"]?.arrayValue?.compactMap(\.doubleValue) ?? []
                #expect(bbox.count == 4 && bbox[0] >= 13.2 && bbox[2] <= 13.6)
            }
            try await client.execute(
                uri: "\(services)/Demo/FeatureServer/2/query?where=1%3D1&returnExtentOnly=true&outSR=102100&f=json", method: .get
            ) { response in
                let body = json(response)
                #expect(body["count"] == 2500)
                #expect(body["extent"]?["xmin"]?.doubleValue ?? 0 > 1_400_000)
                #expect(body["extent"]?["spatialReference"]?["wkid"] == 102100)
            }
        }
    }

    @Test func geoJSONOutputIsWGS84FeatureCollection() async throws {
        try await withDemoApp { client in
            try await client.execute(
                uri: "\(services)/Parcels/FeatureServer/0/query?where=parcel_id%3D'P-1'&outFields=parcel_id&f=geojson", method: .get
            ) { response in
                #expect(response.headers[.contentType]?.hasPrefix("application/geo+json") == true)
                let body = json(response)
                #expect(body["type"] == "FeatureCollection")
                let feature = try #require(body["features"]?.arrayValue?.first)
                #expect(feature["properties"]?["parcel_id"] == "P-1")
                #expect(feature["geometry"]?["type"] == "MultiPolygon")
                let x = feature["geometry"]?["coordinates"]?.arrayValue?.first?.arrayValue?.first?.arrayValue?.first?.arrayValue?.first?.doubleValue
                #expect(x.map { $0 > 13 && $0 < 14 } == true, "Web Mercator parcels come out in degrees")
            }
        }
    }

    @Test func spatialQueryOverPOSTWithJSONGeometry() async throws {
        try await withDemoApp { client in
            let form =
                "f=json&geometry=" + FormURLEncoding.percentEncode("{'xmin':5.6,'ymin':49.4,'xmax':6.6,'ymax':50.3,'spatialReference':{'wkid':4326}}")
                + "&geometryType=esriGeometryEnvelope&spatialRel=esriSpatialRelContains&outFields=name&returnGeometry=false"
            try await client.execute(
                uri: "\(services)/Demo/FeatureServer/1/query", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form)
            ) { response in
                let names = json(response)["features"]?.arrayValue?.compactMap { $0["attributes"]?["name"]?.stringValue }
                #expect(names == ["Luxembourg"])
            }
        }
    }

    @Test func multipartFormBodiesAreRead() async throws {
        try await withDemoApp { client in
            let body =
                "--XyZ\r\nContent-Disposition: form-data; name=\"where\"\r\n\r\niso_a3 = 'DEU'\r\n--XyZ\r\nContent-Disposition: form-data; name=\"returnCountOnly\"\r\n\r\ntrue\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n--XyZ--\r\n"
            try await client.execute(
                uri: "\(services)/Demo/FeatureServer/1/query", method: .post,
                headers: [.contentType: "multipart/form-data; boundary=XyZ"], body: ByteBuffer(string: body)
            ) { response in
                #expect(json(response) == ["count": 1])
            }
        }
    }

    @Test func singleFeatureAndAttachments() async throws {
        try await withDemoApp { client in
            try await client.execute(uri: "\(services)/Demo/FeatureServer/0/1?f=json", method: .get) { response in
                #expect(json(response)["feature"]?["attributes"]?["OBJECTID"] == 1)
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/0/1/attachments?f=json", method: .get) { response in
                let info = try #require(json(response)["attachmentInfos"]?.arrayValue?.first)
                #expect(info["name"] == "note-1.txt" && info["contentType"] == "text/plain")
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/0/1/attachments/1", method: .get) { response in
                #expect(String(buffer: response.body).hasPrefix("Field note 1"))
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"note-1.txt\"")
            }
            try await client.execute(uri: "\(services)/Demo/FeatureServer/0/queryAttachments?definitionExpression=1%3D1&f=json", method: .get) {
                response in
                #expect(json(response)["attachmentGroups"]?.arrayValue?.count == 5)
            }
        }
    }
}

@Suite struct ErrorRouteTests {
    /// Every kind of bad input answers the ArcGIS envelope with a clear detail.
    @Test(arguments: [
        ("\(services)/Nope/FeatureServer?f=json", 404, "Service 'Nope' not found."),
        ("\(services)/Demo/FeatureServer/9?f=json", 404, "Layer 9 of service 'Demo' not found."),
        ("\(services)/Demo/FeatureServer/x?f=json", 404, "'x' is not a layer id."),
        ("\(services)/Demo/FeatureServer/0/query?where=nope%3D1&f=json", 400, "'where' parameter is invalid: unknown field 'nope'"),
        (
            "\(services)/Demo/FeatureServer/0/query?where=1%3D1%3B%20DROP%20TABLE%20x&f=json", 400,
            "'where' parameter is invalid: ';' is not allowed in a where clause (at character 4)"
        ),
        (
            "\(services)/Demo/FeatureServer/0/query?geometry=1,2,3&f=json", 400,
            "'geometry' parameter is invalid: Invalid geometry: expected x,y for a point or xmin,ymin,xmax,ymax for an envelope"
        ),
        ("\(services)/Demo/FeatureServer/0/query?outSR=123456&f=json", 400, "'outSR' parameter is invalid: unknown spatial reference 123456"),
        (
            "\(services)/Demo/FeatureServer/0/query?returnGeometry=perhaps&f=json", 400,
            "'returnGeometry' parameter is invalid: expected true or false, got 'perhaps'"
        ),
        ("\(services)/Demo/FeatureServer/0/query?outFields=nope&f=json", 400, "'outFields' parameter is invalid: unknown field 'nope'"),
        ("\(services)/Demo/FeatureServer/0/query?f=xml", 400, "'f' parameter is invalid: expected json, pjson or geojson"),
        ("\(services)/Demo/FeatureServer/3/query?geometry=1,2&f=json", 400, "'geometry' parameter is invalid: Inspections is a table"),
        ("\(services)/Demo/FeatureServer/1/1/attachments?f=json", 400, "Layer 1 does not have attachments is not supported."),
        ("\(services)/Demo/FeatureServer/0/99999?f=json", 404, "Layer 0 has no feature with OBJECTID 99999."),
        ("\(services)/Demo/FeatureServer/0/1/attachments/999", 404, "Feature 1 has no attachment 999."),
        ("/arcgis/rest/nothing/here", 404, "Outpost has no resource at /arcgis/rest/nothing/here."),
    ])
    func answersTheEnvelope(_ uri: String, _ code: Int, _ detail: String) async throws {
        try await withDemoApp { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok, "ArcGIS sends application errors with HTTP 200")
                let error = try #require(json(response)["error"])
                #expect(error["code"] == .int(Int64(code)))
                #expect(error["message"]?.stringValue?.isEmpty == false)
                let details = error["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if uri.contains("FeatureServer/1/1/attachments") {
                    #expect(details == ["Layer 1 does not have attachments."])
                } else {
                    #expect(details == [detail])
                }
            }
        }
    }
}
