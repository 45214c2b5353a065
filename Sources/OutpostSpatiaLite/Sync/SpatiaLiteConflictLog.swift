import Foundation
import GRDB
import OutpostStorage
import OutpostWire

/// The conflict log in the embedded database (`ConflictLog`).
public struct SpatiaLiteConflictLog: ConflictLog, StoreRepository {
    public let database: StoreDatabase

    /// The conflict log of a replica, oldest first (kept after the replica is unregistered).
    public func conflicts(service: String, replicaId: String) throws -> [SyncConflict] {
        let name = try self.service(named: service).definition.name
        guard let id = GlobalID.normalize(replicaId) else { return [] }
        return try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM outpost_conflicts WHERE replica_id = ? AND service = ? ORDER BY conflict_id
                    """, arguments: [id, name]
            ).map { row in
                SyncConflict(
                    id: row["conflict_id"], layerId: row["layer_id"], globalId: row["global_id"], objectId: row["object_id"],
                    uploadOperation: row["upload_operation"], overwrittenChange: row["overwritten_change"],
                    overwrittenGeneration: row["overwritten_generation"], overwrittenBy: row["overwritten_by"],
                    feature: (row["feature"] as String?).flatMap { try? JSONParser.parse($0) },
                    generation: row["generation"], recordedAt: row["recorded_at"],
                    fields: (row["fields"] as String?).flatMap { try? JSONParser.parse($0) })
            }
        }
    }
}
