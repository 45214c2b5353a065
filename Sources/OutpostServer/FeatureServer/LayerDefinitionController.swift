import Hummingbird
import OutpostStorage
import OutpostWire

/// A layer's administrative `addToDefinition` (issue 47), as ArcGIS's hosted feature services
/// answer it at `rest/admin/services/<service>/FeatureServer/<layer>/addToDefinition`: adding
/// fields only (`SchemaRules.checkAddable`). Admins only; mounted beside the services.
struct LayerDefinitionController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    /// Where the operation is, below `/arcgis`: by name, and by folder and name.
    static var paths: [String] {
        [
            "rest/admin/services/:service/FeatureServer/:layer/addToDefinition",
            "rest/admin/services/:service/:\(ServiceRoutes.nameInFolder)/FeatureServer/:layer/addToDefinition",
        ]
    }

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        for path in Self.paths {
            routes.change(RouterPath(path), store: { _, c in try addToDefinition(c.form.parameters, context: c) })
        }
    }

    func addToDefinition(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        guard let definition = try p.json("addToDefinition") else { throw ArcGISError.missingParameter("addToDefinition") }
        let fields = try Self.fields(in: definition)
        _ = try store.schema.addFields(fields, service: try context.serviceName(), layer: try context.layerId())
        return RESTResponse.json(["success": true], parameters: p)
    }

    /// The fields `addToDefinition` names; other definition properties (indexes, subtypes,
    /// views) are refused.
    static func fields(in definition: JSONValue) throws -> [FieldDefinition] {
        guard let object = definition.objectValue else {
            throw ArcGISError.invalidParameter("addToDefinition", "expected a JSON object such as {\"fields\":[…]}")
        }
        if let other = object.keys.first(where: { $0 != "fields" }) {
            throw ArcGISError.invalidParameter("addToDefinition", "Outpost adds fields only, not '\(other)'")
        }
        guard let list = object["fields"]?.arrayValue else {
            throw ArcGISError.invalidParameter("addToDefinition", "'fields' must be an array of field objects")
        }
        return try list.enumerated().map { index, json in try field(json, at: index) }
    }

    static func field(_ json: JSONValue, at index: Int) throws -> FieldDefinition {
        func refused(_ reason: String) -> ArcGISError { ArcGISError.invalidParameter("addToDefinition", "field \(index): \(reason)") }
        guard json.objectValue != nil else { throw refused("expected a field object") }
        guard let name = json["name"]?.stringValue else { throw refused("'name' must be a string") }
        guard let typeName = json["type"]?.stringValue, let type = EsriFieldType(rawValue: typeName) else {
            throw refused("'type' must be an esriFieldType… name")
        }
        var length: Int?
        if let value = json["length"], !value.isNull {
            guard let number = value.int64Value else { throw refused("'length' must be an integer") }
            length = Int(clamping: number)
        }
        func flag(_ key: String) throws -> Bool {
            guard let value = json[key], !value.isNull else { return true }
            guard let bool = value.boolValue else { throw refused("'\(key)' must be true or false") }
            return bool
        }
        let alias = json["alias"]?.stringValue
        return FieldDefinition(
            name: name, type: type, alias: alias, length: length, nullable: try flag("nullable"), editable: try flag("editable"),
            defaultValue: json["defaultValue"] ?? .null, domain: json["domain"] ?? .null)
    }
}
