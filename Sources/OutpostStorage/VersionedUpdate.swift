import OutpostWire

/// An uploaded update of a versioned feature as the field-by-field reconcile reads it
/// (docs/sync-semantics.md, Versioned data), the same on both backends.
public struct VersionedUpdate {
    /// One field the update sends that the reconcile compares.
    public struct Field {
        public var field: FieldDefinition
        /// The attribute key it came under (its case as sent).
        public var key: String
        public var value: SQLValue
    }

    public var fields: [Field] = []

    /// The fields `feature` sends that a reconcile compares: editable ones other than the ids
    /// and editor tracking (stamped by every edit of either side), each coerced to its field's
    /// type; a value that does not coerce is left out, as the update itself would refuse it.
    public init(_ feature: EditFeature, layer definition: LayerDefinition) {
        let tracking = definition.editFieldsInfo?.all ?? []
        for (key, value) in feature.attributes {
            guard let field = definition.field(named: key), field.type != .oid, field.type != .globalID, field.editable,
                !tracking.contains(field.name), let stored = try? FieldValue.coerce(value, for: field)
            else { continue }
            fields.append(Field(field: field, key: key, value: stored))
        }
    }

    /// `feature` reduced to what the reconcile writes (`write`: field names, and the geometry
    /// column for the geometry), addressed by its GlobalID.
    public func reduced(_ feature: EditFeature, writing write: [String], globalIdField: String, globalId: String) -> EditFeature {
        var reduced = EditFeature(attributes: [globalIdField: .string(globalId)])
        for name in write {
            if name == StoredLayer.geometryColumn {
                reduced.geometry = feature.geometry
            } else if let key = fields.first(where: { $0.field.name == name })?.key {
                reduced.attributes[key] = feature.attributes[key]
            }
        }
        return reduced
    }
}
