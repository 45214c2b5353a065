import Foundation
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// Writes replica data as ArcGIS JSON while storage reads it: the `createReplica` document
/// (§4.6) and the `synchronizeReplica` answer (§5.6), handed to `write` in pieces of about a
/// megabyte (both can be far larger than memory should hold).
public final class ReplicaJSONWriter: ChangeFeedReceiver {
    private var w = JSONWriter(reserve: 1 << 20)
    private let write: ([UInt8]) throws -> Void
    private let attachmentURL: ((Int, Int64, Int64) -> String)?
    private let returnIdsForAdds: Bool
    /// The array open in the current `adds`/`updates` part, and whether attachments follow.
    private var pass: DownloadChange?
    private var layerAnswersAttachments = false
    private var layerResults: LayerEditResults?
    private var layerWantsAttachments = false
    private var layerInAttachments = false

    /// `attachmentURL(layer, objectId, attachmentId)` names attachments sent by URL; nil
    /// embeds their bytes as base64. Without `returnIdsForAdds`, add results carry no object id.
    public init(write: @escaping ([UInt8]) throws -> Void, attachmentURL: ((Int, Int64, Int64) -> String)?, returnIdsForAdds: Bool = true) {
        self.write = write
        self.attachmentURL = attachmentURL
        self.returnIdsForAdds = returnIdsForAdds
    }

    private func flushIfLarge() throws {
        if w.bytes.count >= 1 << 20 { try write(w.takeBytes()) }
    }

    // MARK: Replica documents and snapshot layers

    public func beginReplica(_ replica: ReplicaDefinition, deliversByURL: Bool) throws {
        w.beginObject()
        w.member("replicaName", replica.name)
        w.member("replicaID", replica.id)
        var generations = JSONObject()
        replica.generationMembers(into: &generations)
        for (key, value) in generations { w.member(key, value) }
        w.member("transportType", deliversByURL ? TransportType.url.rawValue : TransportType.embedded.rawValue)
        w.member("responseType", ReplicaResponseType.data.rawValue)
        w.member("syncModel", replica.syncModel.rawValue)
        w.member("targetType", replica.targetType.rawValue)
        w.key("layers")
        w.beginArray()
    }

    public func beginLayer(_ layer: LayerDefinition, spatialReference: SpatialReference, withAttachments: Bool) throws {
        w.beginObject()
        w.member("id", layer.id)
        if let geometryType = layer.geometryType {
            w.member("geometryType", geometryType.rawValue)
            w.member("spatialReference", spatialReference.json)
        }
        w.key("features")
        w.beginArray()
        layerWantsAttachments = withAttachments
        layerInAttachments = false
    }

    public func feature(_ feature: FeatureRecord, of layer: LayerDefinition) throws {
        Self.writeFeature(feature, of: layer, to: &w)
        try flushIfLarge()
    }

    public func attachment(_ attachment: AttachmentRecord, of layer: LayerDefinition) throws {
        if !layerInAttachments {
            w.endArray()
            w.key("attachments")
            w.beginArray()
            layerInAttachments = true
        }
        try Self.writeAttachment(attachment, layerId: layer.id, attachmentURL: attachmentURL, to: &w)
        try flushIfLarge()
    }

    public func endLayer() throws {
        w.endArray()
        if layerWantsAttachments && !layerInAttachments {
            w.key("attachments")
            w.beginArray()
            w.endArray()
        }
        w.endObject()
    }

    public func endReplica() throws {
        w.endArray()
        w.endObject()
        try write(w.takeBytes())
    }

    // MARK: Sync answers

    public func beginAnswer(_ replica: ReplicaDefinition, deliversByURL: Bool, generations: ReplicaGenerations) throws {
        w.beginObject()
        w.member("replicaName", replica.name)
        w.member("replicaID", replica.id)
        w.member("transportType", deliversByURL ? TransportType.url.rawValue : TransportType.embedded.rawValue)
        var members = JSONObject()
        generations.write(into: &members)
        for (key, value) in members { w.member(key, value) }
        w.key("edits")
        w.beginArray()
    }

