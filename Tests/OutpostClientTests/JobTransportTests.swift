import Foundation
import OutpostClient
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A FeatureServer played by a script behind `HTTPTransport`: the job machinery under network
/// loss, pause and resume from JSON, and a give-up past the retry window, in milliseconds and
/// with no server (docs/client.md, "Jobs").
final class ScriptedServer: HTTPTransport {
    /// The result file the server hands out.
    let file: [UInt8]
    /// Requests to fail (as a dropped connection) before answering, by path suffix.
    let drops: Mutex<[String: Int]>
    /// Byte offsets asked of the result file, in order.
    let ranges = Mutex<[Int]>([])
    /// Polls answered "in progress" before "completed".
    let busyPolls: Mutex<Int>
    /// Held open: each range request waits for this many milliseconds (time to pause).
    let rangeDelay: Duration

    init(file: [UInt8], drops: [String: Int] = [:], busyPolls: Int = 1, rangeDelay: Duration = .zero) {
        self.file = file
        self.drops = Mutex(drops)
        self.busyPolls = Mutex(busyPolls)
        self.rangeDelay = rangeDelay
    }

    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let url = try #require(request.url)
        let path = url.path
        let dropped = drops.withLock { drops -> Bool in
            guard let key = drops.keys.first(where: { path.hasSuffix($0) }), drops[key]! > 0 else { return false }
            drops[key]! -= 1
            return true
        }
        if dropped { throw TransportError.unreachable("connection lost (scripted)") }
        func answer(_ json: JSONValue, status: Int = 200) -> (Data, HTTPURLResponse) {
            (Data(json.jsonText.utf8), HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!)
        }
        if path.hasSuffix("/createReplica") {
            return answer(["statusUrl": "http://scripted/jobs/j1", "replicaID": "{R}", "replicaName": "r"])
        }
        if path.hasSuffix("/jobs/j1") {
            let busy = busyPolls.withLock { polls -> Bool in
                defer { polls -= 1 }
                return polls > 0
            }
            return answer([
                "replicaName": "r", "replicaID": "{R}", "transportType": "esriTransportTypeUrl", "responseType": "esriReplicaResponseTypeData",
                "submissionTime": 0, "lastUpdatedTime": 0, "status": busy ? "InProgress" : "Completed",
                "resultUrl": busy ? .null : .string("http://scripted/files/r.gpkg"),
            ])
        }
        if path.hasSuffix("/files/r.gpkg") {
            if rangeDelay > .zero { try await Task.sleep(for: rangeDelay) }
            let header = request.value(forHTTPHeaderField: "Range") ?? "bytes=0-"
            let bounds = header.dropFirst("bytes=".count).split(separator: "-").compactMap { Int($0) }
            let start = bounds.first ?? 0
            let end = min(bounds.count > 1 ? bounds[1] : file.count - 1, file.count - 1)
            ranges.withLock { $0.append(start) }
            let body = start <= end ? Data(file[start...end]) : Data()
            return (
                body,
                HTTPURLResponse(
                    url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: ["Content-Range": "bytes \(start)-\(end)/\(file.count)"])!
            )
        }
        return answer(["error": ["code": 404, "message": .string("not scripted: \(path)")]], status: 404)
    }
}

@Suite struct JobTransportTests {
    static let file = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    static func task(_ server: ScriptedServer, retryWindow: Duration = .seconds(5)) -> GeodatabaseSyncTask {
        var connection = ServiceConnection(
            serviceURL: URL(string: "http://scripted/arcgis/rest/services/Demo/FeatureServer")!, retryWindow: retryWindow, transport: server)
        connection.retryDelay = .milliseconds(1)
        return GeodatabaseSyncTask(connection: connection)
    }

