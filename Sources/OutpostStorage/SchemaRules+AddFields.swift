import OutpostWire

/// What `addToDefinition` may add to a layer (issue 47): nullable fields of plain types whose
/// names are new, valid and not reserved. Every field is checked before any is added.
extension SchemaRules {
    /// The types a field added to a published layer may have.
    public static let addableFieldTypes: Set<EsriFieldType> = [.string, .integer, .smallInteger, .double, .single, .date, .guid]

    /// At most this many fields per call.
    public static let maxFieldsPerAddition = 100

    /// Column names the storage uses itself or the databases keep (lower case); names starting
    /// with `outpost_` are the change tracking's.
    static let reservedFieldNames: Set<String> = [
        StoredLayer.geometryColumn, "shape__area", "shape__length", "rowid", "oid", "_rowid_",
        "ctid", "xmin", "xmax", "cmin", "cmax", "tableoid",
    ]

    public static func isReservedFieldName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return reservedFieldNames.contains(lowered) || lowered.hasPrefix("outpost_")
    }

    /// Checks `fields` as additions to `layer` of a service (`isVersioned`): throws
    /// `StoreError.invalidSchema` naming the first refused field, so nothing is added.
    public static func checkAddable(_ fields: [FieldDefinition], to layer: LayerDefinition, isVersioned: Bool) throws {
        // A versioned layer's history and version rows copy its columns in order: they would
        // need rebuilding, which Outpost does not do.
        guard !isVersioned else { throw StoreError.invalidSchema("fields cannot be added to the layers of a versioned service") }
        guard !fields.isEmpty else { throw StoreError.invalidSchema("addToDefinition names no fields") }
        guard fields.count <= maxFieldsPerAddition else {
            throw StoreError.invalidSchema("at most \(maxFieldsPerAddition) fields can be added in one call (got \(fields.count))")
        }
        var names = Set(layer.fields.map { $0.name.lowercased() })
        for field in fields {
            guard isValidFieldName(field.name) else {
                throw StoreError.invalidSchema("field name '\(field.name)' must start with a letter and use letters, digits and '_'")
            }
            guard !isReservedFieldName(field.name) else { throw StoreError.invalidSchema("field name '\(field.name)' is reserved") }
            guard names.insert(field.name.lowercased()).inserted else {
                throw StoreError.invalidSchema("layer \(layer.id) already has a field named '\(field.name)' (names differ by more than case)")
            }
            guard addableFieldTypes.contains(field.type) else {
                throw StoreError.invalidSchema("field '\(field.name)': \(field.type.rawValue) cannot be added to a published layer")
            }
            guard field.nullable else { throw StoreError.invalidSchema("field '\(field.name)': added fields must be nullable") }
            if field.type == .string, let length = field.length, !(1...2_147_483_647).contains(length) {
                throw StoreError.invalidSchema("field '\(field.name)': length must be positive")
            }
            try validateDomain(of: field)
            do { _ = try FieldValue.coerce(field.defaultValue, for: field) } catch {
                throw StoreError.invalidSchema("field '\(field.name)': the default value is refused: \(error.description)")
            }
        }
    }
}