    public func beginChanges(_ layer: LayerDefinition, results: LayerEditResults?, answersAttachments: Bool) throws {
        w.beginObject()
        w.member("id", layer.id)
        let adds = (results?.addResults ?? []).map { result -> JSONValue in
            guard !returnIdsForAdds, case .object(var object) = result.json else { return result.json }
            object["objectId"] = nil
            return .object(object)
        }
        w.member("addResults", .array(adds))
        w.member("updateResults", .array((results?.updateResults ?? []).map(\.json)))
        w.member("deleteResults", .array((results?.deleteResults ?? []).map(\.json)))
        w.key("features")
        w.beginObject()
        pass = nil
        layerResults = results
        layerAnswersAttachments = answersAttachments
    }

    /// Opens the `adds` or `updates` array `change` goes in (`adds` always comes first).
    private func enter(_ change: DownloadChange) {
        guard pass != change else { return }
        if pass == nil {
            w.key("adds")
            w.beginArray()
            pass = .add
        }
        if change == .update && pass == .add {
            w.endArray()
            w.key("updates")
            w.beginArray()
            pass = .update
        }
    }

    /// Closes the part's arrays (empty ones written) and writes its `deleteIds`.
    private func close(deleting globalIds: [String]) {
        enter(.update)
        w.endArray()
        w.member("deleteIds", .array(globalIds.map { .string($0) }))
        pass = nil
    }

    public func changedFeature(_ change: DownloadChange, _ feature: FeatureRecord, of layer: LayerDefinition) throws {
        enter(change)
        Self.writeFeature(feature, of: layer, to: &w)
        try flushIfLarge()
    }

    public func deletedFeatures(_ globalIds: [String]) throws {
        close(deleting: globalIds)
        w.endObject()
        guard layerAnswersAttachments else { return }
        w.key("attachments")
        w.beginObject()
        if let results = layerResults?.attachmentResults {
            w.member("addResults", .array(results.adds.map(\.json)))
            w.member("updateResults", .array(results.updates.map(\.json)))
            w.member("deleteResults", .array(results.deletes.map(\.json)))
        }
    }

    public func changedAttachment(_ change: DownloadChange, _ attachment: AttachmentRecord, of layer: LayerDefinition) throws {
        enter(change)
        try Self.writeAttachment(attachment, layerId: layer.id, attachmentURL: attachmentURL, to: &w)
        try flushIfLarge()
    }

    public func deletedAttachments(_ globalIds: [String]) throws {
        close(deleting: globalIds)
        w.endObject()
    }

    public func endChanges() throws {
        w.endObject()
    }

    public func beginSnapshots() throws {
        w.endArray()
        w.key("layers")
        w.beginArray()
    }

    public func endSnapshots() throws {}

    public func finishAnswer(responseType: ReplicaResponseType) throws {
        // Closes `layers` after snapshots, else `edits`.
        w.endArray()
        w.member("responseType", responseType.rawValue)
        w.endObject()
        try write(w.takeBytes())
    }

    // MARK: Records

    // The record writers take the writer inout: one access to the stored property per record
    // (each access to a class's stored property is checked for exclusivity at run time).

    /// One feature: attributes aligned with the layer's fields, geometry in Esri JSON.
    private static func writeFeature(_ feature: FeatureRecord, of layer: LayerDefinition, to w: inout JSONWriter) {
        w.beginObject()
        w.key("attributes")
        w.beginObject()
        for (field, value) in zip(layer.fields, feature.attributes) { w.member(field.name, value) }
        w.endObject()
        if let geometry = feature.geometry {
            w.key("geometry")
            Geometry(ogc: geometry, layerType: layer.geometryType).writeEsriJSON(to: &w)
        }
        w.endObject()
    }

    /// One attachment: by `url` when `attachmentURL` names one, else with base64 `data`.
    private static func writeAttachment(
        _ attachment: AttachmentRecord, layerId: Int, attachmentURL: ((Int, Int64, Int64) -> String)?, to w: inout JSONWriter
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
            let bytes: Data
            switch attachment.content {
            case .file(let path): bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            case .bytes(let inline): bytes = Data(inline)
            }
            w.member("data", bytes.base64EncodedString())
        }
        w.endObject()
    }
}
