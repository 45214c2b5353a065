import OutpostStorage
import OutpostWire

/// `queryRelatedRecords`: the records of a related layer or table that one of a layer's
/// relationships links to some of its features, grouped by feature. Read with two ordinary
/// queries, so every filter rule of `query` holds: the features' key values, then the related
/// rows whose key is among them (and match `definitionExpression`), page by page.
public struct RelatedRecords: Sendable {
    /// The related records of one feature (features with none have no group, as in ArcGIS).
    public struct Group: Sendable {
        public var objectId: Int64
        public var records: [QueriedFeature]
    }

    public var related: LayerDefinition
    public var fields: [FieldDefinition]
    public var spatialReference: SpatialReference
    public var groups: [Group]

    public static func query(
        _ request: RelatedRecordsRequest, service: String, layer layerId: Int, store: some SyncBackend
    ) throws -> RelatedRecords {
        let layer = try store.schema.layer(service: service, id: layerId).definition
        guard let relationship = layer.relationships.first(where: { $0.id == request.relationshipId }) else {
            throw ArcGISError.invalidParameter("relationshipId", "layer \(layerId) has no relationship \(request.relationshipId)")
        }
        let related = try store.schema.layer(service: service, id: relationship.relatedTableId).definition
        guard let relatedKey = related.relationships.first(where: { $0.id == relationship.id && $0.relatedTableId == layerId })?.keyField
        else {
            throw ArcGISError.invalidParameter("relationshipId", "relationship \(relationship.id) is not defined on both of its layers")
        }
        // The features' keys, by the comparable form of each.
        var origin = LayerQuery()
        origin.objectIds = request.objectIds
        origin.outFields = [layer.objectIdField, relationship.keyField]
        origin.returnGeometry = false
        var owners: [String: [Int64]] = [:]
        var keys: [JSONValue] = []
        try pages(origin, service: service, layer: layerId, store: store) { page in
            let oid = page.fields.firstIndex { $0.name == layer.objectIdField }
            let key = page.fields.firstIndex { $0.name.lowercased() == relationship.keyField.lowercased() }
            for feature in page.features {
                guard let oid, let key, case .int(let objectId) = feature.attributes[oid],
                    let identity = RelatedRecordsRequest.keyIdentity(feature.attributes[key])
                else { continue }
                if owners[identity] == nil { keys.append(feature.attributes[key]) }
                owners[identity, default: []].append(objectId)
            }
        }
        var query = LayerQuery()
        query.whereClause = RelatedRecordsRequest.relatedWhere(
            keyField: relatedKey, keys: keys, definitionExpression: request.definitionExpression)
        // The key is read to group by; an answer shows the fields asked for.
        let asked = request.outFields ?? [related.objectIdField]
        query.outFields = asked == ["*"] ? ["*"] : asked + [relatedKey]
        query.returnGeometry = request.returnGeometry && related.geometryType != nil
        query.outSR = request.outSR
        query.orderBy = request.orderBy
        var fields: [FieldDefinition] = []
        var spatialReference = related.spatialReference
        var records: [Int64: [QueriedFeature]] = [:]
        try pages(query, service: service, layer: related.id, store: store) { page in
            spatialReference = page.spatialReference
            let key = page.fields.firstIndex { $0.name.lowercased() == relatedKey.lowercased() }
            let shown = page.fields.indices.filter { index in
                asked == ["*"] || asked.contains { $0.lowercased() == page.fields[index].name.lowercased() }
            }
            fields = shown.map { page.fields[$0] }
            for feature in page.features {
                guard let key, let identity = RelatedRecordsRequest.keyIdentity(feature.attributes[key]) else { continue }
                let record = QueriedFeature(attributes: shown.map { feature.attributes[$0] }, geometry: feature.geometry)
                for objectId in owners[identity] ?? [] { records[objectId, default: []].append(record) }
            }
        }
        let groups = request.objectIds.compactMap { id in records[id].map { Group(objectId: id, records: $0) } }
        return RelatedRecords(related: related, fields: fields, spatialReference: spatialReference, groups: groups)
    }

    /// Every page of `query`'s features.
    private static func pages(
        _ query: LayerQuery, service: String, layer: Int, store: some SyncBackend, _ body: (FeaturePage) throws -> Void
    ) throws {
        var query = query
        var offset = 0
        while true {
            query.resultOffset = offset
            guard case .features(let page) = try store.features.query(query, service: service, layer: layer) else { return }
            try body(page)
            offset += page.features.count
            if !page.exceededTransferLimit || page.features.isEmpty { return }
        }
    }
}
