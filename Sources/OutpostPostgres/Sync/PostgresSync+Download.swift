import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync {
    /// After a sync: the generations handed out become the replica's, with the sync's date;
    /// with `close` the replica is unregistered instead.
    public func recordSync(_ plan: SyncPlan, generations: [Int: Int64], close: Bool) throws {
        let replicaId = plan.replica.id
        let now = clock.milliseconds()
        try pool.transaction { connection in
            if close {
                try connection.query("DELETE FROM outpost_replicas WHERE replica_id = \(replicaId)")
                try connection.query("DELETE FROM outpost_sync_receipts WHERE replica_id = \(replicaId)")
                return
            }
            for (layerId, generation) in generations {
                try connection.query(
                    "UPDATE outpost_replica_layers SET server_gen = \(generation) WHERE replica_id = \(replicaId) AND layer_id = \(layerId)")
            }
            try connection.query(
                """
                UPDATE outpost_replicas SET last_sync_date = \(now),
                    replica_server_gen = (SELECT coalesce(min(server_gen), replica_server_gen) FROM outpost_replica_layers WHERE replica_id = \(replicaId))
                WHERE replica_id = \(replicaId)
                """)
        }
    }
}

/// The server changes of one layer since a tick, as a replica must see them (the SpatiaLite
/// `LayerChangeReader`'s rules): adds, then updates, then deletes — rows that left the
/// filter, then tombstones of GlobalIDs not met as live rows.
struct PostgresChangeReader {
    typealias Deleted = DeletedRecord
    let selection: PostgresSync.Selection
    let since: TransactionSnapshot
    let replica: ReplicaDefinition
    private var liveGlobalIds = Set<String>()
    private var leftFilter: [Deleted] = []
    private var adds: [Int64] = []
    private var updates: [Int64] = []

    /// Reads what changed and decides each row (`decide`): a reader is never used undecided.
    init(selection: PostgresSync.Selection, since: TransactionSnapshot, replica: ReplicaDefinition, connection: PostgresConnection) throws {
        self.selection = selection
        self.since = since
        self.replica = replica
        try decide(connection: connection)
    }

    /// `xmin ≤ x AND (x ≥ xmax OR x ∈ xip)` over `column`: written by a transaction `since` did not see.
    func unseen(_ column: String, binds: inout [PostgresValue]) -> String {
        binds += [since.xmin.postgresValue, since.xmax.postgresValue, PostgresInt64Array(since.inProgress).postgresValue]
        return "(\(column) >= ? AND (\(column) >= ? OR \(column) = ANY(?)))"
    }

    /// Decides every changed row from its stamps, filter match and creator alone (no
    /// attributes, no geometry): which are adds, which updates, which left the filter. Each row
    /// is then read whole once, by the pass that sends it.
    private mutating func decide(connection: PostgresConnection) throws {
        let layer = selection.layer
        let definition = layer.definition
        // Where the server writes fields (editor tracking), the replica's own changes come back.
        let echoes = definition.editFieldsInfo != nil
        var binds = selection.binds
        let oid = "t.\(PostgresQuery.quoted(identifier: definition.objectIdField))"
        let hasGlobalIds = definition.fields.contains { $0.name == definition.globalIdField }
        let gid = hasGlobalIds ? "t.\(PostgresQuery.quoted(identifier: definition.globalIdField))" : "NULL::text"
        let columns = [oid, gid, "t.outpost_created_xid", "t.outpost_xid", "t.outpost_replica", "(\(selection.condition))", "t.outpost_created_by"]
        var condition = unseen("t.outpost_xid", binds: &binds)
        if !echoes {
            condition += " AND t.outpost_replica IS DISTINCT FROM ?"
            binds.append(.text(replica.id))
        }
        let sql =
            "SELECT \(columns.joined(separator: ", ")) FROM \(PostgresQuery.quoted(identifier: layer.tableName)) t WHERE \(condition) ORDER BY \(oid)"
        try connection.forEachRow(PostgresQuery(questionMarks: sql, binds: binds)) { row in
            let objectId = try row.required(0, row.int64)
            let globalId = row.string(1)
            if let globalId { liveGlobalIds.insert(globalId) }
            let record = since.row(
                objectId: objectId, createdXid: try row.required(2, row.int64), changedXid: try row.required(3, row.int64),
                lastWriter: row.string(4))
            let decision = SyncRules.download(
                record, matchesFilter: try row.bool(5) == true, since: TransactionSnapshot.replicaGeneration, replicaId: replica.id,
                echoesOwnWrites: echoes, createdByReplica: row.string(6) == replica.id)
            switch decision {
            case .add: adds.append(objectId)
            case .update: updates.append(objectId)
            case .delete: if let globalId { leftFilter.append(DeletedRecord(globalId: globalId, objectId: objectId)) }
            default: break
            }
        }
    }

