import Foundation
import OutpostWire

/// A child job of an offline map job.
protocol ChildJob: Sendable {
    var status: JobStatus { get }
    var fraction: Double { get }
    var pollInterval: Duration { get nonmutating set }
    func start()
    func pause()
    func cancel()
    func toJSON() throws -> Data
    /// Waits for the end; throws the child's error.
    func waitForEnd() async throws
}

extension Job: ChildJob {
    var fraction: Double { progress.fractionCompleted }

    func waitForEnd() async throws {
        // A geodatabase the job opened is closed: the offline map's files are the output.
        (try await output as? Geodatabase)?.close()
    }
}

extension GenerateOfflineMapJob {
    func run() async {
        let staging = self.staging
        do {
            for folder in ["data", "tiles"] {
                try FileManager.default.createDirectory(atPath: "\(staging)/\(folder)", withIntermediateDirectories: true)
            }
        } catch {
            return finish(.failure(.geodatabase("cannot write \(staging): \(error)")))
        }
        // Every child job at once, as the SDKs do: the server makes the replicas and the tile
        // packages side by side, and the downloads overlap.
        let pending = state.withLock { state in
            state.document.children.indices.filter { [.pending, .running].contains(state.document.children[$0].state) }
        }
        var started: [(Int, any ChildJob)] = []
        for index in pending {
            let record = state.withLock { $0.document.children[index] }
            do { started.append((index, try makeChild(record, staging: staging))) } catch {
                return finish(.failure(error as? ClientError ?? .invalidResponse("\(error)")))
            }
        }
        let go = state.withLock { state -> Bool in
            guard !state.cancelRequested, !state.pauseRequested else { return false }
            for (index, child) in started {
                state.document.children[index].state = .running
                state.running[index] = child
            }
            return true
        }
        guard go else { return stopped() }
        for (index, child) in started {
            child.pollInterval = childPollInterval
            child.start()
            let record = state.withLock { $0.document.children[index] }
            note("\(record.kind == .geodatabase ? "replica" : "tiles") of \(record.serviceURL)")
        }
        let fatal = await withTaskGroup(of: ClientError?.self) { group -> ClientError? in
            for (index, child) in started { group.addTask { await self.follow(child, at: index) } }
            var first: ClientError?
            for await failure in group where failure != nil && first == nil {
                first = failure
                // Without continueOnErrors the first failure stops the others.
                for child in state.withLock({ Array($0.running.values) }) { child.cancel() }
            }
            return first
        }
        state.withLock { $0.running = [:] }
        if state.withLock({ $0.cancelRequested }) { return finish(.failure(.cancelled)) }
        if let fatal { return finish(.failure(fatal)) }
        if state.withLock({ $0.document.children.contains { $0.state == .running } }) { return stopped() }
        do {
            try await registerPreplannedCopies(in: staging)
            try writeMap(into: staging)
            let directory = state.withLock { $0.document.directory }
            try? FileManager.default.removeItem(atPath: directory)  // empty, as checked when the job was made
            guard rename(staging, directory) == 0 else { throw ClientError.geodatabase("cannot move the offline map to \(directory)") }
            finish(.success(()))
        } catch {
            finish(.failure(error as? ClientError ?? .geodatabase("\(error)")))
        }
    }

    /// Waits for a child job: its end (done or failed, reported with `continueOnErrors`; the
    /// failure returned without it) or its pause (its state saved for the resume).
    private func follow(_ child: any ChildJob, at index: Int) async -> ClientError? {
        while child.status == .started || child.status == .notStarted {
            updateProgress(index, child.fraction)
            try? await Task.sleep(for: .milliseconds(20))
        }
        if child.status == .paused {
            let saved = try? child.toJSON()
            state.withLock { $0.document.children[index].saved = saved }
            return nil
        }
        do {
            try await child.waitForEnd()
            state.withLock {
                $0.document.children[index].state = .done
                $0.document.children[index].saved = nil
            }
            updateProgress(index, 1)
            return nil
        } catch {
            let reason = error as? ClientError ?? .invalidResponse("\(error)")
            if state.withLock({ $0.cancelRequested }) { return nil }
            state.withLock {
                $0.document.children[index].state = .failed
                $0.document.children[index].error = reason
            }
            note("\(state.withLock { $0.document.children[index].serviceURL }) failed: \(reason.description)")
            updateProgress(index, 1)
            return state.withLock({ $0.document.parameters.continueOnErrors }) ? nil : reason
        }
    }

