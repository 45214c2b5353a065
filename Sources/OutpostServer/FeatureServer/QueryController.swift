import Hummingbird
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// `query` and the single-feature resource.
struct QueryController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    func query(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try context.serviceName()
        let layerId = try context.layerId()
        let layer = try store.layer(service: service, id: layerId)
        let query = try LayerQuery.parse(p)
        // Checked before the query runs: a grid that cannot hold the answer is the client's 400.
        let grid = try query.quantizationGrid(for: layer.definition, coordinateSystem: CoordinateSystemCatalog.coordinateSystem(of:))
        let answer: QueryAnswer = try StorageRefusal.naming(RefusedParameters.query) {
            if let version = p.string("gdbVersion"), !version.isEmpty {
                _ = try VersionsController.visible(store, version, service: service, context: context)
                return try store.versions.query(query, service: service, layer: layerId, version: version)
            }
            return try store.features.query(query, service: service, layer: layerId)
        }
        var quantized: QuantizedPage?
        if let grid, case .features(let page) = answer {
            quantized = try page.quantized(on: grid, layerType: layer.definition.geometryType)
        }
        var w = JSONWriter(pretty: query.format.isPretty, reserve: 64 * 1024)
        FeatureSetWriter.write(answer, layer: layer.definition, format: query.format, quantized: quantized, to: &w)
        let type = query.format.isGeoJSON ? "application/geo+json; charset=utf-8" : "application/json; charset=utf-8"
        return RESTResponse.json(w.bytes, parameters: p, contentType: type)
    }

    func feature(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try context.serviceName()
        let layerId = try context.layerId()
        let oid = try context.integer("oid")
        let layer = try store.layer(service: service, id: layerId)
        var query = LayerQuery()
        query.objectIds = [oid]
        query.outFields = ["*"]
        guard case .features(let page) = try store.features.query(query, service: service, layer: layerId),
            let feature = page.features.first
        else {
            throw ArcGISError(
                kind: .notFound, message: "Feature not found.",
                details: ["Layer \(layerId) has no feature with \(layer.definition.objectIdField) \(oid)."])
        }
        var w = JSONWriter(pretty: p.string("f")?.lowercased() == "pjson")
        w.beginObject()
        w.key("feature")
        FeatureSetWriter.writeFeature(feature, fields: page.fields, geometryType: layer.definition.geometryType, to: &w)
        w.endObject()
        return RESTResponse.json(w.bytes, parameters: p)
    }
}

/// Writes query answers as Esri JSON or GeoJSON.
enum FeatureSetWriter {
    /// `quantized`: the page's geometries on a grid (Esri JSON only), written with its `transform`.
    static func write(
        _ answer: QueryAnswer, layer: LayerDefinition, format: ResponseFormat, quantized: QuantizedPage? = nil, to w: inout JSONWriter
    ) {
        switch answer {
        case .count(let count):
            w.beginObject()
            w.member("count", count)
            w.endObject()
        case .objectIds(let ids):
            w.beginObject()
            w.member("objectIdFieldName", layer.objectIdField)
            w.key("objectIds")
            w.beginArray()
            for id in ids { w.int(id) }
            w.endArray()
            w.endObject()
        case .extent(let extent, let count, let sr):
            w.beginObject()
            if format.isGeoJSON {
                w.member("type", "FeatureCollection")
                w.key("features")
                w.beginArray()
                w.endArray()
                if !extent.isEmpty {
                    w.key("bbox")
                    w.beginArray()
                    w.double(extent.xmin)
                    w.double(extent.ymin)
                    w.double(extent.xmax)
                    w.double(extent.ymax)
                    w.endArray()
                }
                w.member("count", count)
            } else {
                w.member("count", count)
                w.key("extent")
                w.value(extent.json(spatialReference: sr))
            }
            w.endObject()
        case .statistics(let fields, let rows, let exceededTransferLimit):
            w.beginObject()
            w.member("displayFieldName", "")
            w.key("fieldAliases")
            w.beginObject()
            for field in fields { w.member(field.name, field.name) }
            w.endObject()
            w.key("fields")
            w.beginArray()
            for field in fields {
                w.beginObject()
                w.member("name", field.name)
                w.member("type", field.type.rawValue)
                w.member("alias", field.name)
                w.endObject()
            }
            w.endArray()
            if exceededTransferLimit { w.member("exceededTransferLimit", true) }
            w.key("features")
            w.beginArray()
            for values in rows {
                w.beginObject()
                w.key("attributes")
                w.beginObject()
                for (field, value) in zip(fields, values) { w.member(field.name, value) }
                w.endObject()
                w.endObject()
            }
            w.endArray()
            w.endObject()
        case .features(let page):
            if format.isGeoJSON {
                writeGeoJSON(page, layer: layer, to: &w)
            } else {
                writeEsriJSON(page, layer: layer, quantized: quantized, to: &w)
            }
        }
    }

