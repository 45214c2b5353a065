/// The service and layer resources (`.../FeatureServer`, `.../FeatureServer/<id>`) as JSON.
///
/// Shapes follow §2–§3 of the sync reference; everything a client reads to decide how to
/// page, edit and sync is derived from the definitions, not hard-coded per service.
public enum FeatureServiceMetadata {
    public static let currentVersion: Double = 11.1

    /// Live facts the catalog alone does not know.
    public struct LayerState: Sendable, Equatable {
        public var extent: Envelope
        public var lastEditDate: Int64

        public init(extent: Envelope, lastEditDate: Int64) {
            self.extent = extent
            self.lastEditDate = lastEditDate
        }
    }

    public static func syncCapabilities(for service: ServiceDefinition) -> JSONValue {
        SyncCapabilities(for: service).json
    }

    public static func serviceJSON(_ service: ServiceDefinition, fullExtent: Envelope) -> JSONValue {
        let sr = service.spatialReference
        let layers = service.layers.filter { $0.kind == .featureLayer }
        let tables = service.layers.filter { $0.kind == .table }
        var object: JSONObject = [
            "currentVersion": .double(currentVersion),
            "serviceDescription": .string(service.description),
            "hasVersionedData": .bool(service.isVersioned),
            "supportsDisconnectedEditing": false,
            "hasStaticData": false,
            "maxRecordCount": .int(Int64(service.maxRecordCount)),
            "supportedQueryFormats": "JSON, geoJSON",
            "capabilities": .string(service.capabilities.joined(separator: ",")),
            "description": .string(service.description),
            "copyrightText": "",
            "spatialReference": sr.json,
            "initialExtent": fullExtent.json(spatialReference: sr),
            "fullExtent": fullExtent.json(spatialReference: sr),
            "allowGeometryUpdates": true,
            "units": .string(sr.epsg == 4326 ? "esriDecimalDegrees" : "esriMeters"),
            "supportsApplyEditsWithGlobalIds": true,
            "supportsRelationshipsResource": false,
            "syncEnabled": .bool(service.capabilities.contains("Sync")),
        ]
        if service.capabilities.contains("Sync") {
            object["syncCapabilities"] = syncCapabilities(for: service)
        }
        object["editorTrackingInfo"] = [
            "enableEditorTracking": .bool(service.layers.contains { $0.editFieldsInfo != nil }),
            "enableOwnershipAccessControl": false,
            "allowOthersToUpdate": true,
            "allowOthersToDelete": true,
            "allowOthersToQuery": true,
        ]
        object["layers"] = .array(layers.map(summary))
        object["tables"] = .array(tables.map(summary))
        return .object(object)
    }

    private static func summary(_ layer: LayerDefinition) -> JSONValue {
        var object: JSONObject = [
            "id": .int(Int64(layer.id)),
            "name": .string(layer.name),
            "parentLayerId": -1,
            "defaultVisibility": true,
            "subLayerIds": .null,
            "minScale": 0,
            "maxScale": 0,
        ]
        if let geometryType = layer.geometryType { object["geometryType"] = .string(geometryType.rawValue) }
        return .object(object)
    }

    public static func fieldJSON(_ field: FieldDefinition) -> JSONValue {
        var object: JSONObject = [
            "name": .string(field.name),
            "type": .string(field.type.rawValue),
            "alias": .string(field.alias),
            "sqlType": "sqlTypeOther",
        ]
        if let length = field.length { object["length"] = .int(Int64(length)) }
        object["nullable"] = .bool(field.nullable)
        object["editable"] = .bool(field.editable)
        object["domain"] = field.domain
        object["defaultValue"] = field.defaultValue
        return .object(object)
    }

