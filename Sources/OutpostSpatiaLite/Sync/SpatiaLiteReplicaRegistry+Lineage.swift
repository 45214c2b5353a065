import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// The lineage the registration rules read: which replica a copy was made from, and which
/// ids were unregistered.
extension SpatiaLiteReplicaRegistry {
    /// What the registration rules need to know about the replica a copy was made from.
    public func registrationFacts(service: String, referenceId: String?) throws -> RegistrationFacts {
        let definition = try self.service(named: service).definition
        guard let referenceId else {
            return RegistrationFacts(serviceIsVersioned: definition.isVersioned, referenceId: nil, originId: nil, unregistered: [])
        }
        let canonical = GlobalID.normalize(referenceId) ?? referenceId
        return try pool.read { db in
            let origin = try String.fetchOne(db, sql: "SELECT origin_id FROM outpost_replica_origins WHERE replica_id = ?", arguments: [canonical])
            let unregistered = try Set(
                String.fetchAll(
                    db, sql: "SELECT replica_id FROM outpost_unregistered_replicas WHERE replica_id IN (?, ?)",
                    arguments: [canonical, origin ?? canonical]))
            return RegistrationFacts(
                serviceIsVersioned: definition.isVersioned, referenceId: canonical, originId: origin ?? canonical,
                unregistered: unregistered)
        }
    }

    /// Records that `replicaId` was registered as a copy of `originId` (the first replica of its line).
    static func recordOrigin(of replicaId: String, originId: String, db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO outpost_replica_origins(replica_id, origin_id) VALUES (?, ?)", arguments: [replicaId, originId])
    }

    /// Marks ids as unregistered, forever: neither they nor copies of them register again.
    static func recordUnregistered(_ ids: [String], service: String, at now: Int64, db: Database) throws {
        for id in ids {
            try db.execute(
                sql: "INSERT OR IGNORE INTO outpost_unregistered_replicas(replica_id, service, unregistered_at) VALUES (?, ?, ?)",
                arguments: [id, service, now])
        }
    }
}
