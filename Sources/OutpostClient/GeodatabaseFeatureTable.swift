import Foundation
import OutpostGeoPackage
import OutpostGeometry
import OutpostWire

/// One layer or table of a geodatabase: its schema as the server described it, and (when
/// read from an open geodatabase) the queries and edits of `GeodatabaseFeatureTable+Async`.
public struct GeodatabaseFeatureTable: Sendable, Equatable {
    /// The geodatabase the table was read from.
    public internal(set) var geodatabase: Geodatabase?
    public var layerId: Int
    public var name: String
    /// The SQLite table holding its rows.
    public var tableName: String
    public var fields: [FieldDefinition]
    public var objectIdField: String
    public var globalIdField: String
    /// nil for a table without geometry.
    public var geometryType: EsriGeometryType?
    /// The attachment (media) table, when the replica carries attachments for the layer.
    public var attachmentTable: String?
    /// The generation the layer last received.
    public var serverGen: Int64
    /// The SRS id of its geometry blobs (0 for tables).
    public var srsId: Int32 = 0
    /// Its subtypes, as the layer resource serves them: local adds take their defaults and
    /// every local edit meets its subtype's domains, as on the server.
    public var subtypes: LayerSubtypes?
    /// Field positions by lower-cased name.
    private var fieldIndex: [String: Int] = [:]

    public var hasGeometry: Bool { geometryType != nil }
    public var hasAttachments: Bool { attachmentTable != nil }

    init(_ layer: ReplicaFileInfo.Layer) {
        layerId = layer.layerId
        name = layer.name
        tableName = layer.tableName
        attachmentTable = layer.attachmentTable
        serverGen = layer.serverGen
        let definition = layer.layerDefinition
        fields = (definition["fields"]?.arrayValue ?? []).compactMap(Self.field)
        objectIdField = definition["objectIdField"]?.stringValue ?? fields.first { $0.type == .oid }?.name ?? "OBJECTID"
        globalIdField = definition["globalIdField"]?.stringValue ?? fields.first { $0.type == .globalID }?.name ?? "GlobalID"
        geometryType = definition["geometryType"]?.stringValue.flatMap { EsriGeometryType(lenient: $0) }
        subtypes = LayerSubtypes(served: definition, fields: fields)
        for (index, field) in fields.enumerated() { fieldIndex[field.name.lowercased()] = index }
    }

    /// A field of the layer resource (`{"name", "type", "alias", "length", "nullable", "editable", "defaultValue", "domain"}`).
    static func field(_ json: JSONValue) -> FieldDefinition? {
        guard let name = json["name"]?.stringValue, let type = json["type"]?.stringValue.flatMap(EsriFieldType.init(rawValue:)) else {
            return nil
        }
        return FieldDefinition(
            name: name, type: type, alias: json["alias"]?.stringValue, length: json["length"]?.int64Value.map { Int($0) },
            nullable: json["nullable"]?.boolValue ?? true, editable: json["editable"]?.boolValue ?? true,
            defaultValue: json["defaultValue"] ?? .null, domain: json["domain"] ?? .null)
    }

    /// Tables are equal when their schemas are (whichever geodatabase object read them).
    public static func == (lhs: GeodatabaseFeatureTable, rhs: GeodatabaseFeatureTable) -> Bool {
        lhs.layerId == rhs.layerId && lhs.name == rhs.name && lhs.tableName == rhs.tableName && lhs.fields == rhs.fields
            && lhs.objectIdField == rhs.objectIdField && lhs.globalIdField == rhs.globalIdField && lhs.geometryType == rhs.geometryType
            && lhs.attachmentTable == rhs.attachmentTable && lhs.serverGen == rhs.serverGen && lhs.srsId == rhs.srsId
            && lhs.subtypes == rhs.subtypes
    }

    public func field(named name: String) -> FieldDefinition? {
        if let index = fieldIndex[name] ?? fieldIndex[name.lowercased()] { return fields[index] }
        return nil
    }
}

/// A feature as the geodatabase holds it: attributes as the server's JSON (dates as epoch
/// milliseconds) and the geometry in the replica's spatial reference.
public struct LocalFeature: Sendable, Equatable {
    public var attributes: JSONObject
    public var geometry: Geometry?

    public init(attributes: JSONObject = [:], geometry: Geometry? = nil) {
        self.attributes = attributes
        self.geometry = geometry
    }

    public subscript(field: String) -> JSONValue? {
        get { attributes.value(forCaseInsensitiveKey: field) }
        set { attributes[field] = newValue }
    }
}

/// An attachment as the geodatabase holds it.
public struct LocalAttachment: Sendable, Equatable {
    public var globalId: String
    public var parentGlobalId: String
    /// The server's id; nil until the attachment has been synced.
    public var attachmentId: Int64?
    public var name: String
    public var contentType: String
    public var data: Data
}
