/// The attachment rows of `docs/sync-semantics.md` ("Attachments"): attachments are records
/// of their own (a `ServerRecord` each, by the attachment's GlobalID) that travel with their
/// feature.

/// What one uploaded attachment edit does on the server.
public enum AttachmentUploadAction: Sendable, Equatable {
    case insert
    /// Add it again after a delete: it keeps the creation generation of its tombstone
    /// (`SyncRules.recreation(replacing:)`).
    case recreate(previousAttachmentId: Int64)
    case update(attachmentId: Int64)
    case delete(attachmentId: Int64)
    /// Nothing to do: a retried add, or a delete of an attachment already gone.
    case alreadyApplied(attachmentId: Int64?)
    /// An update of an attachment the server does not hold that does not carry what an add
    /// needs (its parent and its bytes): the edit fails.
    case missing
}

/// A deleted feature or attachment added again (`UploadAction.resurrect`,
/// `AttachmentUploadAction.recreate`): the same record, not a new one.
public struct Recreation: Sendable, Equatable {
    /// The creation generation it keeps: replicas that held it receive an update (not an
    /// add), and a later delete still reaches them.
    public var createdGeneration: Int64
    /// Its tombstone goes: it is no longer deleted.
    public var removesTombstone: Bool

    public init(createdGeneration: Int64, removesTombstone: Bool = true) {
        self.createdGeneration = createdGeneration
        self.removesTombstone = removesTombstone
    }
}

extension SyncRules {
    /// The download for one attachment, for a replica that last received `generation`. An
    /// attachment travels with its feature: while the feature is outside the replica's filter
    /// the feature's own delete (or absence) speaks for it, so the attachment is not sent.
    /// Otherwise as for features; attachments have no fields the server writes, so the
    /// replica's own writes are never echoed.
    public static func downloadAttachment(
        _ record: ServerRecord, parentInFilter: Bool, since generation: Int64, replicaId: String,
        createdByReplica: Bool = false
    ) -> DownloadChange {
        if case .row = record, !parentInFilter { return .none }
        return download(record, matchesFilter: true, since: generation, replicaId: replicaId, createdByReplica: createdByReplica)
    }

    /// What an uploaded attachment edit does (last in wins, by GlobalID): an add of an
    /// attachment that exists updates it (the replica's own retried add changes nothing); an
    /// update of one the server does not hold adds it when it names its parent and carries its
    /// bytes (`carriesParentAndBytes`), and fails otherwise; a delete of one already gone
    /// succeeds. Attachment overwrites are not kept in the conflict log.
    public static func uploadAttachment(
        _ operation: UploadOperation, onto record: ServerRecord, carriesParentAndBytes: Bool,
        replicaId: String
    ) -> AttachmentUploadAction {
        switch (operation, record) {
        case (.add, .row(let id, _, _, let lastWriter)):
            return lastWriter == replicaId ? .alreadyApplied(attachmentId: id) : .update(attachmentId: id)
        case (.update, .row(let id, _, _, _)):
            return .update(attachmentId: id)
        case (.add, .absent):
            return .insert
        case (.add, .tombstone(let id, _, _, _)):
            return .recreate(previousAttachmentId: id)
        case (.update, .absent):
            return carriesParentAndBytes ? .insert : .missing
        case (.update, .tombstone(let id, _, _, _)):
            return carriesParentAndBytes ? .recreate(previousAttachmentId: id) : .missing
        case (.delete, .row(let id, _, _, _)):
            return .delete(attachmentId: id)
        case (.delete, .tombstone(let id, _, _, _)):
            return .alreadyApplied(attachmentId: id)
        case (.delete, .absent):
            return .alreadyApplied(attachmentId: nil)
        }
    }

    /// What re-creating a record over `record` carries over: from a tombstone, its creation
    /// generation (and the tombstone is removed); over anything else, nothing.
    public static func recreation(replacing record: ServerRecord) -> Recreation? {
        guard case .tombstone(_, let createdGen, _, _) = record else { return nil }
        return Recreation(createdGeneration: createdGen)
    }
}