    /// Progress: 1,000 units per child job, as far as each has come.
    private func updateProgress(_ index: Int, _ fraction: Double) {
        let total = state.withLock { state -> Int64 in
            state.fractions[index] = fraction
            return state.document.children.indices.reduce(Int64(0)) { sum, child in
                let done = [.done, .failed].contains(state.document.children[child].state)
                return sum + Int64((done ? 1 : state.fractions[child] ?? 0) * 1000)
            }
        }
        progress.completedUnitCount = total
    }

    /// Paused (or cancelled) with child jobs under way: each one's state is kept.
    private func stopped() {
        if state.withLock({ $0.cancelRequested }) { return finish(.failure(.cancelled)) }
        state.withLock { state in
            state.document.status = .paused
            state.pauseRequested = false
            state.task = nil
            state.running = [:]
            state.document.messages.append(JobMessage(date: Date(), text: "paused"))
        }
    }

    private func makeChild(_ record: Child, staging: String) throws -> any ChildJob {
        guard let url = URL(string: record.serviceURL) else { throw ClientError.invalidResponse("bad service URL \(record.serviceURL)") }
        let file = URL(fileURLWithPath: "\(staging)/\(record.file)")
        let (plan, portal) = state.withLock { ($0.document.plan, $0.document.portal) }
        if let item = record.packageItemId {
            guard let base = URL(string: portal) else { throw ClientError.invalidResponse("bad portal \(portal)") }
            let connection = ServiceConnection(serviceURL: base, token: token, transport: transport)
            return PackageDownload(connection: connection, url: base.appendingPathComponent("sharing/rest/content/items/\(item)/data"), file: file)
        }
        switch record.kind {
        case .geodatabase:
            if let saved = record.saved { return try GenerateGeodatabaseJob.fromJSON(saved, token: token, transport: transport) }
            guard let planned = plan.geodatabases.first(where: { $0.serviceURL == record.serviceURL }) else {
                throw ClientError.invalidResponse("no plan for \(record.serviceURL)")
            }
            let task = GeodatabaseSyncTask(url: url, token: token, transport: transport)
            return task.makeGenerateGeodatabaseJob(parameters: planned.parameters, downloadFileURL: file)
        case .tiles:
            if let saved = record.saved { return try ExportTileCacheJob.fromJSON(saved, token: token, transport: transport) }
            guard let planned = plan.tileCaches.first(where: { $0.serviceURL == record.serviceURL }) else {
                throw ClientError.invalidResponse("no plan for \(record.serviceURL)")
            }
            return ExportTileCacheTask(url: url, token: token, transport: transport).makeExportTileCacheJob(
                parameters: planned.parameters, downloadFileURL: file)
        }
    }

    /// A preplanned area that syncs: each downloaded geodatabase registered as a replica of its
    /// own (every device's copy syncs independently of the package's replica).
    private func registerPreplannedCopies(in staging: String) async throws {
        let document = state.withLock { $0.document }
        guard document.preplannedUpdateMode == .syncWithFeatureServices else { return }
        for (index, child) in document.children.enumerated() where child.kind == .geodatabase && child.state == .done {
            guard let url = URL(string: child.serviceURL) else { continue }
            do {
                let geodatabase = try Geodatabase.open(URL(fileURLWithPath: "\(staging)/\(child.file)"))
                defer { geodatabase.close() }
                let replica = try await GeodatabaseSyncTask(url: url, token: token, transport: transport).registerSyncEnabledGeodatabase(geodatabase)
                note("\(child.file) registered as replica \(replica)")
            } catch {
                let reason = error as? ClientError ?? .invalidResponse("\(error)")
                guard document.parameters.continueOnErrors else { throw reason }
                // A copy that cannot sync is not left in the folder.
                try? FileManager.default.removeItem(atPath: "\(staging)/\(child.file)")
                note("\(child.file) could not be registered: \(reason.description)")
                state.withLock {
                    $0.document.children[index].state = .failed
                    $0.document.children[index].error = reason
                }
            }
        }
    }

