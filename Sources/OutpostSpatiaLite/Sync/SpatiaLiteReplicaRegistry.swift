import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// The replica registry in the embedded database (`ReplicaRegistry`).
public struct SpatiaLiteReplicaRegistry: ReplicaRegistry, StoreRepository {
    public let database: StoreDatabase

    /// The registered replicas of a service, oldest first.
    public func replicas(service: String) throws -> [ReplicaDefinition] {
        let name = try self.service(named: service).definition.name
        return try pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT replica_id FROM outpost_replicas WHERE service = ? ORDER BY creation_date, name",
                arguments: [name]
            ).compactMap { try Self.replica(id: $0, db: db) }
        }
    }

    /// A registered replica of a service by id (any GUID spelling), or nil.
    public func replica(service: String, id: String) throws -> ReplicaDefinition? {
        let name = try self.service(named: service).definition.name
        guard let canonical = GlobalID.normalize(id) else { return nil }
        return try pool.read { db in
            guard let replica = try Self.replica(id: canonical, db: db),
                ServiceDefinition.normalizedName(replica.serviceName) == ServiceDefinition.normalizedName(name)
            else {
                return nil
            }
            return replica
        }
    }

    static func replica(id: String, db: Database) throws -> ReplicaDefinition? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outpost_replicas WHERE replica_id = ?", arguments: [id]) else { return nil }
        let layers = try Row.fetchAll(db, sql: "SELECT * FROM outpost_replica_layers WHERE replica_id = ? ORDER BY layer_id", arguments: [id]).map {
            layer in
            ReplicaLayer(
                layerId: layer["layer_id"], queryOption: ReplicaQueryOption(lenient: layer["query_option"]) ?? .useFilter,
                useGeometry: layer["use_geometry"], includeRelated: layer["include_related"],
                whereClause: layer["where_clause"], serverGen: layer["server_gen"])
        }
        var geometry: Geometry?
        if let text: String = row["geometry"], let json = try? JSONParser.parse(text) {
            geometry = try? Geometry.fromEsriJSON(json).0
        }
        return ReplicaDefinition(
            id: row["replica_id"], name: row["name"], serviceName: row["service"], owner: row["owner"],
            syncModel: SyncModel(lenient: row["sync_model"]) ?? .perLayer,
            targetType: ReplicaTargetType(lenient: row["target_type"]) ?? .client,
            syncDirection: SyncDirection(lenient: row["sync_direction"]) ?? .bidirectional,
            attachmentsSyncDirection: AttachmentsSyncDirection(lenient: row["attachments_sync_direction"]) ?? .none,
            returnAttachments: row["return_attachments"], geometry: geometry,
            geometrySpatialReference: SpatialReference(wkid: row["geometry_wkid"]),
            spatialReference: SpatialReference(wkid: row["spatial_reference"]), layers: layers,
            replicaServerGen: row["replica_server_gen"], creationDate: row["creation_date"],
            lastSyncDate: row["last_sync_date"], syncDataOptions: row["sync_data_options"])
    }

    /// Registers a replica whose snapshot is complete. Names stay unique per service: a
    /// name taken meanwhile gets the next free suffix, and the stored definition is returned.
    /// `origin`: for a registered copy, the first replica of its line, kept in the same
    /// transaction (the registration rules read it).
    @discardableResult
    public func registerReplica(_ definition: ReplicaDefinition, copiedFrom origin: String?) throws -> ReplicaDefinition {
        precondition(definition.isRegistered, "syncModel=none exports are not registered")
        let versioned = try service(named: definition.serviceName).definition.isVersioned
        return try pool.write { db in
            // A service deleted while the snapshot was written has nothing left to sync with.
            guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_services WHERE name = ?", arguments: [definition.serviceName]) == true
            else { throw StoreError.serviceNotFound(definition.serviceName) }
            var stored = definition
            let taken = try String.fetchAll(db, sql: "SELECT name FROM outpost_replicas WHERE service = ?", arguments: [definition.serviceName])
            stored.name = ReplicaName.unique(definition.name, taken: taken)
            let geometryText = definition.geometry?.esriJSONText
            try db.execute(
                sql: """
                    INSERT INTO outpost_replicas(replica_id, service, name, owner, sync_model, target_type, sync_direction,
                        attachments_sync_direction, return_attachments, geometry, geometry_wkid, spatial_reference,
                        replica_server_gen, creation_date, last_sync_date, sync_data_options)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    stored.id, stored.serviceName, stored.name, stored.owner, stored.syncModel.rawValue,
                    stored.targetType.rawValue, stored.syncDirection.rawValue, stored.attachmentsSyncDirection.rawValue,
                    stored.returnAttachments, geometryText, stored.geometrySpatialReference.wkid,
                    stored.spatialReference.wkid, stored.replicaServerGen, stored.creationDate, stored.lastSyncDate,
                    stored.syncDataOptions,
                ])
            for layer in stored.layers {
                try db.execute(
                    sql: """
                        INSERT INTO outpost_replica_layers(replica_id, layer_id, query_option, use_geometry, include_related, where_clause, server_gen)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        stored.id, layer.layerId, layer.queryOption.rawValue, layer.useGeometry, layer.includeRelated,
                        layer.whereClause, layer.serverGen,
                    ])
            }
            if versioned {
                try SpatiaLiteBackend.createReplicaVersion(
                    service: stored.serviceName, replicaId: stored.id, replicaName: stored.name, db: db,
                    now: clock.milliseconds())
            }
            if let origin { try Self.recordOrigin(of: stored.id, originId: origin, db: db) }
            return stored
        }
    }

    /// Unregisters one replica; false when the service has no replica with that id.
    public func unregisterReplica(service: String, id: String) throws -> Bool {
        let name = try self.service(named: service).definition.name
        guard let canonical = GlobalID.normalize(id) else { return false }
        let now = clock.milliseconds()
        return try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_replicas WHERE replica_id = ? AND service = ?", arguments: [canonical, name])
            let removed = db.changesCount > 0
            if removed { try Self.recordUnregistered([canonical], service: name, at: now, db: db) }
            // Its edits were posted by each sync: the version holds nothing more to post.
            try db.execute(sql: "DELETE FROM outpost_versions WHERE replica_id = ? AND service = ?", arguments: [canonical, name])
            return removed
        }
    }

    /// Unregisters every replica of a service (`replicaID=*`); returns how many.
    public func unregisterAllReplicas(service: String) throws -> Int {
        let name = try self.service(named: service).definition.name
        let now = clock.milliseconds()
        return try pool.write { db in
            let ids = try String.fetchAll(db, sql: "SELECT replica_id FROM outpost_replicas WHERE service = ?", arguments: [name])
            try Self.recordUnregistered(ids, service: name, at: now, db: db)
            try db.execute(sql: "DELETE FROM outpost_replicas WHERE service = ?", arguments: [name])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM outpost_versions WHERE service = ? AND replica_id IS NOT NULL", arguments: [name])
            return removed
        }
    }

    /// Names of registered replicas plus names being created right now, so two concurrent
    /// requests for one name get different names.
    public func reserveReplicaName(_ planned: (_ taken: [String]) throws -> String, service: String) throws -> String {
        let serviceKey = ServiceDefinition.normalizedName(try self.service(named: service).definition.name)
        let registered = try pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM outpost_replicas WHERE service = ?", arguments: [service])
        }
        return try database.replicaNameReservations.withLock { reservations in
            let inFlight = reservations.filter { $0.service == serviceKey }.map(\.name)
            let name = try planned(registered + inFlight)
            reservations.append((serviceKey, name))
            return name
        }
    }

    public func releaseReplicaName(_ name: String, service: String) {
        let serviceKey = ServiceDefinition.normalizedName(service)
        database.replicaNameReservations.withLock { reservations in
            if let index = reservations.firstIndex(where: { $0.service == serviceKey && $0.name.lowercased() == name.lowercased() }) {
                reservations.remove(at: index)
            }
        }
    }

    /// Every registered replica of every service.
    public func allReplicas() throws -> [ReplicaDefinition] {
        try catalog().services.flatMap { try replicas(service: $0.definition.name) }
    }
}
