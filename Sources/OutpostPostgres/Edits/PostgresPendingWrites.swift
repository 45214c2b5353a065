import OutpostStorage

/// The writes of a bulk edit request held back to be sent in one pipeline
/// (`PostgresConnection.pipeline`), and the ObjectIDs its adds take: drawn from the layer's
/// identity sequence beforehand, so an add's result needs no answer from its INSERT.
///
/// Only the fast path holds writes (no savepoints): if any held write is refused, the whole
/// request runs again with savepoints, exactly as when an edit fails without them.
final class PendingWrites {
    var queries: [PostgresQuery] = []
    /// Per table, ObjectIDs drawn and not yet given, in ascending order.
    private var objectIds: [String: ArraySlice<Int64>] = [:]
    /// How many to draw at once per table (the request's adds, at most).
    var drawSize: [String: Int] = [:]

    /// The next ObjectID for an add to `layer`, drawing `drawSize` more when none is left.
    func nextObjectId(_ layer: StoredLayer, connection: PostgresConnection) throws -> Int64 {
        if objectIds[layer.tableName]?.isEmpty != false {
            let count = max(1, drawSize[layer.tableName] ?? 1)
            let drawn = try connection.query(
                """
                SELECT nextval(pg_get_serial_sequence(\(PostgresQuery.quoted(identifier: layer.tableName)), \(layer.definition.objectIdField)))
                FROM generate_series(1, \(count))
                """
            ).rows.map { try $0.required(0, $0.int64) }
            objectIds[layer.tableName] = ArraySlice(drawn.sorted())
        }
        return objectIds[layer.tableName]!.popFirst()!
    }
}
