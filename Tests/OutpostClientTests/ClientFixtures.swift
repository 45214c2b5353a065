import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostClient
import OutpostServer
import OutpostStore
import OutpostWire
import Testing

/// A live Outpost on loopback with freshly seeded demo data; `body` gets the Demo
/// FeatureServer URL, the store and a scratch folder.
func withLiveServer(options: ServerOptions = ServerOptions(), _ body: @Sendable (URL, FeatureStore, String) async throws -> Void) async throws
{
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-client-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try FeatureStore(dataDirectory: (directory as NSString).appendingPathComponent("server"))
    var testdata = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { testdata.deleteLastPathComponent() }
    try DemoData.seed(store, testdataDirectory: testdata.appendingPathComponent("testdata").path)
    let device = (directory as NSString).appendingPathComponent("device")
    try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
    let app = Application(router: buildRouter(store: store, options: options), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    try await app.test(.live) { client in
        let port = try #require(client.port)
        let url = URL(string: "http://127.0.0.1:\(port)/arcgis/rest/services/Demo/FeatureServer")!
        try await body(url, store, device)
    }
}

/// The trees corner the server tests use, as an envelope.
let treeCorner = Envelope(xmin: 13.2, ymin: 52.4, xmax: 13.26, ymax: 52.46)

/// Generates a geodatabase of the Trees layer (2) in `treeCorner` and waits for it.
func generateTrees(_ task: GeodatabaseSyncTask, to path: String, attachments: Bool = false) async throws -> Geodatabase {
    var parameters = try await task.defaultGenerateGeodatabaseParameters(extent: treeCorner)
    parameters.layerOptions = parameters.layerOptions.filter { $0.layerId == 2 }
    if !attachments {
        parameters.returnAttachments = false
        parameters.attachmentsSyncDirection = .none
    }
    let job = task.generateGeodatabase(parameters: parameters, downloadTo: path)
    await job.setPollInterval(.milliseconds(20))
    await job.start()
    let outcome = try await job.result()
    #expect(outcome == .geodatabase(path: path))
    return try Geodatabase.open(path)
}

/// Runs a sync job to its end.
@discardableResult
func sync(_ task: GeodatabaseSyncTask, _ geodatabase: Geodatabase, _ parameters: SyncGeodatabaseParameters = SyncGeodatabaseParameters())
    async throws -> SyncResult
{
    let job = task.syncGeodatabase(parameters: parameters, geodatabase: geodatabase)
    await job.setPollInterval(.milliseconds(20))
    await job.start()
    guard case .sync(let result) = try await job.result() else { throw ClientError.invalidResponse("not a sync outcome") }
    return result
}

/// The server's trees in the corner, GlobalID → attributes.
func serverTrees(_ connection: ServiceConnection) async throws -> [String: JSONObject] {
    let answer = try await connection.getJSON(connection.url("2/query"), [
        ("where", "1=1"), ("outFields", "*"), ("geometry", "13.2,52.4,13.26,52.46"), ("geometryType", "esriGeometryEnvelope"), ("inSR", "4326"),
    ])
    var result: [String: JSONObject] = [:]
    for feature in answer["features"]?.arrayValue ?? [] {
        if let attributes = feature["attributes"]?.objectValue, let id = attributes["GlobalID"]?.stringValue { result[id] = attributes }
    }
    return result
}

/// The geodatabase's trees, GlobalID → attributes.
func localTrees(_ geodatabase: Geodatabase) throws -> [String: JSONObject] {
    let table = try geodatabase.featureTable(layerId: 2)
    var result: [String: JSONObject] = [:]
    for feature in try geodatabase.query(table) {
        if let id = feature["GlobalID"]?.stringValue { result[id] = feature.attributes }
    }
    return result
}

/// Same features with the same OBJECTIDs and the same values (numbers compared as numbers).
func sameTrees(_ a: [String: JSONObject], _ b: [String: JSONObject], fields: [String] = ["OBJECTID", "species", "height_m"]) -> Bool {
    guard Set(a.keys) == Set(b.keys) else { return false }
    for (id, attributes) in a {
        for field in fields {
            let x = attributes[field] ?? .null, y = b[id]?[field] ?? .null
            if x != y && x.doubleValue != y.doubleValue { return false }
        }
    }
    return true
}
