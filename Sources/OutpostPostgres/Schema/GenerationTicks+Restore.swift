/// A database whose cluster's transaction ids are behind the generations it holds: it was
/// filled from a logical dump (`pg_dump`) into a cluster whose transaction counter is lower
/// than the one the dump was taken on. Rows are stamped with transaction ids and generations
/// are snapshots of them (`GenerationTicks`), so every change written now would look older
/// than the devices' generations and no device would ever download it. Outpost refuses to
/// open such a database (docs/operations.md, "PostgreSQL").
public struct TransactionIDsBehind: Error, Equatable, CustomStringConvertible {
    /// The cluster's next transaction id.
    public var next: Int64
    /// The newest transaction id a stored generation knows of.
    public var newest: Int64

    public var description: String {
        "this database's transaction ids (next \(next)) are behind the generations it holds (up to \(newest)): it was restored from a "
            + "logical dump into another cluster, and changes written now would never reach the devices. Restore a physical backup "
            + "(pg_basebackup), or first advance the cluster's transaction counter past \(newest) (docs/operations.md, \"PostgreSQL\")"
    }
}

extension GenerationTicks {
    /// Throws `TransactionIDsBehind` when the newest tick's snapshot reaches past the
    /// cluster's next transaction id. A database that kept its cluster (a physical backup, an
    /// upgrade in place, a dump restored into a cluster that has gone further) passes.
    public static func checkTransactionIDs(on connection: PostgresConnection) throws {
        let row = try connection.query(
            """
            SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
                   (SELECT pg_snapshot_xmax(snapshot)::text::bigint FROM outpost_ticks ORDER BY tick DESC LIMIT 1)
            """
        ).first
        guard let row, let next = try row.int64(0), let newest = try row.int64(1) else { return }
        if newest > next { throw TransactionIDsBehind(next: next, newest: newest) }
    }
}
