import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

extension PostgresSync {
    /// Takes one consistent snapshot of the replica's rows and writes it to `output`; the
    /// generation is the tick of that snapshot, so an edit committed meanwhile is either in
    /// the export or in the next sync — never in both, never in neither.
    public func exportReplica(
        _ plan: ReplicaPlan, to output: ReplicaOutput, serviceURL: String, serviceJSON: JSONValue,
        layerJSON: [Int: JSONValue], phase: (ServerJobStatus) -> Void = { _ in }
    ) throws -> (ReplicaDefinition, ReplicaExportCounts) {
        let service = try held.load().existingService(named: plan.definition.serviceName)
        return try pool.transaction(.repeatableRead) { connection in
            var definition = plan.definition
            // The tick is this transaction's snapshot: what the export reads, exactly. Set
            // before the selections are made, so each layer's file records carry it.
            definition.setGeneration(try GenerationTicks.take(replica: definition.id, on: connection).tick)
            let selections = try definition.layers.map { try Self.selection(for: $0, of: definition, service: service, connection: connection) }
            phase(.exportingData)
            var counts = ReplicaExportCounts()
            switch output {
            case .geoPackage(let path):
                let systems = try Self.geoPackageSpatialReferences([definition.spatialReference.epsg, 4326], connection: connection)
                let writer = try ReplicaFileWriter(
                    path: path, replica: definition, serviceURL: serviceURL, serviceJSON: serviceJSON, spatialReferences: systems)
                do {
                    for selection in selections {
                        let layer = selection.layer
                        let layerWriter = try writer.beginLayer(layer.definition, replicaLayer: selection.replicaLayer, layerJSON: layerJSON)
                        try layerWriter.insertAll { insert in
                            try Self.forEachFeature(selection, spatialReference: definition.spatialReference, connection: connection) { record in
                                try insert(Self.databaseValues(record, layer: layer.definition), record.geometry)
                            }
                        }
                        if layerWriter.attachmentTable != nil && definition.returnAttachments {
                            try Self.forEachAttachment(selection, files: edits.files, connection: connection) { try $0.write(to: layerWriter) }
                        }
                        try layerWriter.finish()
                        counts.features += layerWriter.featureCount
                        counts.attachments += layerWriter.attachmentCount
                    }
                    try writer.finish()
                } catch {
                    writer.abandon()
                    throw error
                }
            case .records(let receiver):
                try receiver.beginReplica(definition, deliversByURL: plan.deliversByURL)
                for selection in selections {
                    let layerCounts = try Self.readLayerData(
                        selection, spatialReference: definition.spatialReference,
                        withAttachments: selection.layer.definition.hasAttachments && definition.returnAttachments, files: edits.files,
                        connection: connection, into: receiver)
                    counts.features += layerCounts.features
                    counts.attachments += layerCounts.attachments
                }
                try receiver.endReplica()
            }
            return (definition, counts)
        }
    }

    /// A layer's full data for a receiver: `beginLayer`, every feature, its attachments when
    /// asked, `endLayer`.
    static func readLayerData(
        _ selection: Selection, spatialReference: SpatialReference, withAttachments: Bool, files: AttachmentFiles,
        connection: PostgresConnection, into receiver: some ReplicaDataReceiver
    ) throws -> ReplicaExportCounts {
        let layer = selection.layer.definition
        try receiver.beginLayer(layer, spatialReference: spatialReference, withAttachments: withAttachments)
        var counts = ReplicaExportCounts()
        try forEachFeature(selection, spatialReference: spatialReference, connection: connection) { record in
            try receiver.feature(record, of: layer)
            counts.features += 1
        }
        if withAttachments {
            try forEachAttachment(selection, files: files, connection: connection) { attachment in
                try receiver.attachment(attachment, of: layer)
                counts.attachments += 1
            }
        }
        try receiver.endLayer()
        return counts
    }

    /// A record's values as the replica file writer takes them (as SpatiaLite stores them;
    /// blobs as bytes, not the base64 of the JSON answers).
    static func databaseValues(_ record: FeatureRecord, layer: LayerDefinition) -> [DatabaseValue] {
        zip(record.attributes, layer.fields).map { value, field in
            switch value {
            case .null: .null
            case .int(let integer): integer.databaseValue
            case .double(let double): double.databaseValue
            case .bool(let bool): bool.databaseValue
            case .string(let text):
                field.type == .blob ? (Data(base64Encoded: text) ?? Data()).databaseValue : text.databaseValue
            default: value.jsonText.databaseValue
            }
        }
    }

    /// The spatial reference systems a GeoPackage needs, from PostGIS's `spatial_ref_sys`.
    static func geoPackageSpatialReferences(_ codes: [Int], connection: PostgresConnection) throws -> [GeoPackageSpatialReference] {
        try Set(codes).compactMap { code in
            guard let row = try connection.query("SELECT auth_name, auth_srid, srtext FROM spatial_ref_sys WHERE srid = \(code)").first else {
                return nil
            }
            let wkt = row.string(2) ?? ""
            let organization = (row.string(0) ?? "EPSG").uppercased()
            // The WKT's own name (`GEOGCS["WGS 84", …`), as SpatiaLite's table gives it.
            let parts = wkt.split(separator: "\"", maxSplits: 2)
            let name = parts.count > 1 ? String(parts[1]) : "\(organization):\(code)"
            return GeoPackageSpatialReference(
                srsId: code, name: name, organization: organization, code: try row.int(1) ?? code,
                definition: wkt.isEmpty ? "undefined" : wkt)
        }
    }
}
