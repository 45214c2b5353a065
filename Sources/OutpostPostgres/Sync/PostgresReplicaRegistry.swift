import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// The replica registry on PostgreSQL (`ReplicaRegistry`), shared by every server process:
/// names unique per service in the database (registered ones by a unique index, ones being
/// created by a reservation row), registrations and lineage in one transaction each.
public struct PostgresReplicaRegistry: ReplicaRegistry {
    let pool: PostgresPool
    let held: PostgresCatalog
    let clock: any WallClock

    private func serviceName(_ service: String) throws -> String { try held.load().existingService(named: service).definition.name }

    public func replicas(service: String) throws -> [ReplicaDefinition] {
        let name = try serviceName(service)
        return try pool.transaction(.repeatableRead) { connection in
            try connection.query("SELECT replica_id FROM outpost_replicas WHERE service = \(name) ORDER BY creation_date, name").rows
                .compactMap { try Self.replica(id: try $0.required(0, $0.string), connection: connection) }
        }
    }

    public func allReplicas() throws -> [ReplicaDefinition] {
        try held.load().services.flatMap { try replicas(service: $0.definition.name) }
    }

    public func replica(service: String, id: String) throws -> ReplicaDefinition? {
        let name = try serviceName(service)
        guard let canonical = GlobalID.normalize(id) else { return nil }
        return try pool.transaction(.repeatableRead) { connection in
            guard let replica = try Self.replica(id: canonical, connection: connection),
                ServiceDefinition.normalizedName(replica.serviceName) == ServiceDefinition.normalizedName(name)
            else { return nil }
            return replica
        }
    }

    static func replica(id: String, connection: PostgresConnection) throws -> ReplicaDefinition? {
        guard
            let row = try connection.query(
                """
                SELECT replica_id, name, service, owner, sync_model, target_type, sync_direction, attachments_sync_direction, return_attachments,
                    geometry, geometry_wkid, spatial_reference, replica_server_gen, creation_date, last_sync_date, sync_data_options
                FROM outpost_replicas WHERE replica_id = \(id)
                """
            ).first
        else { return nil }
        let layers = try connection.query(
            "SELECT layer_id, query_option, use_geometry, include_related, where_clause, server_gen FROM outpost_replica_layers WHERE replica_id = \(id) ORDER BY layer_id"
        ).rows.map { layer in
            ReplicaLayer(
                layerId: try layer.required(0, layer.int), queryOption: ReplicaQueryOption(lenient: layer.string(1) ?? "") ?? .useFilter,
                useGeometry: try layer.required(2, layer.bool), includeRelated: try layer.required(3, layer.bool), whereClause: layer.string(4),
                serverGen: try layer.required(5, layer.int64))
        }
        let geometry = row.string(9).flatMap { try? JSONParser.parse($0) }.flatMap { try? Geometry.fromEsriJSON($0).0 }
        return ReplicaDefinition(
            id: try row.required(0, row.string), name: try row.required(1, row.string), serviceName: try row.required(2, row.string),
            owner: row.string(3) ?? "", syncModel: SyncModel(lenient: row.string(4) ?? "") ?? .perLayer,
            targetType: ReplicaTargetType(lenient: row.string(5) ?? "") ?? .client,
            syncDirection: SyncDirection(lenient: row.string(6) ?? "") ?? .bidirectional,
            attachmentsSyncDirection: AttachmentsSyncDirection(lenient: row.string(7) ?? "") ?? .none,
            returnAttachments: try row.required(8, row.bool), geometry: geometry,
            geometrySpatialReference: SpatialReference(wkid: try row.required(10, row.int)),
            spatialReference: SpatialReference(wkid: try row.required(11, row.int)), layers: layers,
            replicaServerGen: try row.required(12, row.int64), creationDate: try row.required(13, row.int64), lastSyncDate: try row.int64(14),
            syncDataOptions: try row.required(15, row.int64))
    }

