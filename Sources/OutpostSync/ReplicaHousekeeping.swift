/// The rules of the admin commands `outpost replicas … --idle-days` and `outpost compact`
/// (docs/operations.md). Pure: the store applies them.
public enum ReplicaHousekeeping {
    /// The oldest generation a registered replica may still sync from: change tracking at or
    /// below it (tombstones) is needed by nobody. With no replica registered, `current`.
    public static func oldestGenerationNeeded(by replicas: [ReplicaDefinition], current: Int64) -> Int64 {
        var oldest = current
        for replica in replicas where replica.isRegistered {
            switch replica.syncModel {
            case .perReplica: oldest = min(oldest, replica.replicaServerGen)
            default: oldest = min(oldest, replica.layers.map(\.serverGen).min() ?? replica.replicaServerGen)
            }
        }
        return oldest
    }

    /// When a replica was last heard of: its last sync, or its creation.
    public static func lastActivity(of replica: ReplicaDefinition) -> Int64 {
        max(replica.lastSyncDate ?? 0, replica.creationDate)
    }

    /// Replicas with no sync for more than `days` days at `now` (milliseconds since 1970).
    public static func idle(_ replicas: [ReplicaDefinition], days: Double, now: Int64) -> [ReplicaDefinition] {
        let limit = now - Int64(days * 86_400_000)
        return replicas.filter { lastActivity(of: $0) < limit }
    }
}
