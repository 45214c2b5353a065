import Crypto
import Foundation
import Hummingbird
import Logging
import OutpostGeoPackage
import OutpostService
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostWire

/// `synchronizeReplica` (§5): apply the client's edits, then answer with the server's changes.
extension ReplicasController {
    func synchronize(_ p: RequestParameters, request: Request, context: OutpostRequestContext) async throws -> Response {
        sweepResultFiles()
        let service = try store.service(named: try context.serviceName())
        let serviceName = service.definition.name
        let parsed = try SynchronizeReplicaRequest.parse(p)
        guard let replica = try store.replicas.replica(service: serviceName, id: parsed.replicaId) else {
            throw Self.replicaNotFound(parsed.replicaId)
        }
        // Only its owner (or an admin) syncs a replica.
        guard context.mayManage(replicaOwner: replica.owner) else { throw Authenticator.forbidden }
        // Reading an uploaded file is blocking work: off the cooperative pool.
        let upload = parsed.upload
        let (edits, editBytes) = try await JobRunner.blocking { [self] in
            try loadEdits(upload, service: serviceName, replicaId: replica.id, context: context)
        }
        try UploadsController.checkOwned(uploadsOf: edits ?? [], service: serviceName, store: store, context: context)
        let plan = try SyncPlanner.plan(
            parsed, replica: replica, edits: edits, currentGeneration: try store.edits.currentGeneration(),
            limits: syncLimits,
            serviceHasAttachments: { id in
                service.layers.first { $0.definition.id == id }?.definition.hasAttachments ?? false
            })
        let base = serviceURL(request, service: serviceName)
        let (serviceJSON, layerJSON) = plan.dataFormat == .sqlite ? try resources(service, of: replica) : (.null, [:])
        let work = SyncWork(
            store: store, files: files, plan: plan, fingerprint: Self.fingerprint(plan, editBytes: editBytes),
            serviceURL: base, serviceJSON: serviceJSON, layerJSON: layerJSON, logger: logger,
            requestRecord: plan.isAsync ? nil : context.record, editor: context.editContext.editor)

        if plan.isAsync {
            let jobId = "j" + GlobalID.make().filter(\.isHexDigit).lowercased()
            let job = JobRecord(
                id: jobId, serviceName: serviceName, kind: .synchronizeReplica, replicaId: replica.id,
                replicaName: replica.name, transportType: .url, responseType: .edits, submittedAt: store.clock.milliseconds(),
                owner: replica.owner)
            let ticket = try runner.admit(caller: context.jobCaller)
            do { try store.jobs.saveJob(job) } catch {
                runner.cancel(ticket)
                throw error
            }
            let logger = self.logger
            runner.submit(ticket) { await Self.run(job: job, sync: work, logger: logger) }
            let submission = ReplicaJobSubmission(statusURL: "\(base)/jobs/\(jobId)", replicaId: replica.id, replicaName: replica.name)
            return RESTResponse.json(submission.json, parameters: p)
        }

        if plan.deliversByURL {
            let done = try await JobRunner.blocking { try work.toFile() }
            let answer = ReplicaFileAnswer(
                responseType: done.summary.responseType, replicaName: replica.name, replicaId: replica.id,
                generations: replica.generations(answered: done.summary.generations),
                url: done.fileName.map { "\(resultBase(request, service: serviceName))/\($0)" })
            return RESTResponse.json(answer.json, parameters: p)
        }
        let bytes = try await JobRunner.blocking { try work.toMemory() }
        return RESTResponse.json(bytes, parameters: p)
    }

