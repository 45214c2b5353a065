import Foundation
import OutpostGeometry
import OutpostWire

/// A feature (or a table's row) of a `GeodatabaseFeatureTable`, with typed attributes; made
/// by `table.makeFeature(…)` or read by `table.queryFeatures(…)`.
public struct Feature: Sendable, Equatable {
    /// The table's schema (names are matched to its fields ignoring case).
    public let table: GeodatabaseFeatureTable
    public private(set) var attributes: [String: AttributeValue]
    public var geometry: Geometry?

    init(table: GeodatabaseFeatureTable, attributes: [String: AttributeValue], geometry: Geometry?) {
        self.table = table
        self.attributes = [:]
        self.geometry = geometry
        for (name, value) in attributes { self[name] = value }
    }

    init(table: GeodatabaseFeatureTable, local: LocalFeature) {
        var attributes: [String: AttributeValue] = [:]
        for (name, value) in local.attributes { attributes[name] = AttributeValue(json: value, type: table.field(named: name)?.type) }
        self.init(table: table, attributes: attributes, geometry: local.geometry)
    }

    /// A field's value (`.null` when unset); setting one stores it under the field's own name.
    public subscript(name: String) -> AttributeValue {
        get { attributes[table.field(named: name)?.name ?? name] ?? .null }
        set { attributes[table.field(named: name)?.name ?? name] = newValue }
    }

    /// The local OBJECTID (provisional until the feature has been synced).
    public var objectId: Int64? { self[table.objectIdField].integerValue }
    public var globalId: String? { self[table.globalIdField].stringValue }

    var local: LocalFeature {
        var object = JSONObject()
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { object[name] = value.json }
        return LocalFeature(attributes: object, geometry: geometry)
    }
}
