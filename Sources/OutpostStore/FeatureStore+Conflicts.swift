import Foundation
import GRDB
import OutpostWire

/// One server change a sync overwrote without its replica having seen it.
public struct SyncConflict: Sendable, Equatable {
    public var id: Int64
    public var layerId: Int
    public var globalId: String
    public var objectId: Int64?
    /// The uploaded edit that won: `add`, `update` or `delete`.
    public var uploadOperation: String
    /// What it overwrote: `update` (the feature's values, in `feature`) or `delete` (undone).
    public var overwrittenChange: String
    public var overwrittenGeneration: Int64
    /// The replica that made the overwritten change; nil for an online edit.
    public var overwrittenBy: String?
    /// The overwritten feature (Esri JSON, as stored) for `update`.
    public var feature: JSONValue?
    /// The generation of the sync that overwrote it.
    public var generation: Int64
    public var recordedAt: Int64
    /// Versioned data: the fields both sides changed, `{"field", "base", "default", "replica"}`
    /// each (what the replica started from, what DEFAULT had, what the replica posted); nil
    /// for object-level conflicts.
    public var fields: JSONValue? = nil

    public var json: JSONValue {
        [
            "conflictId": .int(id), "layerId": .int(Int64(layerId)), "globalId": .string(globalId),
            "objectId": objectId.map { .int($0) } ?? .null, "uploadOperation": .string(uploadOperation),
            "overwrittenChange": .string(overwrittenChange), "overwrittenGeneration": .int(overwrittenGeneration),
            "overwrittenBy": overwrittenBy.map { .string($0) } ?? .null, "feature": feature ?? .null,
            "generation": .int(generation), "recordedAt": .int(recordedAt), "fields": fields ?? .null,
        ]
    }
}

extension FeatureStore {
    /// The conflict log of a replica, oldest first (kept after the replica is unregistered).
    public func conflicts(service: String, replicaId: String) throws -> [SyncConflict] {
        let name = try self.service(named: service).definition.name
        guard let id = GlobalID.normalize(replicaId) else { return [] }
        return try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM outpost_conflicts WHERE replica_id = ? AND service = ? ORDER BY conflict_id
                """, arguments: [id, name]).map { row in
                SyncConflict(id: row["conflict_id"], layerId: row["layer_id"], globalId: row["global_id"], objectId: row["object_id"],
                             uploadOperation: row["upload_operation"], overwrittenChange: row["overwritten_change"],
                             overwrittenGeneration: row["overwritten_generation"], overwrittenBy: row["overwritten_by"],
                             feature: (row["feature"] as String?).flatMap { try? JSONParser.parse($0) },
                             generation: row["generation"], recordedAt: row["recorded_at"],
                             fields: (row["fields"] as String?).flatMap { try? JSONParser.parse($0) })
            }
        }
    }
}