    /// The edits of the request: inline, or an uploaded delta (`editsUploadID`: the JSON
    /// `edits` array, or a GeoPackage upload delta or replica file whose change log is
    /// netted), with the bytes that identify them for retries.
    private func loadEdits(
        _ source: SyncUploadSource?, service: String, replicaId: String, context: OutpostRequestContext
    ) throws -> ([LayerEdits]?, [UInt8]) {
        switch source {
        case nil:
            return (nil, [])
        case .inline(let edits, let text):
            return (edits, Array(text.utf8))
        case .uploadedFile(let itemID, let format):
            guard isValidUploadID(itemID), let item = try? store.uploads.upload(service: service, itemID: itemID), item.committed,
                context.mayManage(replicaOwner: item.owner)
            else {
                throw ArcGISError.invalidParameter("editsUploadID", "no committed upload '\(itemID)' on service \(service)")
            }
            guard let path = try? store.uploads.uploadDataFile(itemID), let data = FileManager.default.contents(atPath: path) else {
                throw ArcGISError.invalidParameter("editsUploadID", "upload '\(itemID)' has no data")
            }
            switch format {
            case .json:
                guard let json = try? JSONParser.parse(String(decoding: data, as: UTF8.self)) else {
                    throw ArcGISError.invalidParameter("editsUploadID", "upload '\(itemID)' is not JSON")
                }
                return (try SynchronizeReplicaRequest.parseEdits(json, parameter: "editsUploadID"), [UInt8](data))
            case .sqlite:
                let limits = UntrustedFileLimits(
                    maximumFileBytes: Int.max, maximumValueBytes: syncLimits.maxAttachmentBytes + 1024,
                    maximumChanges: syncLimits.maxEdits)
                return (try Self.deltaEdits(path: path, itemID: itemID, replicaId: replicaId, limits: limits), [UInt8](data))
            }
        }
    }

    /// The edits of an uploaded GeoPackage: an upload delta, or a replica file (its change
    /// log netted), of this replica.
    static func deltaEdits(path: String, itemID: String, replicaId: String, limits: UntrustedFileLimits) throws -> [LayerEdits] {
        let changes: ReplicaChanges
        do {
            changes = try ReplicaChanges.read(path, limits: limits)
        } catch {
            throw ArcGISError.invalidParameter("editsUploadID", "upload '\(itemID)' (editsUploadFormat=sqlite) is \(error.description)")
        }
        if let delta = changes.delta, delta.kind != .upload {
            throw ArcGISError.invalidParameter("editsUploadID", "upload '\(itemID)' is a \(delta.kind.rawValue) delta, not an upload delta")
        }
        guard GlobalID.normalize(changes.replicaId) == replicaId else {
            throw ArcGISError.invalidParameter(
                "editsUploadID",
                "upload '\(itemID)' holds the changes of replica '\(changes.replicaId)', not of \(replicaId)")
        }
        return changes.layers.map(\.edits).filter { $0.count > 0 || $0.attachments != nil }
    }

    /// What identifies an upload for retries: the replica, each layer's generation and
    /// direction, and a digest of the edit bytes as sent.
    static func fingerprint(_ plan: SyncPlan, editBytes: [UInt8]) -> [UInt8] {
        var text = plan.replica.id + "\n"
        for layer in plan.layers { text += "\(layer.layerId):\(layer.since):\(layer.direction.rawValue)\n" }
        return Array(text.utf8) + [0] + Array(SHA256.hash(data: editBytes))
    }

    /// Runs an asynchronous sync and records each step of it.
    static func run(job: JobRecord, sync: SyncWork<Backend>, logger: Logger) async {
        await runJob(job, store: sync.store, logger: logger) { phase in
            phase(.importChanges)
            return try sync.toFile(keepEmpty: true, exporting: { phase(.exportChanges) }).fileName ?? ""
        }
    }
}

