import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync: SyncStore {
    /// Runs `body` in the one REPEATABLE READ transaction a sync's answer is read in: its
    /// snapshot becomes the tick handed out (`ChangeFeedRead`, docs/postgres.md, Generations).
    public func readChangeFeed<T: Sendable>(_ replica: ReplicaDefinition, _ body: (any ChangeFeedRead) throws -> T) throws -> T {
        let service = try held.load().existingService(named: replica.serviceName)
        let files = edits.files
        // Only a replica that will register holds its tick while being created (compaction
        // keeps what it needs); a read for no replica (an export without sync, a locator's
        // refresh probe) holds nothing.
        let holder = replica.isRegistered && !replica.id.isEmpty ? replica.id : nil
        return try pool.transaction(.repeatableRead) { connection in
            let generation = try GenerationTicks.take(replica: holder, on: connection).tick
            return try body(PostgresChangeFeed(connection: connection, replica: replica, service: service, files: files, generation: generation))
        }
    }
}

/// A sync's read on PostgreSQL: selections over the layer tables, changes by transaction ids
/// read against the snapshot a generation names (`PostgresChangeReader`).
struct PostgresChangeFeed: ChangeFeedRead {
    let connection: PostgresConnection
    let replica: ReplicaDefinition
    let service: StoredService
    let files: AttachmentFiles
    let generation: Int64

    private func selection(_ replicaLayer: ReplicaLayer) throws -> PostgresSync.Selection {
        try PostgresSync.selection(for: replicaLayer, of: replica, service: service, connection: connection)
    }

    func forEachFeature(of replicaLayer: ReplicaLayer, _ body: (FeatureRecord) throws -> Void) throws {
        try PostgresSync.forEachFeature(try selection(replicaLayer), spatialReference: replica.spatialReference, connection: connection, body)
    }

    func forEachAttachment(of replicaLayer: ReplicaLayer, _ body: (AttachmentRecord) throws -> Void) throws {
        try PostgresSync.forEachAttachment(try selection(replicaLayer), files: files, connection: connection, body)
    }

    func changes(of replicaLayer: ReplicaLayer, since generation: Int64) throws -> any LayerChangeFeed {
        let since = try PostgresSync.snapshot(ofGeneration: generation, connection: connection)
        let reader = try PostgresChangeReader(selection: try selection(replicaLayer), since: since, replica: replica, connection: connection)
        let (connection, files) = (self.connection, self.files)
        return LayerChanges(
            features: { pass, body in try reader.forEachRow(pass, connection: connection, body) },
            deletedFeatures: { try reader.deletes(connection: connection) },
            attachments: { pass, body in try reader.forEachAttachment(pass, files: files, connection: connection, body) },
            deletedAttachments: { try reader.deletedAttachments(connection: connection) })
    }

    func spatialReferenceDefinitions(_ codes: [Int]) throws -> [SpatialReferenceDefinition] {
        try PostgresSync.geoPackageSpatialReferences(codes, connection: connection)
    }
}
