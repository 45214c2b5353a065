import Foundation
import GRDB
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

extension SpatiaLiteSync {
    /// A replica as a GeoPackage, its rows copied inside SQLite: the store is attached to the
    /// file's connection (`ReplicaFileWriter.Source`) and each layer is one `INSERT … SELECT`
    /// with SpatiaLite's `AsGPB`, so no row passes through Swift. Everything is read in the
    /// file's one transaction, whose snapshot of the store begins with the generation read:
    /// the rows and attachments are exactly as of the generation the replica is stamped with.
    func exportGeoPackage(
        _ plan: ReplicaPlan, service: StoredService, path: String, serviceURL: String, serviceJSON: JSONValue,
        layerJSON: [Int: JSONValue], phase: (ServerJobStatus) -> Void
    ) throws -> (ReplicaDefinition, ReplicaExportCounts) {
        var definition = plan.definition
        let systems = try pool.read { db in try Self.geoPackageSpatialReferences([definition.spatialReference.epsg, 4326], db: db) }
        let writer = try ReplicaFileWriter(
            path: path, replica: definition, serviceURL: serviceURL, serviceJSON: serviceJSON, spatialReferences: systems,
            source: ReplicaFileWriter.Source(path: database.path) { db in try SpatiaLite.attach(to: db.sqliteConnection!) })
        do {
            let selections = try writer.inDatabase { db in
                definition.setGeneration(try SpatiaLiteEdits.newestGeneration(db))
                return try definition.layers.map { try Self.selection(for: $0, of: definition, service: service, db: db) }
            }
            try writer.stampGeneration(definition.replicaServerGen)
            phase(.exportingData)
            var counts = ReplicaExportCounts()
            for selection in selections {
                let layer = selection.layer
                let layerWriter = try writer.beginLayer(layer.definition, replicaLayer: selection.replicaLayer, layerJSON: layerJSON)
                try layerWriter.copyFeatures(
                    columns: Self.geoPackageColumns(layer, spatialReference: definition.spatialReference),
                    rest: "\(selection.from) ORDER BY t.\(layer.definition.objectIdField.quotedDatabaseIdentifier)",
                    arguments: selection.arguments)
                if layerWriter.attachmentTable != nil && definition.returnAttachments {
                    try writer.inDatabase { db in
                        try Self.forEachAttachment(selection, directory: directory, db: db) { try $0.write(to: layerWriter, db: db) }
                    }
                }
                try layerWriter.finish()
                counts.features += layerWriter.featureCount
                counts.attachments += layerWriter.attachmentCount
            }
            try writer.finish()
            return (definition, counts)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// `featureColumns` with the geometry as GeoPackage binary (header with envelope).
    static func geoPackageColumns(_ layer: StoredLayer, spatialReference: SpatialReference) -> [String] {
        var columns = featureColumns(layer, spatialReference: spatialReference)
        if layer.isSpatial { columns[columns.count - 1] = "AsGPB(\(columns[columns.count - 1]))" }
        return columns
    }
}
