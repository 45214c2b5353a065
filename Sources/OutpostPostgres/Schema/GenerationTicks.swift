import OutpostSync

/// A generation of the PostgreSQL backend: a tick number (what `serverGen` carries) and the
/// snapshot of the read that took it.
public struct GenerationTick: Sendable, Equatable {
    public var tick: Int64
    public var snapshot: TransactionSnapshot

    public init(tick: Int64, snapshot: TransactionSnapshot) {
        self.tick = tick
        self.snapshot = snapshot
    }

    /// Before any write: its snapshot sees nothing, so everything has changed since.
    public static let beginning = GenerationTick(tick: 0, snapshot: TransactionSnapshot(xmin: 0, xmax: 0))
}

/// A tick that could not be taken: the insert returned no row (a database not migrated).
public enum GenerationTickError: Error, Equatable { case notTaken }

/// Generations as snapshot ticks (docs/postgres.md, "Generations"; scale-out.md §4.3, the
/// PgQ design): writers take no number at all, every row they write is stamped with its
/// transaction's id (`stamp`); a download or an export reads, in one REPEATABLE READ
/// transaction, the rows written by transactions the previous tick's snapshot did not see
/// (`unseen(by:column:)`), then stores its own snapshot as the next tick (`take`). A writer
/// that took its id early and committed late is not missed (the previous snapshot did not see
/// it), and a row already sent is not sent again (that snapshot saw it).
public enum GenerationTicks {
    /// The SQL value a writer stamps rows with: its top-level transaction's id (the same
    /// inside savepoints, which snapshots do not list), as a `bigint`.
    public static let stamp = "(pg_current_xact_id()::text::bigint)"

    /// Stores the calling transaction's snapshot as a new tick. Call it inside the
    /// REPEATABLE READ transaction that read the changes, after reading them: the tick then
    /// stands for exactly what was read.
    public static func take(replica: String? = nil, on connection: PostgresConnection) throws -> GenerationTick {
        let row = try connection.query(
            "INSERT INTO outpost_ticks(snapshot, replica_id) VALUES (pg_current_snapshot(), \(replica)) RETURNING tick, snapshot::text"
        ).first
        guard let row, let tick = try row.int64(0), let text = row.string(1), let snapshot = TransactionSnapshot(text: text) else {
            throw GenerationTickError.notTaken
        }
        return GenerationTick(tick: tick, snapshot: snapshot)
    }

    /// The snapshot tick `tick` keeps; nil for a tick this database never took (a generation
    /// from elsewhere: the caller answers as for a generation newer than the server's).
    public static func snapshot(of tick: Int64, on connection: PostgresConnection) throws -> TransactionSnapshot? {
        try connection.query("SELECT snapshot::text FROM outpost_ticks WHERE tick = \(tick)").first?.string(0).flatMap(
            TransactionSnapshot.init(text:))
    }

    /// `SELECT columns FROM table` of the rows written by transactions `snapshot` did not see,
    /// by their stamp column (identifiers the backend chose, never a user's text), with the
    /// snapshot's parts bound so the column's index is used: `xmin ≤ x AND (x ≥ xmax OR x ∈ xip)`.
    public static func changes(
        select columns: String, from table: String, stamp column: String, since snapshot: TransactionSnapshot
    )
        -> PostgresQuery
    {
        PostgresQuery(
            unsafeSQL: "SELECT \(columns) FROM \(table) WHERE \(column) >= $1 AND (\(column) >= $2 OR \(column) = ANY($3))",
            binds: [snapshot.xmin.postgresValue, snapshot.xmax.postgresValue, PostgresInt64Array(snapshot.inProgress).postgresValue])
    }
}