    /// `map.json` and `package.json` (docs/offline-map-format.md).
    private func writeMap(into folder: String) throws {
        let document = state.withLock { $0.document }
        let webMap = (try? JSONParser.parse(document.webMap)) ?? .null
        let item = (try? JSONParser.parse(document.item)) ?? .null
        let map = OfflineMapFolder.map(webMap: webMap, plan: document.plan, children: document.children)
        let manifest = OfflineMapFolder.manifest(document: document, item: item)
        try Data(map.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/map.json"))
        try Data(manifest.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/package.json"))
        let title = document.parameters.itemInfo?.title ?? item["title"]?.stringValue ?? "Offline map"
        try Data(QGISProject.xml(title: title, layers: try qgisLayers(map, folder: folder)).utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/project.qgs"))
    }

    /// The offline map's layers as QGIS layers, top first: each GeoPackage table read from its file.
    private func qgisLayers(_ map: JSONValue, folder: String) throws -> [QGISProject.Layer] {
        var tables: [String: [Int: GeodatabaseFeatureTable]] = [:]
        func table(_ file: String, _ layerId: Int) throws -> GeodatabaseFeatureTable? {
            if tables[file] == nil {
                let geodatabase = try Geodatabase.open(URL(fileURLWithPath: "\(folder)/\(file)"))
                defer { geodatabase.close() }
                tables[file] = Dictionary(try geodatabase.featureTables().map { ($0.layerId, $0) }, uniquingKeysWith: { a, _ in a })
            }
            return tables[file]?[layerId]
        }
        var layers: [QGISProject.Layer] = []
        let entries =
            (map["operationalLayers"]?.arrayValue ?? []).reversed() + (map["tables"]?.arrayValue ?? [])
            + (map["baseMap"]?["baseMapLayers"]?.arrayValue ?? []).reversed()
        for entry in entries {
            guard let file = entry["url"]?.stringValue, !file.hasPrefix("http") else { continue }
            let id = entry["id"]?.stringValue ?? file
            let name = entry["title"]?.stringValue ?? id
            if file.hasSuffix(".gpkg"), let layerId = entry["x-outpost-layerId"]?.int64Value, let found = try table(file, Int(layerId)) {
                let epsg = Int(found.srsId) > 0 ? Int(found.srsId) : 4326
                layers.append(
                    .init(
                        id: id, name: name, file: file,
                        kind: .vector(table: found.tableName, geometry: QGISProject.geometry(found.geometryType?.rawValue), epsg: epsg)))
            } else if file.hasSuffix(".tpkx") {
                layers.append(.init(id: id, name: name, file: file, kind: .raster))
            } else if file.hasSuffix(".mbtiles") {
                let vector = (entry["x-outpost-source"]?.stringValue ?? "").hasSuffix("/VectorTileServer")
                layers.append(.init(id: id, name: name, file: file, kind: vector ? .vectorTiles : .raster))
            }
        }
        return layers
    }
}

/// A package item's file downloaded whole (in ranges); a pause stops it, and it starts over.
final class PackageDownload: ChildJob {
    let connection: ServiceConnection
    let url: URL
    let file: URL
    let state = Locked<(status: JobStatus, task: Task<Void, Never>?, error: ClientError?)>((.notStarted, nil, nil))

    init(connection: ServiceConnection, url: URL, file: URL) {
        self.connection = connection
        self.url = url
        self.file = file
    }

    var status: JobStatus { state.withLock { $0.status } }
    var fraction: Double { status == .succeeded ? 1 : 0 }
    var pollInterval: Duration {
        get { .zero }
        set {}
    }

    func start() {
        state.withLock { state in
            guard state.status == .notStarted || state.status == .paused else { return }
            state.status = .started
            state.task = Task {
                do {
                    _ = try await self.connection.downloadFile(self.url, to: self.file.path)
                    self.state.withLock { $0.status = .succeeded }
                } catch is CancellationError {
                    self.state.withLock { $0.status = $0.status == .started ? .paused : $0.status }
                } catch {
                    self.state.withLock {
                        $0.status = .failed
                        $0.error = error as? ClientError ?? .invalidResponse("\(error)")
                    }
                }
            }
        }
    }

    func pause() { state.withLock { $0.task }?.cancel() }

    func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.status = .failed
            state.error = .cancelled
            return state.task
        }
        task?.cancel()
    }

    func toJSON() throws -> Data { Data() }

    func waitForEnd() async throws {
        await state.withLock { $0.task }?.value
        if let error = state.withLock({ $0.error }) { throw error }
    }
}