    public static func layerJSON(_ layer: LayerDefinition, service: ServiceDefinition, state: LayerState) -> JSONValue {
        let sr = layer.spatialReference
        var object: JSONObject = [
            "currentVersion": .double(currentVersion),
            "id": .int(Int64(layer.id)),
            "name": .string(layer.name),
            "type": .string(layer.kind.rawValue),
            "serviceItemId": "",
            "displayField": .string(layer.displayField),
            "description": .string(layer.description),
            "copyrightText": "",
            "defaultVisibility": true,
        ]
        if let info = layer.editFieldsInfo {
            object["editFieldsInfo"] = [
                "creationDateField": .string(info.creationDateField), "creatorField": .string(info.creatorField),
                "editDateField": .string(info.editDateField), "editorField": .string(info.editorField),
            ]
        }
        object["editingInfo"] = ["lastEditDate": .int(state.lastEditDate)]
        object["relationships"] = .array(
            layer.relationships.map { relationship in
                [
                    "id": .int(Int64(relationship.id)), "name": .string(relationship.name),
                    "relatedTableId": .int(Int64(relationship.relatedTableId)),
                    "cardinality": .string(relationship.cardinality.rawValue), "role": .string(relationship.role.rawValue),
                    "keyField": .string(relationship.keyField), "composite": .bool(relationship.composite),
                ]
            })
        object["isDataVersioned"] = .bool(service.isVersioned)
        object["isDataArchived"] = .bool(!service.isVersioned)
        object["isDataBranchVersioned"] = false
        object["isDataReplicaTracked"] = true
        object["supportsRollbackOnFailureParameter"] = true
        object["supportsApplyEditsWithGlobalIds"] = true
        object["supportsAttachmentsByUploadId"] = true
        object["supportsStatistics"] = true
        object["supportsAdvancedQueries"] = true
        object["supportsValidateSql"] = false
        // Integer coordinates on a grid (`quantizationParameters`, view and edit modes): with
        // `supportsQueryWithResultType` what the Maps SDK reads to fetch feature tiles.
        object["supportsCoordinatesQuantization"] = true
        object["supportsQuantizationEditMode"] = true
        object["supportsCalculate"] = false
        object["useStandardizedQueries"] = true
        object["advancedQueryCapabilities"] = [
            "supportsPagination": true,
            "supportsQueryRelatedPagination": false,
            "supportsQueryRelated": true,
            "supportsQueryWithDistance": false,
            "supportsReturningQueryExtent": true,
            "supportsStatistics": true,
            "supportsHavingClause": true,
            "supportsOrderBy": true,
            "supportsDistinct": true,
            "supportsPaginationOnAggregatedQueries": true,
            "supportsQueryWithResultType": true,
            "supportsMaxRecordCountFactor": true,
            "supportsDefaultSR": true,
            "supportsSqlExpression": true,
            "supportsAdvancedQueryRelated": false,
            "supportsReturningGeometryCentroid": false,
        ]
        if let geometryType = layer.geometryType {
            object["geometryType"] = .string(geometryType.rawValue)
            object["extent"] = state.extent.json(spatialReference: sr)
            object["drawingInfo"] = drawingInfo(for: geometryType)
            object["allowGeometryUpdates"] = true
        } else {
            object["geometryType"] = .null
        }
        object["minScale"] = 0
        object["maxScale"] = 0
        object["hasAttachments"] = .bool(layer.hasAttachments)
        if layer.hasAttachments { object["supportsQueryAttachmentsWithReturnUrl"] = false }
        object["htmlPopupType"] = "esriServerHTMLPopupTypeAsHTMLText"
        object["hasM"] = false
        object["hasZ"] = false
        object["objectIdField"] = .string(layer.objectIdField)
        object["uniqueIdField"] = ["name": .string(layer.objectIdField), "isSystemMaintained": true]
        object["globalIdField"] = .string(layer.globalIdField)
        object["typeIdField"] = .string(layer.subtypeField?.name ?? "")
        object["fields"] = .array(layer.fields.map(fieldJSON))
        object["indexes"] = []
        if let subtypes = layer.subtypes {
            let field = layer.subtypeField?.name ?? subtypes.field
            object["types"] = .array(subtypes.subtypes.map { typeEntry($0, of: layer, field: field) })
            object["templates"] = []
            for (key, value) in subtypes.servedJSON(fields: layer.fields).objectValue ?? [:] { object[key] = value }
            object["subtypeField"] = .string(field)
        } else {
            object["types"] = []
            object["templates"] = [template(named: layer.name, attributes: [:], geometryType: layer.geometryType)]
        }
        object["supportedQueryFormats"] = "JSON, geoJSON"
        object["hasStaticData"] = false
        object["maxRecordCount"] = .int(Int64(layer.maxRecordCount))
        object["standardMaxRecordCount"] = .int(Int64(layer.standardMaxRecordCount))
        object["tileMaxRecordCount"] = .int(Int64(layer.tileMaxRecordCount))
        // The server-side factor the maxima already include; a query's own goes up to 5.
        object["maxRecordCountFactor"] = 1
        object["capabilities"] = .string(service.capabilities.joined(separator: ","))
        object["syncCanReturnChanges"] = .bool(service.capabilities.contains("Sync"))
        return .object(object)
    }

    /// A subtype as a `types` entry: its code as `id`, its domains as served, one template of
    /// its default values.
    private static func typeEntry(_ subtype: LayerSubtypes.Subtype, of layer: LayerDefinition, field: String) -> JSONValue {
        var attributes = subtype.defaultValues
        attributes[field] = .int(subtype.code)
        return [
            "id": .int(subtype.code), "name": .string(subtype.name), "domains": .object(LayerSubtypes.served(subtype, fields: layer.fields)),
            "templates": [template(named: subtype.name, attributes: attributes, geometryType: layer.geometryType)],
        ]
    }

    private static func template(named name: String, attributes: JSONObject, geometryType: EsriGeometryType?) -> JSONValue {
        [
            "name": .string(name), "description": "", "drawingTool": .string(drawingTool(for: geometryType)),
            "prototype": ["attributes": .object(attributes)],
        ]
    }

    private static func drawingTool(for geometryType: EsriGeometryType?) -> String {
        switch geometryType {
        case .point, .multipoint: "esriFeatureEditToolPoint"
        case .polyline: "esriFeatureEditToolLine"
        case .polygon, .envelope: "esriFeatureEditToolPolygon"
        case nil: "esriFeatureEditToolNone"
        }
    }

    private static func drawingInfo(for geometryType: EsriGeometryType) -> JSONValue {
        let symbol: JSONValue =
            switch geometryType {
            case .point, .multipoint:
                [
                    "type": "esriSMS", "style": "esriSMSCircle", "color": [0, 112, 255, 255], "size": 6, "angle": 0,
                    "xoffset": 0, "yoffset": 0, "outline": ["color": [255, 255, 255, 255], "width": 1],
                ]
            case .polyline:
                ["type": "esriSLS", "style": "esriSLSSolid", "color": [0, 112, 255, 255], "width": 1.5]
            case .polygon, .envelope:
                [
                    "type": "esriSFS", "style": "esriSFSSolid", "color": [0, 112, 255, 64],
                    "outline": ["type": "esriSLS", "style": "esriSLSSolid", "color": [0, 112, 255, 255], "width": 1],
                ]
            }
        return [
            "renderer": ["type": "simple", "symbol": symbol, "label": "", "description": ""],
            "transparency": 0, "labelingInfo": .null,
        ]
    }
}
