import Foundation
import Logging
import OutpostStorage
import OutpostSync
import OutpostWire

/// A sync carried out and its answer delivered, in one call: the upload through the upload
/// engine, the answer read from one `ChangeFeedRead` by the download engine straight into its
/// destination (embedded JSON; a published result file — a GeoPackage delta or a JSON
/// document — for a request answered by URL, a job, a package refresh), then the generations
/// recorded. From the route, a `synchronizeReplica` reaches the storage seam in four calls:
/// the controller, `deliver`, the engine, the backend (docs/architecture.md, "Synchronize").
extension SynchronizeReplica {
    /// Where the answer goes.
    public enum Destination: Sendable {
        /// The answer itself, in `Delivered.bytes` (embedded JSON).
        case memory
        /// A published result file. `keepEmpty`: publish even a `NoEdits` answer (a job always
        /// has a result).
        case file(ResultFiles, keepEmpty: Bool = false)
    }

    /// A sync carried out, its answer delivered.
    public struct Delivered: Sendable {
        public var outcome: Outcome
        /// The published result file; nil when the answer was not a file or there was nothing
        /// to return (`NoEdits`).
        public var fileName: String?
        /// The embedded answer (`Destination.memory`).
        public var bytes: [UInt8] = []

        public var answer: SyncAnswerSummary { outcome.answer }
        /// Edits of the upload (applied, failed or replayed).
        public var edits: Int { outcome.upload?.results.reduce(0) { $0 + $1.all.count } ?? 0 }
        /// Unseen server changes the upload overwrote (the conflict log).
        public var conflicts: Int { outcome.upload?.conflictsRecorded ?? 0 }
    }

    /// Runs the sync and delivers its answer to `destination`, timing and logging its two
    /// halves; `exporting` hears that the upload is done and the answer is being written.
    public func deliver(to destination: Destination, serviceURL: String, logger: Logger, exporting: () -> Void = {}) throws -> Delivered {
        let clock = ContinuousClock()
        let started = clock.now
        let upload = hasEdits ? try backend.sync.applySyncUpload(plan, fingerprint: fingerprint, editor: editor) : nil
        try Self.checkRollback(upload, of: plan)
        if let upload, upload.replayed {
            logger.info("replica \(plan.replica.id): retried upload answered from its receipt, nothing applied again")
        } else if let upload, upload.conflictsRecorded > 0 {
            logger.info("replica \(plan.replica.id): upload overwrote \(upload.conflictsRecorded) unseen server changes (conflict log)")
        }
        let uploaded = clock.now
        exporting()
        var bytes: [UInt8] = []
        var fileName: String?
        let summary: SyncAnswerSummary
        switch destination {
        case .memory:
            let writer = ReplicaJSONWriter(write: { bytes += $0 }, attachmentURL: attachmentURLs(serviceURL), returnIdsForAdds: plan.returnIdsForAdds)
            summary = try backend.sync.readChangeFeed(plan.replica) { try SyncDownload.read(plan, upload: upload, from: $0, into: writer) }
        case .file(let files, let keepEmpty):
            let name = ResultFiles.newName(extension: plan.dataFormat.fileExtension)
            do {
                summary = try answer(upload, to: try files.temporaryPath(for: name), serviceURL: serviceURL)
                if summary.responseType != .noEdits || keepEmpty {
                    try backend.resultFiles.recordResultFile(name, owner: plan.replica.owner, service: plan.replica.serviceName)
                    try files.publish(name)
                    fileName = name
                } else {
                    files.discard(name)
                }
            } catch {
                files.discard(name)
                throw error
            }
        }
        let delivered = Delivered(outcome: Outcome(upload: upload, answer: summary), fileName: fileName, bytes: bytes)
        try backend.sync.recordSync(plan, generations: summary.generations, close: plan.closeReplica)
        logger.info(
            "replica \(plan.replica.id): \(delivered.edits) edits \(upload?.replayed == true ? "replayed" : "applied") in \(uploaded - started), \(summary.changes) changes and \(summary.replacementRows) rows answered in \(clock.now - uploaded) (\(summary.responseType.rawValue))"
        )
        return delivered
    }

    /// Writes the answer into the file at `path`: a GeoPackage delta, or a JSON document.
    private func answer(_ upload: SyncUploadOutcome?, to path: String, serviceURL: String) throws -> SyncAnswerSummary {
        if plan.dataFormat == .sqlite {
            // The resources as served before the upload, as the client last saw them.
            let resources = try ServiceResources(of: try backend.service(named: plan.replica.serviceName), for: plan.replica, in: backend)
            return try backend.sync.readChangeFeed(plan.replica) { feed in
                try SyncDownload.writeDelta(
                    plan, upload: upload, from: feed, to: path, serviceURL: serviceURL, serviceJSON: resources.service,
                    layerJSON: resources.layers)
            }
        }
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw ArcGISError.internalError("cannot write \(path)") }
        defer { try? handle.close() }
        let writer = ReplicaJSONWriter(
            write: { try handle.write(contentsOf: $0) }, attachmentURL: attachmentURLs(serviceURL), returnIdsForAdds: plan.returnIdsForAdds)
        let summary = try backend.sync.readChangeFeed(plan.replica) { try SyncDownload.read(plan, upload: upload, from: $0, into: writer) }
        try handle.synchronize()
        return summary
    }

    /// Runs the sync as a job of `runner` for `caller` (whose share of the queue it takes),
    /// its answer a result file even when empty; returns the job as submitted.
    public func submit(_ files: ResultFiles, serviceURL: String, runner: JobRunner, caller: String, logger: Logger) async throws -> JobRecord {
        let replica = plan.replica
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: replica.serviceName, kind: .synchronizeReplica, replicaId: replica.id,
            replicaName: replica.name, transportType: .url, responseType: .edits, submittedAt: backend.clock.milliseconds(),
            owner: replica.owner)
        try await runner.submit(job, for: caller, in: backend) { steps in
            steps.phase(.importChanges)
            let delivered = try deliver(
                to: .file(files, keepEmpty: true), serviceURL: serviceURL, logger: logger, exporting: { steps.phase(.exportChanges) })
            return .succeeded(resultFile: delivered.fileName ?? "")
        }
        return job
    }

    /// Attachment links of a JSON answer asked with `returnAttachmentsDataByUrl` (the default).
    private func attachmentURLs(_ serviceURL: String) -> ((Int, Int64, Int64) -> String)? {
        guard plan.returnAttachmentsDataByUrl else { return nil }
        return { layer, objectId, attachmentId in "\(serviceURL)/\(layer)/\(objectId)/attachments/\(attachmentId)" }
    }
}
