import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// `queryRelatedRecords`: the records a layer's relationship links to some of its features
/// (`RelatedRecords`), grouped by feature, as ArcGIS answers it.
struct RelatedRecordsController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers.read("FeatureServer/:layer/queryRelatedRecords", store: { _, c in try query(c.form.parameters, context: c) })
    }

    func query(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let request = try RelatedRecordsRequest.parse(p)
        let answer = try RelatedRecords.query(request, service: try context.serviceName(), layer: try context.layerId(), store: store)
        var w = JSONWriter(pretty: request.format.isPretty)
        w.beginObject()
        if !request.returnCountOnly {
            if let geometryType = answer.related.geometryType, request.returnGeometry {
                w.member("geometryType", geometryType.rawValue)
                w.key("spatialReference")
                w.value(answer.spatialReference.json)
            }
            FeatureSetWriter.writeFields(answer.fields, to: &w)
        }
        w.key("relatedRecordGroups")
        w.beginArray()
        for group in answer.groups {
            w.beginObject()
            w.member("objectId", group.objectId)
            if request.returnCountOnly {
                w.member("count", group.records.count)
            } else {
                w.key("relatedRecords")
                w.beginArray()
                for record in group.records {
                    FeatureSetWriter.writeFeature(record, fields: answer.fields, geometryType: answer.related.geometryType, to: &w)
                }
                w.endArray()
            }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return RESTResponse.json(w.bytes, parameters: p)
    }
}