/// One sync: upload, answer, record.
struct SyncWork<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    let plan: SyncPlan
    let fingerprint: [UInt8]
    let serviceURL: String
    /// The resources as served, kept in a GeoPackage delta.
    let serviceJSON: JSONValue
    let layerJSON: [Int: JSONValue]
    let logger: Logger
    /// The request's log line, when the sync runs inside the request (not as a job).
    var requestRecord: RequestRecord?
    /// The syncing user (editor tracking), taken from the request: a job runs after it.
    var editor: String?

    struct Done {
        var summary: SyncAnswerSummary
        /// The published result file; nil when there was nothing to return (`NoEdits`).
        var fileName: String?
    }

    /// The sync use case this work carries out.
    private var session: SynchronizeReplica<Backend> {
        SynchronizeReplica(backend: store, plan: plan, fingerprint: fingerprint, editor: editor)
    }

    /// Runs the use case, timing and logging its two halves; `writeAnswer` writes the answer.
    private func run(exporting: () -> Void = {}, writeAnswer: (SyncUploadOutcome?) throws -> SyncAnswerSummary) throws -> SyncAnswerSummary {
        let clock = ContinuousClock()
        let started = clock.now
        var uploaded = started
        let outcome = try session.run { upload in
            uploaded = clock.now
            if let upload {
                if upload.replayed {
                    logger.info("replica \(plan.replica.id): retried upload answered from its receipt, nothing applied again")
                } else if upload.conflictsRecorded > 0 {
                    logger.info("replica \(plan.replica.id): upload overwrote \(upload.conflictsRecorded) unseen server changes (conflict log)")
                }
            }
            exporting()
            return try writeAnswer(upload)
        }
        let summary = outcome.answer
        let upload = outcome.upload
        let edits = upload?.results.reduce(0) { $0 + $1.all.count } ?? 0
        requestRecord?.note("edits", edits)
        requestRecord?.note("conflicts", upload?.conflictsRecorded ?? 0)
        requestRecord?.note("changes", summary.changes)
        logger.info(
            "replica \(plan.replica.id): \(edits) edits \(upload?.replayed == true ? "replayed" : "applied") in \(uploaded - started), \(summary.changes) changes and \(summary.replacementRows) rows answered in \(clock.now - uploaded) (\(summary.responseType.rawValue))"
        )
        return summary
    }

    private var attachmentURLs: ((Int, Int64, Int64) -> String)? {
        guard plan.returnAttachmentsDataByUrl else { return nil }
        let base = serviceURL
        return { layer, objectId, attachmentId in "\(base)/\(layer)/\(objectId)/attachments/\(attachmentId)" }
    }

    /// The answer as a published result file. `keepEmpty`: publish even a `NoEdits` answer
    /// (a job always has a result).
    func toFile(keepEmpty: Bool = false, exporting: () -> Void = {}) throws -> Done {
        let name = ResultFiles.newName(extension: plan.dataFormat.fileExtension)
        let temporary = try files.temporaryPath(for: name)
        do {
            let summary = try run(exporting: exporting) { upload in
                if plan.dataFormat == .sqlite {
                    return try store.sync.writeSyncDelta(
                        plan, upload: upload, to: temporary, serviceURL: serviceURL,
                        serviceJSON: serviceJSON, layerJSON: layerJSON)
                }
                _ = FileManager.default.createFile(atPath: temporary, contents: nil)
                guard let handle = FileHandle(forWritingAtPath: temporary) else { throw ArcGISError.internalError("cannot write \(temporary)") }
                defer { try? handle.close() }
                let summary = try store.sync.writeSyncAnswer(
                    plan, upload: upload, write: { try handle.write(contentsOf: $0) },
                    attachmentURL: attachmentURLs)
                try handle.synchronize()
                return summary
            }
            if summary.responseType == .noEdits && !keepEmpty {
                files.discard(name)
                return Done(summary: summary, fileName: nil)
            }
            try store.resultFiles.recordResultFile(name, owner: plan.replica.owner)
            try files.publish(name)
            return Done(summary: summary, fileName: name)
        } catch {
            files.discard(name)
            throw error
        }
    }

    /// The embedded JSON answer.
    func toMemory() throws -> [UInt8] {
        var bytes: [UInt8] = []
        _ = try run { upload in try store.sync.writeSyncAnswer(plan, upload: upload, write: { bytes += $0 }, attachmentURL: attachmentURLs) }
        return bytes
    }
}

extension ReplicasController {
    /// `replicas/<id>/conflicts`: every server value the replica's syncs overwrote unseen.
    func conflicts(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let serviceName = try context.serviceName()
        let id = FormURLEncoding.percentDecode(context.parameters.get("replica") ?? "")
        guard let canonical = GlobalID.normalize(id) else { throw Self.replicaNotFound(id) }
        let replica = try store.replicas.replica(service: serviceName, id: canonical)
        // The log outlives the replica: once it is unregistered, only admins read it.
        guard context.mayManage(replicaOwner: replica?.owner ?? "") else { throw Self.replicaNotFound(id) }
        let conflicts = try store.conflicts.conflicts(service: serviceName, replicaId: canonical)
        if conflicts.isEmpty, replica == nil {
            throw Self.replicaNotFound(id)
        }
        return RESTResponse.json(["replicaID": .string(canonical), "conflicts": .array(conflicts.map(\.json))], parameters: p)
    }
}
