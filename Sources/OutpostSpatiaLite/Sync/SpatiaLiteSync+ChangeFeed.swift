import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension SpatiaLiteSync {
    /// Runs `body` in the one read transaction a sync's answer is read in: the generation
    /// handed out is the newest committed when it began (`ChangeFeedRead`).
    public func readChangeFeed<T: Sendable>(_ replica: ReplicaDefinition, _ body: (any ChangeFeedRead) throws -> T) throws -> T {
        let service = try self.service(named: replica.serviceName)
        let directory = self.directory
        return try pool.read { db in
            try body(
                SpatiaLiteChangeFeed(
                    db: db, replica: replica, service: service, directory: directory, generation: try SpatiaLiteEdits.newestGeneration(db)))
        }
    }
}

/// A sync's read on SpatiaLite: selections over the layer tables, changes by generation
/// columns (`LayerChangeReader`).
struct SpatiaLiteChangeFeed: ChangeFeedRead {
    let db: Database
    let replica: ReplicaDefinition
    let service: StoredService
    let directory: String
    let generation: Int64

    func forEachFeature(of replicaLayer: ReplicaLayer, _ body: (FeatureRecord) throws -> Void) throws {
        let selection = try SpatiaLiteSync.selection(for: replicaLayer, of: replica, service: service, db: db)
        var record = FeatureRecord(attributes: [], geometry: nil)
        record.attributes.reserveCapacity(selection.layer.definition.fields.count)
        try SpatiaLiteSync.forEachFeature(selection, spatialReference: replica.spatialReference, db: db) { values, geometry in
            SpatiaLiteSync.fill(&record, values, geometry: geometry)
            try body(record)
        }
    }

    func forEachAttachment(of replicaLayer: ReplicaLayer, _ body: (AttachmentRecord) throws -> Void) throws {
        let selection = try SpatiaLiteSync.selection(for: replicaLayer, of: replica, service: service, db: db)
        try SpatiaLiteSync.forEachAttachment(selection, directory: directory, db: db) { try body($0.record) }
    }

    func changes(of replicaLayer: ReplicaLayer, since generation: Int64) throws -> any LayerChangeFeed {
        // The change feed walks the generation index, not the R-tree.
        let selection = try SpatiaLiteSync.selection(for: replicaLayer, of: replica, service: service, useIndex: false, db: db)
        var reader = LayerChangeReader(selection: selection, since: generation, replica: replica)
        let (db, directory) = (self.db, self.directory)
        var record = FeatureRecord(attributes: [], geometry: nil)
        record.attributes.reserveCapacity(selection.layer.definition.fields.count)
        return LayerChanges(
            features: { pass, body in
                // Records refilled in place: a receiver does not keep them.
                try reader.forEachRow(pass, db: db) { values, geometry in
                    SpatiaLiteSync.fill(&record, values, geometry: geometry)
                    try body(record)
                }
            },
            deletedFeatures: { try reader.deletes(db: db) },
            attachments: { pass, body in try reader.forEachAttachment(pass, directory: directory, db: db) { try body($0.record) } },
            deletedAttachments: { try reader.deletedAttachments(db: db) })
    }

    func spatialReferenceDefinitions(_ codes: [Int]) throws -> [SpatialReferenceDefinition] {
        try SpatiaLiteSync.geoPackageSpatialReferences(codes, db: db)
    }
}