    static func job(_ task: GeodatabaseSyncTask, to path: String) -> GenerateGeodatabaseJob {
        let job = task.makeGenerateGeodatabaseJob(
            parameters: GenerateGeodatabaseParameters(extent: nil, layerOptions: [GenerateLayerOption(layerId: 2)]),
            downloadFileURL: URL(fileURLWithPath: path))
        job.pollInterval = .milliseconds(1)
        job.downloadChunkSize = 1000
        return job
    }

    @Test func networkLossIsRiddenOutAndEveryByteIsFetchedOnceThenTheFileIsChecked() async throws {
        let server = ScriptedServer(file: Self.file, drops: ["/createReplica": 2, "/jobs/j1": 2, "/files/r.gpkg": 3], busyPolls: 2)
        let folder = TestFolders.make("scripted")
        // A window no loaded CI machine outlasts: this test is about riding losses out, and
        // `pastTheRetryWindowTheJobFailsWithANetworkError` about the window (5 s ran out here
        // once, with the whole suite running on two cores).
        let job = Self.job(Self.task(server, retryWindow: .seconds(120)), to: "\(folder)/field.gpkg")
        let statuses = job.statuses
        let watcher = Task {
            var seen: [JobStatus] = []
            for await status in statuses { seen.append(status) }
            return seen
        }
        job.start()
        #expect(job.status == .started, "started on return")
        // The bytes are no GeoPackage: refused before they become the geodatabase, and removed.
        await #expect(throws: ClientError.self) { try await job.output }
        guard case .invalidResponse(let reason) = job.error else { return #expect(Bool(false), "\(String(describing: job.error))") }
        #expect(reason.contains("the replica file"))
        #expect(server.ranges.withLock { $0 } == Array(stride(from: 0, to: 10_000, by: 1000)), "each range once, in order")
        #expect(job.messages.map(\.text).contains("downloaded 10000 bytes"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing half written is left")
        #expect(await watcher.value == [.notStarted, .started, .failed], "each change once, then the stream ends")
    }

    @Test func aJobPausedMidDownloadResumesFromJSONWhereItStopped() async throws {
        let server = ScriptedServer(file: Self.file, rangeDelay: .milliseconds(5))
        let folder = TestFolders.make("scripted-pause")
        let task = Self.task(server)
        let job = Self.job(task, to: "\(folder)/field.gpkg")
        job.start()
        while server.ranges.withLock({ $0.count }) < 3 { try await Task.sleep(for: .milliseconds(1)) }
        job.pause()
        while job.status != .paused { try await Task.sleep(for: .milliseconds(1)) }
        let asked = server.ranges.withLock { $0 }
        let state = try JSONParser.parse(String(decoding: try job.toJSON(), as: UTF8.self))
        let received = try #require(state["receivedBytes"]?.int64Value)
        #expect(state["status"] == "paused" && received >= 2000 && received < 10_000, "\(state)")
        #expect(job.progress.fractionCompleted > 0.3 && job.progress.fractionCompleted < 0.95)

        let restored = try GenerateGeodatabaseJob.fromJSON(try job.toJSON(), transport: server)
        #expect(restored.status == .paused && restored.id == job.id)
        restored.downloadChunkSize = 1000
        restored.start()
        await #expect(throws: ClientError.self) { try await restored.output }
        let all = server.ranges.withLock { $0 }
        #expect(all.dropFirst(asked.count).first == Int(received), "resumed at the byte it stopped at: \(all)")
        #expect(restored.messages.map(\.text).contains("resumed"))
    }

    @Test func pastTheRetryWindowTheJobFailsWithANetworkError() async throws {
        let server = ScriptedServer(file: Self.file, drops: ["/jobs/j1": 1_000_000])
        let job = Self.job(Self.task(server, retryWindow: .milliseconds(50)), to: "\(TestFolders.make("scripted-gone"))/field.gpkg")
        job.start()
        await #expect(throws: ClientError.self) { try await job.output }
        guard case .network(let reason) = job.error else { return #expect(Bool(false), "\(String(describing: job.error))") }
        #expect(reason.contains("connection lost"))
        #expect(job.status == .failed)
    }
}
