import OutpostSync

/// What a replica or a named version has seen of DEFAULT on PostgreSQL: a tick's snapshot,
/// and for a version posted since, the posting transaction itself, whose own writes its
/// snapshot (taken inside it) cannot list as seen.
///
/// A row's versions are written one after the other (each writer waits for the previous
/// one's commit to update the row), so a snapshot sees a prefix of them: exactly one kept
/// version was written by a seen transaction and replaced by an unseen one — the row as the
/// base knew it (`PostgresFieldStates`).
struct PostgresVersionBase: Sendable, Equatable {
    var snapshot: TransactionSnapshot
    var postedBy: Int64?

    init(snapshot: TransactionSnapshot, postedBy: Int64? = nil) {
        self.snapshot = snapshot
        self.postedBy = postedBy
    }

    func sees(_ xid: Int64) -> Bool { xid == postedBy || snapshot.sees(xid) }

    /// `sees` in SQL for a stamp column (an identifier the backend chose), its parts bound.
    func seenSQL(_ column: String, binds: inout [PostgresValue]) -> String {
        binds += [snapshot.xmin.postgresValue, snapshot.xmax.postgresValue, PostgresInt64Array(snapshot.inProgress).postgresValue]
        let n = binds.count
        let seen = "(\(column) < $\(n - 2) OR (\(column) < $\(n - 1) AND NOT \(column) = ANY($\(n))))"
        guard let postedBy else { return seen }
        binds.append(postedBy.postgresValue)
        return "(\(seen) OR \(column) = $\(binds.count))"
    }

    /// The base a tick stands for: its snapshot, and the transaction a post recorded with it.
    static func of(tick: Int64, postedBy: Int64? = nil, connection: PostgresConnection) throws -> PostgresVersionBase {
        PostgresVersionBase(snapshot: try PostgresSync.snapshot(ofGeneration: tick, connection: connection), postedBy: postedBy)
    }
}