    /// Serialises name decisions for one service across processes, for the transaction.
    static func lockNames(of service: String, connection: PostgresConnection) throws {
        try connection.query("SELECT pg_advisory_xact_lock(hashtext('outpost_replica_names:' || lower(\(service))))")
    }

    /// Registered names and live reservations of a service.
    static func takenNames(of service: String, connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT name FROM outpost_replicas WHERE service = \(service)
            UNION ALL SELECT name FROM outpost_replica_name_reservations WHERE service = \(service) AND expires_at > clock_timestamp()
            """
        ).rows.compactMap { $0.string(0) }
    }

    @discardableResult
    public func registerReplica(_ definition: ReplicaDefinition, copiedFrom origin: String?) throws -> ReplicaDefinition {
        precondition(definition.isRegistered, "syncModel=none exports are not registered")
        let service = try held.load().existingService(named: definition.serviceName).definition
        let now = clock.milliseconds()
        return try pool.transaction { connection in
            try Self.lockNames(of: service.name, connection: connection)
            // A service deleted while the snapshot was written has nothing left to sync with
            // (the deletion locks the row first: this waits for it, then finds none).
            guard try connection.query("SELECT name FROM outpost_services WHERE name = \(service.name) FOR SHARE").first != nil else {
                throw StoreError.serviceNotFound(service.name)
            }
            var stored = definition
            // Its own reservation does not count against it.
            try connection.query(
                "DELETE FROM outpost_replica_name_reservations WHERE service = \(service.name) AND lower(name) = lower(\(definition.name))")
            let registered = try connection.query("SELECT name FROM outpost_replicas WHERE service = \(service.name)").rows.compactMap {
                $0.string(0)
            }
            stored.name = ReplicaName.unique(definition.name, taken: registered)
            let geometryText = definition.geometry?.esriJSONText
            try connection.query(
                """
                INSERT INTO outpost_replicas(replica_id, service, name, owner, sync_model, target_type, sync_direction,
                    attachments_sync_direction, return_attachments, geometry, geometry_wkid, spatial_reference,
                    replica_server_gen, creation_date, last_sync_date, sync_data_options)
                VALUES (\(stored.id), \(service.name), \(stored.name), \(stored.owner), \(stored.syncModel.rawValue), \(stored.targetType.rawValue),
                    \(stored.syncDirection.rawValue), \(stored.attachmentsSyncDirection.rawValue), \(stored.returnAttachments), \(geometryText),
                    \(stored.geometrySpatialReference.wkid), \(stored.spatialReference.wkid), \(stored.replicaServerGen), \(stored.creationDate),
                    \(stored.lastSyncDate), \(stored.syncDataOptions))
                """)
            for layer in stored.layers {
                try connection.query(
                    """
                    INSERT INTO outpost_replica_layers(replica_id, layer_id, query_option, use_geometry, include_related, where_clause, server_gen)
                    VALUES (\(stored.id), \(layer.layerId), \(layer.queryOption.rawValue), \(layer.useGeometry), \(layer.includeRelated),
                        \(layer.whereClause), \(layer.serverGen))
                    """)
            }
            if service.isVersioned { try Self.createReplicaVersion(of: stored, service: service.name, connection: connection, now: now) }
            if let origin {
                try connection.query(
                    """
                    INSERT INTO outpost_replica_origins(replica_id, origin_id) VALUES (\(stored.id), \(origin))
                    ON CONFLICT (replica_id) DO UPDATE SET origin_id = EXCLUDED.origin_id
                    """)
            }
            return stored
        }
    }

    public func unregisterReplica(service: String, id: String) throws -> Bool {
        let name = try serviceName(service)
        guard let canonical = GlobalID.normalize(id) else { return false }
        let now = clock.milliseconds()
        return try pool.transaction { connection in
            let removed = try connection.query("DELETE FROM outpost_replicas WHERE replica_id = \(canonical) AND service = \(name)").affectedRows > 0
            if removed { try Self.recordUnregistered([canonical], service: name, at: now, connection: connection) }
            // Its edits were posted by each sync: the version holds nothing more to post.
            try connection.query("DELETE FROM outpost_versions WHERE replica_id = \(canonical) AND service = \(name)")
            return removed
        }
    }

    public func unregisterAllReplicas(service: String) throws -> Int {
        let name = try serviceName(service)
        let now = clock.milliseconds()
        return try pool.transaction { connection in
            let ids = try connection.query("DELETE FROM outpost_replicas WHERE service = \(name) RETURNING replica_id").rows.compactMap {
                $0.string(0)
            }
            try Self.recordUnregistered(ids, service: name, at: now, connection: connection)
            try connection.query("DELETE FROM outpost_versions WHERE service = \(name) AND replica_id IS NOT NULL")
            return ids.count
        }
    }

    /// The version a replica of a versioned service syncs through (`<owner>.<replica name>_<id
    /// prefix>`, as on SpatiaLite), based on the replica's tick.
    static func createReplicaVersion(of replica: ReplicaDefinition, service: String, connection: PostgresConnection, now: Int64) throws {
        let hex = replica.id.filter(\.isHexDigit).prefix(8).lowercased()
        try connection.query(
            """
            INSERT INTO outpost_versions(service, name, parent, replica_id, access, description, created_at, guid, base_tick)
            VALUES (\(service), \("outpost.\(replica.name)_\(hex)"), \(DataVersion.defaultName), \(replica.id), 'private',
                \("Version of replica \(replica.id)"), \(now), \(GlobalID.make()), \(replica.replicaServerGen))
            ON CONFLICT DO NOTHING
            """)
    }

    static func recordUnregistered(_ ids: [String], service: String, at now: Int64, connection: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO outpost_unregistered_replicas(replica_id, service, unregistered_at)
            SELECT id, \(service), \(now) FROM unnest(\(PostgresTextArray(ids))::text[]) AS id ON CONFLICT DO NOTHING
            """)
    }

    /// Registered names plus names reserved by requests in any process; the name returned is
    /// held (a row) until released or registered.
    public func reserveReplicaName(_ planned: (_ taken: [String]) throws -> String, service: String) throws -> String {
        let name = try serviceName(service)
        return try pool.transaction { connection in
            try Self.lockNames(of: name, connection: connection)
            try connection.query("DELETE FROM outpost_replica_name_reservations WHERE expires_at <= clock_timestamp()")
            let chosen = try planned(try Self.takenNames(of: name, connection: connection))
            try connection.query(
                "INSERT INTO outpost_replica_name_reservations(service, name, expires_at) VALUES (\(name), \(chosen), clock_timestamp() + interval '1 hour')"
            )
            return chosen
        }
    }

    public func releaseReplicaName(_ name: String, service: String) {
        guard let serviceName = try? serviceName(service) else { return }
        _ = try? pool.query("DELETE FROM outpost_replica_name_reservations WHERE service = \(serviceName) AND lower(name) = lower(\(name))")
    }

    public func registrationFacts(service: String, referenceId: String?) throws -> RegistrationFacts {
        let definition = try held.load().existingService(named: service).definition
        guard let referenceId else {
            return RegistrationFacts(serviceIsVersioned: definition.isVersioned, referenceId: nil, originId: nil, unregistered: [])
        }
        let canonical = GlobalID.normalize(referenceId) ?? referenceId
        return try pool.transaction(.repeatableRead) { connection in
            let origin = try connection.query("SELECT origin_id FROM outpost_replica_origins WHERE replica_id = \(canonical)").first?.string(0)
            let unregistered = Set(
                try connection.query(
                    "SELECT replica_id FROM outpost_unregistered_replicas WHERE replica_id = ANY(\(PostgresTextArray([canonical, origin ?? canonical])))"
                ).rows.compactMap { $0.string(0) })
            return RegistrationFacts(
                serviceIsVersioned: definition.isVersioned, referenceId: canonical, originId: origin ?? canonical, unregistered: unregistered)
        }
    }
}
