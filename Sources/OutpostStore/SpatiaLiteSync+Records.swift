import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// Replica data as records for a receiver, shared by replica documents and the snapshot
/// layers of a sync.
extension SpatiaLiteSync {
    /// A feature row as a record: values as JSON values, in the layer's field order.
    static func record(_ values: [DatabaseValue], geometry: OGCGeometry?) -> FeatureRecord {
        FeatureRecord(attributes: values.map(SpatiaLiteFeatures.jsonValue), geometry: geometry)
    }

    /// A layer's full data: `beginLayer`, every feature, its attachments when asked, `endLayer`.
    static func readLayerData(
        _ selection: ReplicaLayerSelection, spatialReference: SpatialReference, withAttachments: Bool,
        directory: String, db: Database, into receiver: some ReplicaDataReceiver
    ) throws -> ReplicaExportCounts {
        var counts = ReplicaExportCounts()
        let layer = selection.layer.definition
        try receiver.beginLayer(layer, spatialReference: spatialReference, withAttachments: withAttachments)
        try forEachFeature(selection, spatialReference: spatialReference, db: db) { values, geometry in
            try receiver.feature(record(values, geometry: geometry), of: layer)
            counts.features += 1
        }
        if withAttachments {
            try forEachAttachment(selection, directory: directory, db: db) { attachment in
                try receiver.attachment(attachment.record, of: layer)
                counts.attachments += 1
            }
        }
        try receiver.endLayer()
        return counts
    }
}

extension SpatiaLiteSync.ExportedAttachment {
    /// The attachment as a record: its file, or its inline bytes.
    var record: AttachmentRecord {
        AttachmentRecord(
            id: id, globalId: globalId, parentGlobalId: parentGlobalId, parentObjectId: parentObjectId, name: name,
            contentType: contentType, keywords: keywords, size: size,
            content: path.map { .file($0) } ?? .bytes([UInt8](bytes ?? Data())))
    }
}
