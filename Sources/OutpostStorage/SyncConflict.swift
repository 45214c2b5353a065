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

    public init(
        id: Int64, layerId: Int, globalId: String, objectId: Int64?, uploadOperation: String, overwrittenChange: String, overwrittenGeneration: Int64,
        overwrittenBy: String?, feature: JSONValue?, generation: Int64, recordedAt: Int64, fields: JSONValue? = nil
    ) {
        self.id = id
        self.layerId = layerId
        self.globalId = globalId
        self.objectId = objectId
        self.uploadOperation = uploadOperation
        self.overwrittenChange = overwrittenChange
        self.overwrittenGeneration = overwrittenGeneration
        self.overwrittenBy = overwrittenBy
        self.feature = feature
        self.generation = generation
        self.recordedAt = recordedAt
        self.fields = fields
    }

}
