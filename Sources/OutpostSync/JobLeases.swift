/// Jobs shared by several server processes (docs/postgres.md, "Jobs"): a process claims a
/// pending job for a lease and renews it while it works; a job whose lease ran out belongs to
/// a process that died or stalled, and another process takes it over by these rules. Pure.
public enum JobLeases {
    /// How long a claim lasts without renewal, and how often a working process renews it.
    public static let leaseMilliseconds: Int64 = 60_000
    public static let renewMilliseconds: Int64 = 20_000
    /// Runs a job may have in all, counting the first.
    public static let maximumAttempts = 2

    /// What becomes of a job whose lease ran out.
    public enum Expiry: Sendable, Equatable {
        /// Pending again, for any process to claim.
        case requeue
        /// Failed, saying the process running it stopped.
        case fail
    }

    /// Exports write nothing a client or another replica sees until they succeed, so one is run
    /// again once; anything that may have changed data (a sync's upload, a map area's
    /// packages, a published service) fails instead, as a restart failed it before (`JobEvent.serverRestarted`):
    /// the client sends the request again, and receipts make that harmless.
    public static func onExpiry(kind: JobKind, attempts: Int) -> Expiry {
        let rerunnable: Bool =
            switch kind {
            case .createReplica, .exportTiles, .estimateExportTilesSize: true
            case .synchronizeReplica, .createMapArea, .setupMapArea, .refreshMapAreaPackage, .publish: false
            }
        return rerunnable && attempts < maximumAttempts ? .requeue : .fail
    }

}
