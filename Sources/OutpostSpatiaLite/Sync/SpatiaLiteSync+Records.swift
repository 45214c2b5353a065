import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// Replica data as records for a receiver, shared by replica documents and the snapshot
/// layers of a sync.
extension SpatiaLiteSync {
    /// Refills `record` from a row, reusing its storage: a receiver does not keep records, so
    /// a million rows cost no million arrays.
    static func fill(_ record: inout FeatureRecord, _ values: [DatabaseValue], geometry: OGCGeometry?) {
        record.attributes.removeAll(keepingCapacity: true)
        for value in values { record.attributes.append(SpatiaLiteFeatures.jsonValue(value)) }
        record.geometry = geometry
    }

    /// A layer's full data: `beginLayer`, every feature, its attachments when asked, `endLayer`.
    static func readLayerData(
        _ selection: ReplicaLayerSelection, spatialReference: SpatialReference, withAttachments: Bool,
        directory: String, db: Database, into receiver: some ReplicaDataReceiver
    ) throws -> ReplicaExportCounts {
        var counts = ReplicaExportCounts()
        let layer = selection.layer.definition
        try receiver.beginLayer(layer, spatialReference: spatialReference, withAttachments: withAttachments)
        var record = FeatureRecord(attributes: [], geometry: nil)
        record.attributes.reserveCapacity(layer.fields.count)
        try forEachFeature(selection, spatialReference: spatialReference, db: db) { values, geometry in
            fill(&record, values, geometry: geometry)
            try receiver.feature(record, of: layer)
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
