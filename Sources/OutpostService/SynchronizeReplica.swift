import OutpostStorage
import OutpostSync
import OutpostWire

/// The sync use case, whatever carries it (a request, a job, a command): apply the upload
/// (with `rollbackOnFailure`, a failed edit fails the whole sync with nothing applied, §5.7),
/// have the answer written, then record the generations handed out (and unregister when
/// `closeReplica`). The answer's format and where it goes are the caller's.
public struct SynchronizeReplica<Backend: OutpostBackend>: Sendable {
    public let backend: Backend
    public let plan: SyncPlan
    /// What identifies the upload for retries (`fingerprint(_:editBytes:)`).
    public let fingerprint: [UInt8]
    /// The syncing user, written to editor-tracking fields; nil when anonymous (NULL).
    public let editor: String?

    public init(backend: Backend, plan: SyncPlan, fingerprint: [UInt8], editor: String? = nil) {
        self.backend = backend
        self.plan = plan
        self.fingerprint = fingerprint
        self.editor = editor
    }

    /// What a sync did.
    public struct Outcome: Sendable {
        public var upload: SyncUploadOutcome?
        public var answer: SyncAnswerSummary
    }

    /// Runs the sync: `writeAnswer` gets the upload's outcome and writes the answer (a caller
    /// with its own writer; the server delivers through `deliver(to:)`).
    public func run(writeAnswer: (SyncUploadOutcome?) throws -> SyncAnswerSummary) throws -> Outcome {
        let upload = hasEdits ? try backend.sync.applySyncUpload(plan, fingerprint: fingerprint, editor: editor) : nil
        try Self.checkRollback(upload, of: plan)
        let answer = try writeAnswer(upload)
        try backend.sync.recordSync(plan, generations: answer.generations, close: plan.closeReplica)
        return Outcome(upload: upload, answer: answer)
    }

    /// Whether the plan carries edits to upload.
    var hasEdits: Bool { plan.uploadingLayers.contains(where: { $0.edits != nil }) }

    /// With `rollbackOnFailure`, a failed edit fails the sync (nothing was applied).
    static func checkRollback(_ upload: SyncUploadOutcome?, of plan: SyncPlan) throws {
        guard plan.rollbackOnFailure, let upload, upload.results.contains(where: { $0.all.contains { !$0.success } }) else { return }
        throw ArcGISError(
            kind: .invalidData, message: "Unable to synchronize replica: the edits were rolled back.",
            details: Self.failures(in: upload.results))
    }

    /// Each failed edit, named by layer, kind and GlobalID (edits rolled back only because
    /// another failed are not listed).
    static func failures(in results: [LayerEditResults]) -> [String] {
        var details: [String] = []
        for layer in results {
            for (kind, results) in [("add", layer.addResults), ("update", layer.updateResults), ("delete", layer.deleteResults)] {
                for result in results where result.error != nil && result.error != .rolledBack {
                    details.append("layer \(layer.layerId) \(kind) \(result.globalId ?? "?"): \(result.error!.description)")
                }
            }
            if let attachments = layer.attachmentResults {
                for result in attachments.adds + attachments.updates + attachments.deletes where result.error != nil && result.error != .rolledBack {
                    details.append("layer \(layer.layerId) attachment \(result.globalId ?? "?"): \(result.error!.description)")
                }
            }
        }
        return details
    }
}
