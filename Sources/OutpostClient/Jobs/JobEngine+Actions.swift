import Foundation
import OutpostGeoPackage
import OutpostWire

/// The I/O behind each action of `JobStateMachine`: what happened comes back as an event.
extension JobEngine {
    func perform(_ action: JobStateMachine.Action) async throws -> JobStateMachine.Event {
        let document = self.document
        if document.kind == .sync { try holdSync() }
        switch action {
        case .prepare:
            if document.kind != .sync {
                guard !FileManager.default.fileExists(atPath: document.path) else {
                    throw ClientError.geodatabase("\(document.path) exists already")
                }
                return .prepared(nil)
            }
            return .prepared(try SyncPreparer.prepare(try openGeodatabase(), document: document))
        case .uploadEdits(let file):
            return .editsUploaded(id: try await connection.upload(file: URL(fileURLWithPath: file), contentType: "application/json"))
        case .submit(let operation, let fields, let inlineEdits):
            var form = fields.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
            if let inlineEdits { form.append(("edits", try String(contentsOfFile: inlineEdits, encoding: .utf8))) }
            let answer = try await connection.postForm(connection.url(operation), form)
            if document.kind == .exportTiles {
                guard let job = answer["jobId"]?.stringValue else { throw ClientError.invalidResponse("exportTiles answered no jobId") }
                // A vector tile service's jobs sit under the service, a map service's under the operation.
                let status = connection.url(connection.serviceURL.path.hasSuffix("/VectorTileServer") ? "jobs/\(job)" : "exportTiles/jobs/\(job)")
                return .submitted(statusURL: status.absoluteString, note: "tile export \(job) submitted")
            }
            guard let submission = ReplicaJobSubmission(json: answer) else { throw ClientError.invalidResponse("\(operation) answered no statusUrl") }
            let note =
                document.kind == .generate ? "replica \(submission.replicaId) requested" : "sync submitted (\(document.editsUploaded) edits)"
            return .submitted(statusURL: submission.statusURL, note: note)
        case .poll(let statusURL, let wait):
            if wait > .zero { try await Task.sleep(for: wait) }
            guard let url = URL(string: statusURL) else { throw ClientError.invalidResponse("bad statusUrl \(statusURL)") }
            let answer = try await connection.getJSON(url)
            if document.kind == .exportTiles { return .polled(try await geoprocessingProgress(answer, jobURL: url)) }
            guard let status = ReplicaJobStatus(json: answer) else {
                throw ClientError.invalidResponse("not a job status: \(answer.jsonText.prefix(200))")
            }
            return .polled(.init(status))
        case .download(let resultURL, let offset, let length):
            guard let url = URL(string: resultURL), let partial = document.partialPath else { throw ClientError.invalidResponse("no result URL") }
            if !FileManager.default.fileExists(atPath: partial) { _ = FileManager.default.createFile(atPath: partial, contents: nil) }
            // What is on disk is what was received (a crash may have cut the bookkeeping short).
            let onDisk = ((try? FileManager.default.attributesOfItem(atPath: partial))?[.size] as? NSNumber)?.intValue ?? 0
            if onDisk < offset { return .partialFileHolds(bytes: onDisk, path: partial) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            defer { try? handle.close() }
            if onDisk > offset { try handle.truncate(atOffset: UInt64(offset)) }
            let (data, total) = try await connection.download(url, offset: offset, length: length)
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
            return .received(bytes: data.count, total: total)
        case .resendAfterRestore:
            return .resendPrepared(note: try await RestoredServerRecovery.run(try openGeodatabase(), connection: connection))
        case .finish:
            guard let partial = document.partialPath else { throw ClientError.invalidResponse("nothing downloaded") }
            switch document.kind {
            case .generate: return try finishGenerate(partial, document)
            case .sync: return try finishSync(partial, document)
            case .exportTiles: return try finishExport(partial, document)
            }
        case .interrupt, .pause, .succeed, .fail, .none:
            return .interrupted
        }
    }

    private func finishGenerate(_ partial: String, _ document: JobDocument) throws -> JobStateMachine.Event {
        // A file from the network is checked before it becomes the device's geodatabase.
        do { try ReplicaFile.checkUntrusted(partial) } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw ClientError.invalidResponse("the replica file: \(String(describing: error))")
        }
        try FileManager.default.moveItem(atPath: partial, toPath: document.path)
        do {
            try Geodatabase.open(document.path).close()
        } catch {
            try? FileManager.default.removeItem(atPath: document.path)
            throw error
        }
        return .finished(nil)
    }

    /// A geoprocessing job's state; once it has succeeded, the package's URL: its output
    /// folder (`results/out_service_url`) lists the one file.
    private func geoprocessingProgress(_ answer: JSONValue, jobURL: URL) async throws -> JobStateMachine.ServerProgress {
        guard let status = GeoprocessingJobStatus(json: answer) else {
            throw ClientError.invalidResponse("not a job status: \(answer.jsonText.prefix(200))")
        }
        switch status.status {
        case .succeeded:
            let folder = try await connection.getJSON(jobURL.appendingPathComponent("results/out_service_url"))["value"]?.stringValue
            guard let folder, let folderURL = URL(string: folder) else { throw ClientError.invalidResponse("the export names no output folder") }
            let listing = try await connection.getJSON(folderURL)
            guard let file = listing["files"]?[0]?["url"]?.stringValue else { throw ClientError.invalidResponse("the export's folder lists no file") }
            return .completed(resultURL: file)
        case .failed, .timedOut, .cancelled:
            let errors = status.messages.filter { $0.kind == .error }.map(\.description)
            return .failed(
                .server(code: 500, message: errors.first ?? "the tile export \(status.status.rawValue)", details: Array(errors.dropFirst())))
        default:
            return .running
        }
    }

