/// A database snapshot as PostgreSQL writes one (`pg_snapshot`'s text form,
/// `xmin:xmax:xip,…`): which transactions' writes it sees. The PostgreSQL backend's
/// generations are ticks that each keep one (docs/postgres.md, "Generations"): a row changed
/// since tick G is a row whose writing transaction G's snapshot did not see — whatever the
/// order in which writers took their ids or committed.
public struct TransactionSnapshot: Sendable, Equatable, Hashable, Codable {
    /// Every transaction below it had ended when the snapshot was taken.
    public var xmin: Int64
    /// No transaction from it on had started.
    public var xmax: Int64
    /// The transactions in between still running then, ascending.
    public var inProgress: [Int64]

    public init(xmin: Int64, xmax: Int64, inProgress: [Int64] = []) {
        self.xmin = xmin
        self.xmax = xmax
        self.inProgress = inProgress.sorted()
    }

    /// Parses `xmin:xmax:xip,…` (the list may be empty); nil for anything else, or when the
    /// three do not fit together (`xmin ≤ each xip < xmax`).
    public init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = Int64(parts[0]), let xmax = Int64(parts[1]), xmin >= 0, xmin <= xmax else { return nil }
        var running: [Int64] = []
        if !parts[2].isEmpty {
            for item in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
                guard let xid = Int64(item), xid >= xmin, xid < xmax else { return nil }
                running.append(xid)
            }
        }
        self.init(xmin: xmin, xmax: xmax, inProgress: running)
    }

    /// The text PostgreSQL reads back as a `pg_snapshot`.
    public var text: String { "\(xmin):\(xmax):" + inProgress.map(String.init).joined(separator: ",") }

    /// Whether the snapshot sees what transaction `xid` wrote, given that it committed (a row
    /// on disk was written by a committed transaction or by the reader itself): it ended
    /// before the snapshot was taken.
    public func sees(_ xid: Int64) -> Bool {
        if xid < xmin { return true }
        if xid >= xmax { return false }
        return !inProgress.contains(xid)
    }
}

/// Server records stamped with transaction ids, read by the integer sync rules (`SyncRules`)
/// against a replica's tick: the rules only ever ask whether a write came after the
/// replica's generation, and a tick answers that with its snapshot. A write the snapshot
/// sees reads as generation `TransactionSnapshot.replicaGeneration`, one it does not as
/// the next; with `since: replicaGeneration` the rules then decide as they do over
/// SpatiaLite's counters (`TransactionSnapshotTests.stampedRecordsAreDecidedAsCountedOnes`).
extension TransactionSnapshot {
    /// The `since` the rules are called with for this snapshot's tick.
    public static let replicaGeneration: Int64 = 0

    public func generation(of xid: Int64) -> Int64 { sees(xid) ? Self.replicaGeneration : Self.replicaGeneration + 1 }

    public func row(objectId: Int64, createdXid: Int64, changedXid: Int64, lastWriter: String?) -> ServerRecord {
        .row(objectId: objectId, createdGen: generation(of: createdXid), changedGen: generation(of: changedXid), lastWriter: lastWriter)
    }

    public func tombstone(objectId: Int64, createdXid: Int64, deletedXid: Int64, deletedBy: String?) -> ServerRecord {
        .tombstone(objectId: objectId, createdGen: generation(of: createdXid), deletedGen: generation(of: deletedXid), deletedBy: deletedBy)
    }
}
