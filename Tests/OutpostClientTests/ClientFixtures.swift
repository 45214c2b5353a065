import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostClient
import OutpostDataTools
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A live Outpost on loopback with freshly seeded demo data; `body` gets the Demo
/// FeatureServer URL, the store and a scratch folder.
func withLiveServer(options: ServerOptions = ServerOptions(), _ body: @Sendable (URL, SpatiaLiteBackend, String) async throws -> Void) async throws {
    let directory = TestFolders.make("client")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try SpatiaLiteBackend(dataDirectory: (directory as NSString).appendingPathComponent("server"))
    try DemoData.seed(store, testdataDirectory: TestFolders.testdata)
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
    var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: treeCorner)
    parameters.layerOptions = parameters.layerOptions.filter { $0.layerId == 2 }
    if !attachments {
        parameters.returnAttachments = false
        parameters.attachmentsSyncDirection = .none
    }
    let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: path))
    job.pollInterval = .milliseconds(20)
    job.start()
    let geodatabase = try await job.output
    #expect(geodatabase.path == path)
    return geodatabase
}

/// Runs a sync job to its end.
@discardableResult
func sync(
    _ task: GeodatabaseSyncTask, _ geodatabase: Geodatabase, _ parameters: SyncGeodatabaseParameters = SyncGeodatabaseParameters()
)
    async throws -> SyncResult
{
    let job = task.makeSyncGeodatabaseJob(parameters: parameters, geodatabase: geodatabase)
    job.pollInterval = .milliseconds(20)
    job.start()
    return try await job.output
}

/// The server's trees in the corner, GlobalID → attributes.
func serverTrees(_ connection: ServiceConnection) async throws -> [String: JSONObject] {
    let answer = try await connection.getJSON(
        connection.url("2/query"),
        [
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
            let x = attributes[field] ?? .null
            let y = b[id]?[field] ?? .null
            if x != y && x.doubleValue != y.doubleValue { return false }
        }
    }
    return true
}

/// A gateway on loopback in front of a live server that loses answers: it forwards every
/// request, and for the first `failures` requests whose path ends in `failOn` it throws the
/// server's answer away and replies 502, as a proxy whose upstream connection dropped after
/// the server had done the work. Answers' absolute URLs are rewritten to the gateway.
/// With `refuseWithRetryAfter` it instead refuses those requests with 429 and `Retry-After`
/// before they reach the server, as a server whose job queue is full does.
final class LossyGateway: Sendable {
    let failOn: String
    let refuseWithRetryAfter: Int?
    private let remaining: Mutex<Int>
    let lost = Mutex<Int>(0)

    init(failOn: String, failures: Int, refuseWithRetryAfter: Int? = nil) {
        self.failOn = failOn
        self.refuseWithRetryAfter = refuseWithRetryAfter
        remaining = Mutex(failures)
    }

    private func takesAFailure(_ path: String) -> Bool {
        path.hasSuffix(failOn)
            && remaining.withLock { n in
                n > 0
                    ? {
                        n -= 1
                        return true
                    }() : false
            }
    }

    func run(backend: URL, _ body: @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        let session = URLSession(configuration: .ephemeral)
        let backendOrigin = "\(backend.scheme!)://\(backend.host!):\(backend.port!)"
        let gatewayOrigin = Mutex("")
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            if let seconds = self.refuseWithRetryAfter, self.takesAFailure(request.uri.path) {
                self.lost.withLock { $0 += 1 }
                return Response(
                    status: .tooManyRequests, headers: [.retryAfter: String(seconds), .contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"code":429,"message":"Too many requests.","details":[]}}"#)))
            }
            var target = URLRequest(url: URL(string: backendOrigin + request.uri.description)!)
            target.httpMethod = request.method.rawValue
            for field in request.headers where [.contentType, .range].contains(field.name) {
                target.setValue(field.value, forHTTPHeaderField: field.name.rawName)
            }
            if request.method == .post {
                target.httpBody = Data(buffer: try await request.body.collect(upTo: 64 << 20))
            }
            let (data, response) = try await session.data(for: target)
            let http = response as! HTTPURLResponse
            if self.refuseWithRetryAfter == nil, self.takesAFailure(request.uri.path) {
                self.lost.withLock { $0 += 1 }
                return Response(status: .badGateway)
            }
            var headers: HTTPFields = [:]
            for name in [HTTPField.Name.contentType, .contentRange, .acceptRanges] {
                if let value = http.value(forHTTPHeaderField: name.rawName) { headers[name] = value }
            }
            var bytes = data
            if http.value(forHTTPHeaderField: "Content-Type")?.contains("json") == true {
                bytes = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: backendOrigin, with: gatewayOrigin.withLock { $0 }).utf8)
            }
            return Response(status: .init(code: http.statusCode), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("**", use: handler)
        router.post("**", use: handler)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            gatewayOrigin.withLock { $0 = "http://127.0.0.1:\(port)" }
            try await body(URL(string: "http://127.0.0.1:\(port)\(backend.path)")!)
        }
    }
}
