import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// A JSON document written in pieces of about a megabyte (replica and sync documents can be
/// far larger than memory should hold).
struct JSONSink {
    var w = JSONWriter(reserve: 1 << 20)
    let write: ([UInt8]) throws -> Void

    init(write: @escaping ([UInt8]) throws -> Void) { self.write = write }

    mutating func flushIfLarge() throws {
        if w.bytes.count >= 1 << 20 { try write(w.takeBytes()) }
    }

    mutating func finish() throws { try write(w.takeBytes()) }
}

/// The JSON of replica data, shared by `createReplica` documents and sync answers.
extension SpatiaLiteSync {
    /// One feature: attributes aligned with the layer's fields, geometry in Esri JSON.
    static func writeFeature(_ values: [DatabaseValue], geometry: OGCGeometry?, layer: LayerDefinition, to w: inout JSONWriter) {
        w.beginObject()
        w.key("attributes")
        w.beginObject()
        for (field, value) in zip(layer.fields, values) { w.member(field.name, SpatiaLiteFeatures.jsonValue(value)) }
        w.endObject()
        if let geometry {
            w.key("geometry")
            Geometry(ogc: geometry, layerType: layer.geometryType).writeEsriJSON(to: &w)
        }
        w.endObject()
    }

    /// One attachment: by `url` when `attachmentURL` names one, else with base64 `data`.
    static func writeAttachment(
        _ attachment: ExportedAttachment, layerId: Int, attachmentURL: ((Int, Int64, Int64) -> String)?,
        to w: inout JSONWriter
    ) throws {
        w.beginObject()
        w.member("attachmentId", attachment.id)
        w.member("globalId", attachment.globalId)
        w.member("parentGlobalId", attachment.parentGlobalId)
        w.member("parentObjectId", attachment.parentObjectId)
        w.member("contentType", attachment.contentType)
        w.member("size", attachment.size)
        w.member("name", attachment.name)
        if let attachmentURL {
            w.member("url", attachmentURL(layerId, attachment.parentObjectId, attachment.id))
        } else {
            w.member("data", try attachment.data().base64EncodedString())
        }
        w.endObject()
    }

    /// A layer's full data, `{"id", "geometryType", "spatialReference", "features": […],
    /// "attachments": […]}`, as `createReplica` and snapshot syncs send it.
    static func writeLayerData(
        _ selection: ReplicaLayerSelection, spatialReference: SpatialReference, withAttachments: Bool,
        directory: String, attachmentURL: ((Int, Int64, Int64) -> String)?, db: Database,
        to sink: inout JSONSink
    ) throws -> ReplicaExportCounts {
        var counts = ReplicaExportCounts()
        let layer = selection.layer.definition
        sink.w.beginObject()
        sink.w.member("id", layer.id)
        if let geometryType = layer.geometryType {
            sink.w.member("geometryType", geometryType.rawValue)
            sink.w.member("spatialReference", spatialReference.json)
        }
        sink.w.key("features")
        sink.w.beginArray()
        try forEachFeature(selection, spatialReference: spatialReference, db: db) { values, geometry in
            writeFeature(values, geometry: geometry, layer: layer, to: &sink.w)
            counts.features += 1
            try sink.flushIfLarge()
        }
        sink.w.endArray()
        if withAttachments {
            sink.w.key("attachments")
            sink.w.beginArray()
            try forEachAttachment(selection, directory: directory, db: db) { attachment in
                try writeAttachment(attachment, layerId: layer.id, attachmentURL: attachmentURL, to: &sink.w)
                counts.attachments += 1
                try sink.flushIfLarge()
            }
            sink.w.endArray()
        }
        sink.w.endObject()
        return counts
    }
}
