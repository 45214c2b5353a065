/// What syncs overwrote (`docs/sync-semantics.md`, "The conflict log"). Rows are written by
/// the sync upload, in its transaction (`SyncStore.applySyncUpload`).
///
/// Contract: a replica's conflicts, oldest first; kept after the replica is unregistered.
public protocol ConflictLog: Sendable {
    func conflicts(service: String, replicaId: String) throws -> [SyncConflict]
}