    /// A package is a zip (`.tpkx`) or an SQLite database (MBTiles): anything else is refused.
    private func finishExport(_ partial: String, _ document: JobDocument) throws -> JobStateMachine.Event {
        let head = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: partial)).read(upToCount: 16)) ?? Data()
        guard head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: Data("SQLite format 3\u{0}".utf8)) else {
            try? FileManager.default.removeItem(atPath: partial)
            throw ClientError.invalidResponse("the tile package is neither a zip nor an SQLite database")
        }
        try FileManager.default.moveItem(atPath: partial, toPath: document.path)
        return .finished(nil)
    }

    private func finishSync(_ partial: String, _ document: JobDocument) throws -> JobStateMachine.Event {
        let applied = try openGeodatabase().applyDelta(
            at: partial, throughChangeId: document.throughChangeId, uploadedLayers: Set(document.uploadedLayers))
        for path in [partial, document.editsFile].compactMap({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        return .finished(
            SyncResult(
                editsUploaded: document.editsUploaded, changesApplied: applied.changesApplied, changesDeferred: applied.changesDeferred,
                objectIdsAssigned: applied.objectIdsAssigned,
                failedEdits: applied.failedEdits.map { "\($0.layerId):\($0.result.globalId ?? "?"): \($0.result.error?.description ?? "")" },
                schemaChanges: applied.schemaChanges.isEmpty ? nil : applied.schemaChanges))
    }

    func openGeodatabase() throws -> Geodatabase {
        if let open = state.withLock({ $0.geodatabase }) { return open }
        let opened = try Geodatabase.open(document.path)
        state.withLock { $0.geodatabase = opened }
        return opened
    }

    /// A sync holds the geodatabase (no transaction may start) from its first step to its end.
    private func holdSync() throws {
        guard !state.withLock({ $0.holdsSync }) else { return }
        try openGeodatabase().beginSync()
        state.withLock { $0.holdsSync = true }
    }

    func releaseSync() {
        let (held, geodatabase) = state.withLock { state in
            defer { state.holdsSync = false }
            return (state.holdsSync, state.geodatabase)
        }
        if held { geodatabase?.endSync() }
    }
}

/// Fixes what a sync sends: the generations and directions, and the local edits (netted,
/// written to a file next to the geodatabase so a retry sends the very same bytes).
enum SyncPreparer {
    static func prepare(_ geodatabase: Geodatabase, document: JobDocument) throws -> JobStateMachine.SyncPreparation {
        let parameters = document.sync ?? SyncGeodatabaseParameters()
        let info = try geodatabase.info()
        guard !info.replicaId.isEmpty else { throw ClientError.geodatabase("the file is not a registered replica (syncModel none)") }
        var request = SynchronizeReplicaRequest(replicaId: info.replicaId)
        request.isAsync = true
        request.dataFormat = .sqlite
        request.returnIdsForAdds = true
        request.transportType = .url
        request.rollbackOnFailure = parameters.rollbackOnFailure
        request.returnAttachmentsDataByUrl = false
        func direction(_ layerId: Int) -> SyncDirection {
            parameters.layerOptions.first { $0.layerId == layerId }?.syncDirection ?? parameters.syncDirection
        }
        var uploading: Set<Int> = []
        switch info.syncModel {
        case .perLayer:
            let chosen = parameters.layerOptions.isEmpty ? info.layers.map(\.layerId) : parameters.layerOptions.map(\.layerId)
            var layers: [SyncLayerRequest] = []
            for layer in info.layers where chosen.contains(layer.layerId) {
                let d = direction(layer.layerId)
                if d.uploads { uploading.insert(layer.layerId) }
                layers.append(SyncLayerRequest(layerId: layer.layerId, serverGen: layer.serverGen, syncDirection: d))
            }
            request.syncLayers = .layers(layers)
        case .perReplica:
            request.replicaServerGen = info.replicaServerGen
            request.syncDirection = parameters.syncDirection
            if parameters.syncDirection.uploads { uploading = Set(info.layers.map(\.layerId)) }
        case .none:
            throw ClientError.geodatabase("the file is not a registered replica (syncModel none)")
        }
        var preparation = JobStateMachine.SyncPreparation(
            fields: request.formFields.map { [$0.0, $0.1] }, editsFile: nil, editsSize: 0, throughChangeId: 0, uploadedLayers: [], editsUploaded: 0)
        let (edits, through) = try geodatabase.pendingUpload()
        let sent = edits.filter { uploading.contains($0.layerId) }
        guard !sent.isEmpty else { return preparation }
        let file = document.path + ".\(document.id).edits.json"
        let bytes = Data(JSONValue.array(sent.map(\.syncJSON)).jsonText.utf8)
        try bytes.write(to: URL(fileURLWithPath: file))
        preparation.editsFile = file
        preparation.editsSize = bytes.count
        preparation.throughChangeId = through
        preparation.uploadedLayers = sent.map(\.layerId)
        preparation.editsUploaded = sent.reduce(0) {
            $0 + $1.count + ($1.attachments.map { $0.adds.count + $0.updates.count + $0.deletes.count } ?? 0)
        }
        return preparation
    }
}

extension JobEngine {
    /// Closes the geodatabase the job holds (a child job's, owned by its parent's files).
    func closeGeodatabase() {
        releaseSync()
        state.withLock { state in
            defer { state.geodatabase = nil }
            return state.geodatabase
        }?.close()
    }
}
