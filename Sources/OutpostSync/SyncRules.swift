/// The decisions of a sync, per GlobalID, as pure functions: what a replica downloads, what
/// an uploaded edit does to the server, and what a device's change log nets to. Storage and
/// HTTP only gather the facts and carry out the answer. Each case is a row of
/// `docs/sync-semantics.md`, and a test.

/// What the server holds for one GlobalID.
public enum ServerRecord: Sendable, Equatable {
    /// No row and no tombstone: the server never had it (or forgot it after compaction).
    case absent
    /// A live row. `lastWriter` is the replica whose sync wrote it last (nil: an online edit).
    case row(objectId: Int64, createdGen: Int64, changedGen: Int64, lastWriter: String?)
    /// Deleted at `deletedGen`.
    case tombstone(objectId: Int64, createdGen: Int64, deletedGen: Int64, deletedBy: String?)

    /// The OBJECTID the server has or had for it.
    public var objectId: Int64? {
        switch self {
        case .absent: nil
        case .row(let objectId, _, _, _), .tombstone(let objectId, _, _, _): objectId
        }
    }
}

/// What a replica's download carries for one GlobalID.
public enum DownloadChange: Sendable, Equatable {
    case none
    /// A feature the replica cannot have yet (created after its generation).
    case add
    /// A feature changed after the replica's generation. Clients apply updates as upserts:
    /// a feature that newly entered the replica's filter arrives as an update.
    case update
    /// Deleted after the replica's generation, or changed so that it left the filter. A
    /// delete of a GlobalID the client does not hold is a no-op there.
    case delete
}

/// What one uploaded edit does on the server.
public enum UploadAction: Sendable, Equatable {
    case insert
    case update(objectId: Int64)
    /// Re-create a feature deleted on the server (the upload is the later edit: last in wins).
    case resurrect(previousObjectId: Int64)
    case delete(objectId: Int64)
    /// Nothing to do; the edit already holds (a retried add, a delete of a deleted feature).
    /// `objectId` is reported in the edit result when the feature exists.
    case alreadyApplied(objectId: Int64?)
}

/// An uploaded edit's kind.
public enum UploadOperation: Sendable, Equatable {
    case add, update, delete
}

/// The outcome of an uploaded edit: the action, and whether it overwrote a server change the
/// replica had not seen (which the conflict log must then keep).
public struct UploadDecision: Sendable, Equatable {
    public var action: UploadAction
    public var overwritesUnseenChange: Bool

    public init(_ action: UploadAction, overwritesUnseenChange: Bool = false) {
        self.action = action
        self.overwritesUnseenChange = overwritesUnseenChange
    }
}

public enum SyncRules {
    /// The download for one GlobalID, for a replica that last received `generation`.
    /// `matchesFilter` is whether the live row is selected by the replica's layer filter now.
    /// `echoesOwnWrites`: the layer has fields the server writes (editor tracking), so the
    /// replica's own changes come back as updates carrying them.
    /// `createdByReplica`: the replica's own sync created the feature (it holds it even when it
    /// was created after `generation`: an upload-only sync keeps the generation it sent).
    public static func download(
        _ record: ServerRecord, matchesFilter: Bool, since generation: Int64,
        replicaId: String, echoesOwnWrites: Bool = false, createdByReplica: Bool = false
    ) -> DownloadChange {
        switch record {
        case .absent:
            return .none
        case .row(_, let createdGen, let changedGen, let lastWriter):
            guard changedGen > generation else { return .none }
            // The replica's own upload is not echoed; the upload's results carry what the
            // server added (object ids, editor tracking).
            if lastWriter == replicaId { return echoesOwnWrites && matchesFilter ? .update : .none }
            let replicaHasIt = createdGen <= generation || createdByReplica
            if !matchesFilter { return replicaHasIt ? .delete : .none }
            return replicaHasIt ? .update : .add
        case .tombstone(_, let createdGen, let deletedGen, let deletedBy):
            guard deletedGen > generation else { return .none }
            if deletedBy == replicaId { return .none }
            // Created and deleted since the replica's generation: it never reached the
            // replica — unless the replica created it.
            return createdGen <= generation || createdByReplica ? .delete : .none
        }
    }

    /// What an uploaded edit does, for a replica that last received `generation` (the
    /// generation the upload's edits were made against). Last in wins: the sync being applied
    /// is the later edit; a server change it overwrites that the replica had not seen is
    /// flagged so its values are recorded, never silently lost.
    public static func upload(
        _ operation: UploadOperation, onto record: ServerRecord, since generation: Int64,
        replicaId: String
    ) -> UploadDecision {
        switch (operation, record) {
        case (.add, .absent):
            return UploadDecision(.insert)
        case (.add, .row(let objectId, _, let changedGen, let lastWriter)):
            // The same GlobalID again: a retry when this replica wrote it and nobody since.
            if lastWriter == replicaId { return UploadDecision(.alreadyApplied(objectId: objectId)) }
            return UploadDecision(.update(objectId: objectId), overwritesUnseenChange: changedGen > generation)
        case (.add, .tombstone(let objectId, _, _, let deletedBy)):
            if deletedBy == replicaId { return UploadDecision(.alreadyApplied(objectId: nil)) }
            return UploadDecision(.resurrect(previousObjectId: objectId), overwritesUnseenChange: true)
        case (.update, .absent):
            // The server never had it (its add was lost or compacted away): the feature goes in.
            return UploadDecision(.insert)
        case (.update, .row(let objectId, _, let changedGen, let lastWriter)):
            let unseen = changedGen > generation && lastWriter != replicaId
            return UploadDecision(.update(objectId: objectId), overwritesUnseenChange: unseen)
        case (.update, .tombstone(let objectId, _, let deletedGen, let deletedBy)):
            if deletedBy == replicaId { return UploadDecision(.alreadyApplied(objectId: nil)) }
            return UploadDecision(.resurrect(previousObjectId: objectId), overwritesUnseenChange: deletedGen > generation)
        case (.delete, .absent):
            return UploadDecision(.alreadyApplied(objectId: nil))
        case (.delete, .row(let objectId, _, let changedGen, let lastWriter)):
            let unseen = changedGen > generation && lastWriter != replicaId
            return UploadDecision(.delete(objectId: objectId), overwritesUnseenChange: unseen)
        case (.delete, .tombstone):
            return UploadDecision(.alreadyApplied(objectId: nil))
        }
    }
}

/// A device's change log for one GlobalID, netted to what must be uploaded.
public enum LocalOperation: String, Sendable, Equatable {
    case insert, update, delete
}

public enum NetLocalChange: Sendable, Equatable {
    case add, update, delete
}

extension SyncRules {
    /// The net effect of a GlobalID's logged operations, oldest first (the `outpost_sync_changes`
    /// rows of a replica file): added then deleted is nothing; added then changed is an add;
    /// changed then deleted is a delete.
    public static func net(_ operations: [LocalOperation]) -> NetLocalChange? {
        guard let first = operations.first, let last = operations.last else { return nil }
        if first == .insert { return last == .delete ? nil : .add }
        return last == .delete ? .delete : .update
    }
}
