/// The rules every backend applies to an edit's attributes, the same way: which fields exist
/// and may be written, what subtype the feature is in, the defaults an add gets and the domain
/// each value is checked against (docs/import.md, "Subtypes").
extension LayerDefinition {
    /// An add's attributes with what the layer fills in for the fields it omits
    /// (`LayerSubtypes.addingDefaults`).
    public func addingSubtypeDefaults(to attributes: JSONObject) -> JSONObject {
        subtypes?.addingDefaults(to: attributes) ?? attributes
    }

    /// The subtype field as the layer spells it: subtypes may name it in another case, and
    /// PostgreSQL's quoted names are case-sensitive.
    public var subtypeField: FieldDefinition? { subtypes.flatMap { field(named: $0.field) } }

    /// Whether checking an update needs the feature's stored subtype code
    /// (`LayerSubtypes.needsStoredCode`).
    public func needsStoredSubtype(toCheck attributes: JSONObject) -> Bool {
        subtypes?.needsStoredCode(toCheck: attributes) ?? false
    }

    /// The values of an edit's attributes, by field name, each converted and checked against
    /// its domain in the feature's subtype: the code the edit sends, else `storedSubtype`.
    /// OBJECTID, GlobalID and fields the server maintains are passed over, so a client may send
    /// back what it queried.
    public func checkedValues(_ attributes: JSONObject, storedSubtype: Int64? = nil) throws(EditError) -> [String: SQLValue] {
        let subtype = try subtypes?.subtype(of: attributes, stored: storedSubtype, layer: name)
        var values: [String: SQLValue] = [:]
        for (key, value) in attributes {
            guard let field = field(named: key) else { throw EditError.invalid("Field '\(key)' does not exist in \(name).") }
            if field.type == .oid || field.type == .globalID || !field.editable { continue }
            let domain = if let subtype { subtype.domain(of: field) } else { field.fieldDomain }
            values[field.name] = try FieldValue.coerce(value, for: field, domain: domain)
        }
        return values
    }
}

/// The same rules for any client that holds a layer's subtypes (the server's edit sessions
/// through `LayerDefinition`, the client library's geodatabase directly).
extension LayerSubtypes {
    /// An add's attributes with the default subtype code when it omits the subtype field, then
    /// that subtype's default values for the fields it omits. A field sent as `null` is not omitted.
    public func addingDefaults(to attributes: JSONObject) -> JSONObject {
        var filled = attributes
        var code = attributes.value(forCaseInsensitiveKey: field)?.int64Value
        if attributes.value(forCaseInsensitiveKey: field) == nil {
            filled[field] = .int(defaultCode)
            code = defaultCode
        }
        guard let code, let subtype = subtype(code: code) else { return filled }
        for (name, value) in subtype.defaultValues where filled.value(forCaseInsensitiveKey: name) == nil {
            filled[name] = value
        }
        return filled
    }

    /// Whether checking an update needs the feature's stored code: it leaves the subtype field
    /// as it is and writes a field some subtype gives a domain of its own.
    public func needsStoredCode(toCheck attributes: JSONObject) -> Bool {
        guard attributes.value(forCaseInsensitiveKey: field) == nil else { return false }
        return attributes.keys.contains { key in subtypes.contains { $0.overridesDomain(of: key) } }
    }

    /// The subtype an edit puts its feature in: the code it sends, else `stored`. A code the
    /// layer does not define is refused; `null` is no subtype, whose fields keep their own domains.
    public func subtype(of attributes: JSONObject, stored: Int64?, layer: String) throws(EditError) -> Subtype? {
        guard let given = attributes.value(forCaseInsensitiveKey: field) else { return stored.flatMap(subtype(code:)) }
        if given.isNull { return nil }
        guard let code = given.int64Value, let subtype = subtype(code: code) else {
            let codes = subtypes.map { String($0.code) }.joined(separator: ", ")
            throw EditError.invalid("Field '\(field)': \(given.jsonText) is not a subtype of \(layer) (\(codes)).")
        }
        return subtype
    }
}