    static func writeEsriJSON(_ page: FeaturePage, layer: LayerDefinition, quantized: QuantizedPage? = nil, to w: inout JSONWriter) {
        w.beginObject()
        w.member("objectIdFieldName", layer.objectIdField)
        w.key("uniqueIdField")
        w.beginObject()
        w.member("name", layer.objectIdField)
        w.member("isSystemMaintained", true)
        w.endObject()
        w.member("globalIdFieldName", layer.globalIdField)
        if let geometryType = layer.geometryType {
            w.member("geometryType", geometryType.rawValue)
            w.key("spatialReference")
            w.value(page.spatialReference.json)
        }
        if let quantized {
            w.key("transform")
            w.value(quantized.grid.json)
        }
        writeFields(page.fields, to: &w)
        if page.exceededTransferLimit { w.member("exceededTransferLimit", true) }
        w.key("features")
        w.beginArray()
        if let quantized {
            for (feature, geometry) in zip(page.features, quantized.geometries) {
                writeQuantizedFeature(feature, fields: page.fields, geometry: geometry, to: &w)
            }
        } else {
            for feature in page.features {
                writeFeature(feature, fields: page.fields, geometryType: layer.geometryType, to: &w)
            }
        }
        w.endArray()
        w.endObject()
    }

    /// The `fields` member of a feature set: name, type, alias and length of each.
    static func writeFields(_ fields: [FieldDefinition], to w: inout JSONWriter) {
        w.key("fields")
        w.beginArray()
        for field in fields {
            w.beginObject()
            w.member("name", field.name)
            w.member("type", field.type.rawValue)
            w.member("alias", field.alias)
            if let length = field.length { w.member("length", length) }
            w.endObject()
        }
        w.endArray()
    }

    /// A feature; without a geometry (`returnGeometry=false`) the key is omitted, as ArcGIS does.
    static func writeFeature(_ feature: QueriedFeature, fields: [FieldDefinition], geometryType: EsriGeometryType?, to w: inout JSONWriter) {
        writeAttributes(of: feature, fields: fields, to: &w)
        if let geometry = feature.geometry {
            w.key("geometry")
            Geometry(ogc: geometry, layerType: geometryType).writeEsriJSON(to: &w)
        }
        w.endObject()
    }

    /// A feature with its geometry on the page's grid (none when nothing of it is left there).
    static func writeQuantizedFeature(_ feature: QueriedFeature, fields: [FieldDefinition], geometry: QuantizedGeometry?, to w: inout JSONWriter) {
        writeAttributes(of: feature, fields: fields, to: &w)
        if let geometry {
            w.key("geometry")
            geometry.writeEsriJSON(to: &w)
        }
        w.endObject()
    }

    /// Opens a feature's object and writes its `attributes`; the caller adds the geometry and closes it.
    private static func writeAttributes(of feature: QueriedFeature, fields: [FieldDefinition], to w: inout JSONWriter) {
        w.beginObject()
        w.key("attributes")
        w.beginObject()
        for (field, value) in zip(fields, feature.attributes) { w.member(field.name, value) }
        w.endObject()
    }

    static func writeGeoJSON(_ page: FeaturePage, layer: LayerDefinition, to w: inout JSONWriter) {
        w.beginObject()
        w.member("type", "FeatureCollection")
        if page.exceededTransferLimit {
            w.member("exceededTransferLimit", true)
            w.key("properties")
            w.beginObject()
            w.member("exceededTransferLimit", true)
            w.endObject()
        }
        w.key("features")
        w.beginArray()
        let oidIndex = page.fields.firstIndex { $0.name == layer.objectIdField }
        for feature in page.features {
            w.beginObject()
            w.member("type", "Feature")
            if let oidIndex {
                w.key("id")
                w.value(feature.attributes[oidIndex])
            }
            w.key("geometry")
            if let geometry = feature.geometry { GeoJSONGeometry.write(geometry, to: &w) } else { w.null() }
            w.key("properties")
            w.beginObject()
            for (field, value) in zip(page.fields, feature.attributes) { w.member(field.name, value) }
            w.endObject()
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }
}
