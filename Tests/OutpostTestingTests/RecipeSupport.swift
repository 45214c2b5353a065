import Foundation
import OutpostClient
import OutpostTestSupport
import OutpostTesting
import OutpostWire
import Testing

/// What the recipes share: the demo's trees corner, a geodatabase of its trees, a sync, the
/// server's view of a tree.
enum Recipe {
    static let treeCorner = Envelope(xmin: 13.2, ymin: 52.4, xmax: 13.26, ymax: 52.46)
    static let demoMap = "de3000000000000000000000000000a1"

    /// The store the recipes run over: SpatiaLite, or with `OUTPOST_TESTING_BACKEND=postgres`
    /// a new database on the test cluster (`OUTPOST_TEST_POSTGRES`).
    static func backend() throws -> OutpostTestServer.Backend {
        guard ProcessInfo.processInfo.environment["OUTPOST_TESTING_BACKEND"] == "postgres" else { return .spatiaLite }
        let location = try TestPostgres.makeDatabase(label: "recipe")
        return .postgres("postgres://\(location.username)@\(location.host):\(location.port)/\(location.database)")
    }

    /// A folder for the device's files.
    static func deviceFolder() throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("outpost-recipe-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Generates a geodatabase of the Trees layer (2) in the corner, without attachments.
    static func generateTrees(_ task: GeodatabaseSyncTask, in folder: String) async throws -> Geodatabase {
        var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: treeCorner)
        parameters.layerOptions = parameters.layerOptions.filter { $0.layerId == 2 }
        parameters.returnAttachments = false
        parameters.attachmentsSyncDirection = .none
        let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: "\(folder)/trees.geodatabase"))
        job.pollInterval = .milliseconds(20)
        job.start()
        return try await job.output
    }

    @discardableResult
    static func sync(_ task: GeodatabaseSyncTask, _ geodatabase: Geodatabase) async throws -> SyncResult {
        let job = task.makeSyncGeodatabaseJob(parameters: SyncGeodatabaseParameters(), geodatabase: geodatabase)
        job.pollInterval = .milliseconds(20)
        job.start()
        return try await job.output
    }

    /// Adds a tree on the device; its GlobalID.
    static func addTree(_ geodatabase: Geodatabase, species: String) throws -> String {
        let added = try geodatabase.add(
            LocalFeature(attributes: ["species": .string(species), "height_m": 2.5], geometry: .point(Point(x: 13.21, y: 52.41))),
            to: try geodatabase.featureTable(layerId: 2))
        return try #require(added["GlobalID"]?.stringValue)
    }

    /// The server's tree of that GlobalID, its attributes.
    static func serverTree(_ service: ServiceConnection, _ globalId: String) async throws -> JSONObject? {
        let answer = try await service.getJSON(service.url("2/query"), [("where", "GlobalID='\(globalId)'"), ("outFields", "*")])
        return answer["features"]?[0]?["attributes"]?.objectValue
    }
}