    /// The rows `decide` found for `pass`, whole, in OBJECTID order.
    func forEachRow(_ pass: DownloadChange, connection: PostgresConnection, _ body: (FeatureRecord) throws -> Void) throws {
        let ids = pass == .add ? adds : updates
        guard !ids.isEmpty else { return }
        let layer = selection.layer
        let oid = "t.\(PostgresQuery.quoted(identifier: layer.definition.objectIdField))"
        let columns = PostgresSync.featureColumns(layer, spatialReference: replica.spatialReference)
        let sql =
            "SELECT \(columns.joined(separator: ", ")) FROM \(PostgresQuery.quoted(identifier: layer.tableName)) t WHERE \(oid) = ANY(?) ORDER BY \(oid)"
        try connection.forEachRow(PostgresQuery(questionMarks: sql, binds: [PostgresInt64Array(ids).postgresValue])) { row in
            try body(try PostgresSync.record(row, layer: layer))
        }
    }

    /// Rows that left the filter, then the tombstones since the tick that reach the replica (a
    /// GlobalID deleted and then added again is live: the row decided it).
    func deletes(connection: PostgresConnection) throws -> [Deleted] {
        leftFilter + (try tombstones(kind: "feature", connection: connection).filter { !liveGlobalIds.contains($0.globalId) })
    }

    /// The tombstones of `kind` since the tick that reach the replica as deletes, in deletion order.
    func tombstones(kind: String, connection: PostgresConnection) throws -> [Deleted] {
        let layer = selection.layer
        var binds: [PostgresValue] = [.text(layer.serviceName), layer.definition.id.postgresValue, .text(kind)]
        let sql = """
            SELECT t.global_id, t.object_id, t.created_xid, t.outpost_xid, t.replica_id, t.created_by
            FROM outpost_tombstones t WHERE t.service = ? AND t.layer_id = ? AND t.kind = ? AND \(unseen("t.outpost_xid", binds: &binds))
            ORDER BY t.outpost_xid, t.global_id
            """
        var deleted: [Deleted] = []
        for row in try connection.query(PostgresQuery(questionMarks: sql, binds: binds)).rows {
            let record = since.tombstone(
                objectId: try row.required(1, row.int64), createdXid: try row.required(2, row.int64), deletedXid: try row.required(3, row.int64),
                deletedBy: row.string(4))
            let createdByReplica = row.string(5) == replica.id
            let change =
                kind == "attachment"
                ? SyncRules.downloadAttachment(
                    record, parentInFilter: false, since: TransactionSnapshot.replicaGeneration, replicaId: replica.id,
                    createdByReplica: createdByReplica)
                : SyncRules.download(
                    record, matchesFilter: false, since: TransactionSnapshot.replicaGeneration, replicaId: replica.id,
                    createdByReplica: createdByReplica)
            if change == .delete { deleted.append(DeletedRecord(globalId: try row.required(0, row.string), objectId: try row.int64(1))) }
        }
        return deleted
    }
}
