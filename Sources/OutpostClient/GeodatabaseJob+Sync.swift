import Foundation
import OutpostGeoPackage
import OutpostWire

/// The sync job's steps: prepare (fix what is sent), submit, poll, download, apply.
extension GeodatabaseJob {
    func openGeodatabase() throws -> Geodatabase {
        if let geodatabase { return geodatabase }
        let opened = try Geodatabase.open(document.path)
        geodatabase = opened
        return opened
    }

    func releaseSync() {
        if holdsSync { geodatabase?.endSync() }
        holdsSync = false
    }

    func syncStep() async throws {
        let geodatabase = try openGeodatabase()
        if !holdsSync {
            try geodatabase.beginSync()
            holdsSync = true
        }
        switch document.step {
        case .prepare:
            try prepareSync(geodatabase)
        case .submit:
            var fields = (document.syncFields ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
            if let editsFile = document.editsFile {
                let size = ((try? FileManager.default.attributesOfItem(atPath: editsFile))?[.size] as? NSNumber)?.intValue ?? 0
                if size > inlineEditsLimit {
                    if document.editsUploadID == nil {
                        document.editsUploadID = try await connection.upload(file: URL(fileURLWithPath: editsFile), contentType: "application/json")
                    }
                    fields += [("editsUploadID", document.editsUploadID!), ("editsUploadFormat", "json")]
                } else {
                    fields.append(("edits", try String(contentsOfFile: editsFile, encoding: .utf8)))
                }
            }
            _ = try await submit("synchronizeReplica", fields, progress: 0.15)
            note("sync submitted (\(document.editsUploaded) edits)")
        case .poll:
            try await poll(from: 0.15, to: 0.4)
        case .download:
            try await download(from: 0.4, to: 0.85)
        case .finish:
            guard let partial = document.partialPath else { throw ClientError.invalidResponse("nothing downloaded") }
            let applied = try geodatabase.applyDelta(
                at: partial, throughChangeId: document.throughChangeId, uploadedLayers: Set(document.uploadedLayers))
            document.syncResult = SyncResult(
                editsUploaded: document.editsUploaded, changesApplied: applied.changesApplied, changesDeferred: applied.changesDeferred,
                objectIdsAssigned: applied.objectIdsAssigned,
                failedEdits: applied.failedEdits.map { "\($0.layerId):\($0.result.globalId ?? "?"): \($0.result.error?.description ?? "")" })
            note("applied \(applied.changesApplied) server changes")
            removeTemporaryFiles()
            document.partialPath = nil
            document.editsFile = nil
            document.step = .done
        case .done:
            break
        }
    }

    /// Fixes what this sync sends: the generations and directions, and the local edits (netted,
    /// written to a file next to the geodatabase so a retry sends the very same bytes).
    func prepareSync(_ geodatabase: Geodatabase) throws {
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
        let (edits, through) = try geodatabase.pendingUpload()
        let sent = edits.filter { uploading.contains($0.layerId) }
        if !sent.isEmpty {
            let file = document.path + ".\(id).edits.json"
            try Data(JSONValue.array(sent.map(\.syncJSON)).jsonText.utf8).write(to: URL(fileURLWithPath: file))
            document.editsFile = file
            document.throughChangeId = through
            document.uploadedLayers = sent.map(\.layerId)
            document.editsUploaded = sent.reduce(0) {
                $0 + $1.count + ($1.attachments.map { $0.adds.count + $0.updates.count + $0.deletes.count } ?? 0)
            }
        }
        document.syncFields = request.formFields.map { [$0.0, $0.1] }
        document.step = .submit
        document.progress = 0.05
    }
}
