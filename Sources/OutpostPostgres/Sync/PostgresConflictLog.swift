import OutpostStorage
import OutpostWire

/// The conflict log on PostgreSQL (`ConflictLog`): written by the sync upload in its
/// transaction, kept after the replica is unregistered.
public struct PostgresConflictLog: ConflictLog {
    let pool: PostgresPool
    let held: PostgresCatalog

    public func conflicts(service: String, replicaId: String) throws -> [SyncConflict] {
        let name = try held.load().existingService(named: service).definition.name
        guard let id = GlobalID.normalize(replicaId) else { return [] }
        return try pool.query(
            """
            SELECT conflict_id, layer_id, global_id, object_id, upload_operation, overwritten_change, overwritten_xid, overwritten_by,
                feature, outpost_xid, recorded_at, fields
            FROM outpost_conflicts WHERE replica_id = \(id) AND service = \(name) ORDER BY conflict_id
            """
        ).rows.map { row in
            SyncConflict(
                id: try row.required(0, row.int64), layerId: try row.required(1, row.int), globalId: try row.required(2, row.string),
                objectId: try row.int64(3), uploadOperation: try row.required(4, row.string), overwrittenChange: try row.required(5, row.string),
                overwrittenGeneration: try row.required(6, row.int64), overwrittenBy: row.string(7),
                feature: row.string(8).flatMap { try? JSONParser.parse($0) }, generation: try row.required(9, row.int64),
                recordedAt: try row.required(10, row.int64), fields: row.string(11).flatMap { try? JSONParser.parse($0) })
        }
    }
}
