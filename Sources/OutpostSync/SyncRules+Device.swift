/// The device's side of a download (`docs/sync-semantics.md`, "On the device").

/// What a device does with one downloaded server change.
public enum DownloadApplication: Sendable, Equatable {
    /// Apply it: adds and updates as upserts, deletes as deletes (a no-op when not held).
    case apply
    /// Keep the local row as it is: the device holds an edit to it the server has not
    /// acknowledged (made while the sync ran, or refused and kept). That edit goes up with the
    /// next sync and is the later one there (last in wins); the server change it overwrites is
    /// kept in the server's conflict log then.
    case deferToPendingEdit
}

extension SyncRules {
    /// A server change meeting the device's change log for the same GlobalID:
    /// `hasPendingLocalChanges` when log rows for it are not yet acknowledged by the server.
    /// Any pending change holds the server change back, a pending delete too: applying a
    /// server update under it would bring back on the device what the user deleted.
    public static func applyOnDevice(_ change: DownloadChange, hasPendingLocalChanges: Bool) -> DownloadApplication {
        hasPendingLocalChanges && change != .none ? .deferToPendingEdit : .apply
    }
}
