import Foundation
import Logging
import OutpostStorage
import OutpostSync
import OutpostWire

/// Where a sync's answer goes: a published result file (by URL, a job, a package refresh),
/// the answer itself (embedded JSON), or a job of the runner.
extension SynchronizeReplica {
    /// A sync carried out, its answer delivered.
    public struct Delivered: Sendable {
        public var outcome: Outcome
        /// The published result file; nil when the answer was not a file or there was nothing
        /// to return (`NoEdits`).
        public var fileName: String?

        public var answer: SyncAnswerSummary { outcome.answer }
        /// Edits of the upload (applied, failed or replayed).
        public var edits: Int { outcome.upload?.results.reduce(0) { $0 + $1.all.count } ?? 0 }
        /// Unseen server changes the upload overwrote (the conflict log).
        public var conflicts: Int { outcome.upload?.conflictsRecorded ?? 0 }
    }

    /// The answer as a published result file (a GeoPackage delta, or a JSON document).
    /// `keepEmpty`: publish even a `NoEdits` answer (a job always has a result); `exporting`
    /// hears that the upload is done and the answer is being written.
    public func answerToFile(
        _ files: ResultFiles, serviceURL: String, keepEmpty: Bool = false, exporting: () -> Void = {}, logger: Logger
    ) throws -> Delivered {
        let name = ResultFiles.newName(extension: plan.dataFormat.fileExtension)
        do {
            let temporary = try files.temporaryPath(for: name)
            // As served before the upload, as the client last saw them.
            let resources =
                plan.dataFormat == .sqlite
                ? try ServiceResources(of: try backend.service(named: plan.replica.serviceName), for: plan.replica, in: backend) : .none
            let outcome = try run(logger: logger, exporting: exporting) { upload in
                if plan.dataFormat == .sqlite {
                    return try backend.sync.writeSyncDelta(
                        plan, upload: upload, to: temporary, serviceURL: serviceURL, serviceJSON: resources.service,
                        layerJSON: resources.layers)
                }
                _ = FileManager.default.createFile(atPath: temporary, contents: nil)
                guard let handle = FileHandle(forWritingAtPath: temporary) else { throw ArcGISError.internalError("cannot write \(temporary)") }
                defer { try? handle.close() }
                let summary = try backend.sync.writeSyncAnswer(
                    plan, upload: upload, write: { try handle.write(contentsOf: $0) }, attachmentURL: attachmentURLs(serviceURL))
                try handle.synchronize()
                return summary
            }
            if outcome.answer.responseType == .noEdits && !keepEmpty {
                files.discard(name)
                return Delivered(outcome: outcome, fileName: nil)
            }
            try backend.resultFiles.recordResultFile(name, owner: plan.replica.owner)
            try files.publish(name)
            return Delivered(outcome: outcome, fileName: name)
        } catch {
            files.discard(name)
            throw error
        }
    }

    /// The embedded JSON answer.
    public func answerInMemory(serviceURL: String, logger: Logger) throws -> (bytes: [UInt8], delivered: Delivered) {
        var bytes: [UInt8] = []
        let outcome = try run(logger: logger) { upload in
            try backend.sync.writeSyncAnswer(plan, upload: upload, write: { bytes += $0 }, attachmentURL: attachmentURLs(serviceURL))
        }
        return (bytes, Delivered(outcome: outcome, fileName: nil))
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
            let delivered = try answerToFile(
                files, serviceURL: serviceURL, keepEmpty: true, exporting: { steps.phase(.exportChanges) }, logger: logger)
            return .succeeded(resultFile: delivered.fileName ?? "")
        }
        return job
    }

    /// Runs the use case, timing and logging its two halves; `writeAnswer` writes the answer.
    private func run(
        logger: Logger, exporting: () -> Void = {}, writeAnswer: (SyncUploadOutcome?) throws -> SyncAnswerSummary
    ) throws -> Outcome {
        let clock = ContinuousClock()
        let started = clock.now
        var uploaded = started
        let outcome = try run { upload in
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
        let edits = Delivered(outcome: outcome).edits
        logger.info(
            "replica \(plan.replica.id): \(edits) edits \(outcome.upload?.replayed == true ? "replayed" : "applied") in \(uploaded - started), \(summary.changes) changes and \(summary.replacementRows) rows answered in \(clock.now - uploaded) (\(summary.responseType.rawValue))"
        )
        return outcome
    }

    /// Attachment links of a JSON answer asked with `returnAttachmentsDataByUrl` (the default).
    private func attachmentURLs(_ serviceURL: String) -> ((Int, Int64, Int64) -> String)? {
        guard plan.returnAttachmentsDataByUrl else { return nil }
        return { layer, objectId, attachmentId in "\(serviceURL)/\(layer)/\(objectId)/attachments/\(attachmentId)" }
    }
}
