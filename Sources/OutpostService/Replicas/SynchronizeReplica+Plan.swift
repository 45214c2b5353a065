import Crypto
import Foundation
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

/// How a sync is planned from its typed request, whoever asks: a client's request (the
/// replica theirs, the edits inline or in an upload of theirs) or the packager's download of
/// a package's changes.
extension SynchronizeReplica {
    /// The sync `request` asks of `replica` of `service`: planned by `SyncPlanner` against the
    /// current generation within `limits`; `edits` (nil: no upload) identified for retries
    /// by `editBytes`, the bytes they were sent as.
    public init(
        backend: Backend, request: SynchronizeReplicaRequest, replica: ReplicaDefinition, service: StoredService, edits: [LayerEdits]?,
        editBytes: [UInt8] = [], limits: SyncLimits = .standard, editor: String? = nil
    ) throws {
        let plan = try SyncPlanner.plan(
            request, replica: replica, edits: edits, currentGeneration: try backend.edits.currentGeneration(), limits: limits,
            serviceHasAttachments: { id in service.layers.first { $0.definition.id == id }?.definition.hasAttachments ?? false })
        self.init(backend: backend, plan: plan, fingerprint: Self.fingerprint(plan, editBytes: editBytes), editor: editor)
    }

    /// A client's `synchronizeReplica` of `service` for `caller`: the replica must be one they
    /// manage (not found, or forbidden), its edits are read (inline, or a committed upload of
    /// theirs), `checkEdits` sees them (the uploads their attachments name), then it is planned.
    public init(
        backend: Backend, asked request: SynchronizeReplicaRequest, service: StoredService, for caller: Caller, limits: SyncLimits,
        editor: String?, checkEdits: ([LayerEdits]) throws -> Void = { _ in }
    ) throws {
        guard let replica = try backend.replicas.replica(service: service.definition.name, id: request.replicaId) else {
            throw ArcGISError.replicaNotFound(request.replicaId)
        }
        // Only its owner (or an admin) syncs a replica.
        guard caller.mayManage(owner: replica.owner) else { throw ArcGISError.forbidden }
        let (edits, editBytes) = try Self.edits(
            of: request.upload, service: service.definition.name, replicaId: replica.id, for: caller, limits: limits, in: backend)
        try checkEdits(edits ?? [])
        try self.init(
            backend: backend, request: request, replica: replica, service: service, edits: edits, editBytes: editBytes, limits: limits,
            editor: editor)
        // Planned first (a download-only replica's edits are refused as such); then a viewer
        // syncs down only, even a replica made while they could edit: a demoted user,
        // an API key without an edit privilege (docs/identity.md, "API keys: what a key reaches").
        if let user = caller.user, user.role < .editor, (edits ?? []).contains(where: { $0.count > 0 || $0.attachments?.isEmpty == false }) {
            var refusal = ArcGISError.forbidden
            refusal.details = ["A viewer's sync sends no edits: sync with syncDirection=download."]
            throw refusal
        }
    }

    /// What identifies an upload for retries: the replica, each layer's generation and
    /// direction, and a digest of the edit bytes as sent.
    public static func fingerprint(_ plan: SyncPlan, editBytes: [UInt8]) -> [UInt8] {
        var text = plan.replica.id + "\n"
        for layer in plan.layers { text += "\(layer.layerId):\(layer.since):\(layer.direction.rawValue)\n" }
        return Array(text.utf8) + [0] + Array(SHA256.hash(data: editBytes))
    }

    /// The edits of the request: inline, or an uploaded delta (`editsUploadID`: the JSON
    /// `edits` array, or a GeoPackage upload delta or replica file whose change log is
    /// netted), with the bytes that identify them for retries.
    static func edits(
        of source: SyncUploadSource?, service: String, replicaId: String, for caller: Caller, limits: SyncLimits, in backend: Backend
    ) throws -> ([LayerEdits]?, [UInt8]) {
        switch source {
        case nil:
            return (nil, [])
        case .inline(let edits, let text):
            return (edits, Array(text.utf8))
        case .uploadedFile(let itemID, let format):
            guard isValidUploadID(itemID), let item = try? backend.uploads.upload(service: service, itemID: itemID), item.committed,
                caller.mayManage(owner: item.owner)
            else {
                throw ArcGISError.invalidParameter("editsUploadID", "no committed upload '\(itemID)' on service \(service)")
            }
            guard let path = try? backend.uploads.uploadDataFile(itemID), let data = FileManager.default.contents(atPath: path) else {
                throw ArcGISError.invalidParameter("editsUploadID", "upload '\(itemID)' has no data")
            }
            switch format {
            case .json:
                guard let json = try? JSONParser.parse(String(decoding: data, as: UTF8.self)) else {
                    throw ArcGISError.invalidParameter("editsUploadID", "upload '\(itemID)' is not JSON")
                }
                return (try SynchronizeReplicaRequest.parseEdits(json, parameter: "editsUploadID"), [UInt8](data))
            case .sqlite:
                let fileLimits = UntrustedFileLimits(
                    maximumFileBytes: Int.max, maximumValueBytes: limits.maxAttachmentBytes + 1024, maximumChanges: limits.maxEdits)
                return (try deltaEdits(path: path, itemID: itemID, replicaId: replicaId, limits: fileLimits), [UInt8](data))
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
}
