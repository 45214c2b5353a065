/// A layer's subtypes: an integer field whose value sorts features into kinds, each with its
/// own default values and its own domains on other fields (docs/import.md, "Subtypes").
///
/// The JSON is ArcGIS's (`subtypeField`, `defaultSubtypeCode`, `subtypes`), which the catalog
/// stores as it serves; `types` and `templates` are derived from it (`FeatureServiceMetadata`).
public struct LayerSubtypes: Sendable, Equatable {
    /// One subtype. `domains` names, per field, the domain that replaces the field's own in
    /// this subtype: `{"type":"inherited"}` (or no entry) keeps the field's, `null` means none.
    public struct Subtype: Sendable, Equatable {
        public var code: Int64
        public var name: String
        /// Values given to the fields an add omits.
        public var defaultValues: JSONObject
        public var domains: JSONObject {
            didSet { parsedDomains = Self.parse(domains) }
        }
        /// `domains` as meanings, by lower-cased field name; `.some(nil)` is "no domain".
        private var parsedDomains: [String: FieldDomain?]

        public init(code: Int64, name: String, defaultValues: JSONObject = [:], domains: JSONObject = [:]) {
            self.code = code
            self.name = name
            self.defaultValues = defaultValues
            self.domains = domains
            parsedDomains = Self.parse(domains)
        }

        /// The domain this subtype puts on `field`.
        public func domain(of field: FieldDefinition) -> FieldDomain? {
            guard let entry = parsedDomains[field.name.lowercased()] else { return field.fieldDomain }
            return entry
        }

        /// The subtype states a domain of its own for the field (not inherited).
        public func overridesDomain(of field: String) -> Bool { parsedDomains[field.lowercased()] != nil }

        private static func parse(_ domains: JSONObject) -> [String: FieldDomain?] {
            var parsed: [String: FieldDomain?] = [:]
            for (field, json) in domains where json["type"]?.stringValue != "inherited" {
                parsed[field.lowercased()] = .some(FieldDomain(json: json))
            }
            return parsed
        }

        public static func == (lhs: Subtype, rhs: Subtype) -> Bool {
            lhs.code == rhs.code && lhs.name == rhs.name && lhs.defaultValues == rhs.defaultValues && lhs.domains == rhs.domains
        }
    }

    public static let inherited: JSONValue = ["type": "inherited"]

    public var field: String
    public var defaultCode: Int64
    public var subtypes: [Subtype]

    public init(field: String, defaultCode: Int64, subtypes: [Subtype]) {
        self.field = field
        self.defaultCode = defaultCode
        self.subtypes = subtypes
    }

    public func subtype(code: Int64) -> Subtype? { subtypes.first { $0.code == code } }

    /// `{"subtypeField", "defaultSubtypeCode", "subtypes": [{code, name, defaultValues, domains}]}`:
    /// the catalog's record, `domains` as the model holds them.
    public func json() -> JSONValue { json { $0.domains } }

    /// The layer resource's members: each subtype's `domains` as `served(_:fields:)` has them.
    public func servedJSON(fields: [FieldDefinition]) -> JSONValue { json { Self.served($0, fields: fields) } }

    private func json(domains: (Subtype) -> JSONObject) -> JSONValue {
        [
            "subtypeField": .string(field), "defaultSubtypeCode": .int(defaultCode),
            "subtypes": .array(
                subtypes.map { subtype in
                    [
                        "code": .int(subtype.code), "name": .string(subtype.name), "defaultValues": .object(subtype.defaultValues),
                        "domains": .object(domains(subtype)),
                    ]
                }),
        ]
    }

    /// A subtype's domains as ArcGIS serves them: every field that has a domain in it, by the
    /// domain or `inherited`. ArcGIS has no word for "no domain here", so such a field is left
    /// out, and a field with a domain of its own that is left out has none in this subtype.
    public static func served(_ subtype: Subtype, fields: [FieldDefinition]) -> JSONObject {
        var domains = JSONObject()
        for field in fields {
            if subtype.overridesDomain(of: field.name) {
                if let domain = subtype.domain(of: field) { domains[field.name] = domain.json }
            } else if field.fieldDomain != nil {
                domains[field.name] = inherited
            }
        }
        return domains
    }

    /// The subtypes a layer resource serves (`servedJSON`), read back to what was stored: an
    /// `inherited` entry is no entry, and a field with a domain of its own that a subtype leaves
    /// out has none there. Nil when the resource has no subtypes.
    public init?(served json: JSONValue, fields: [FieldDefinition]) {
        guard var subtypes = LayerSubtypes(json: json) else { return nil }
        for index in subtypes.subtypes.indices {
            var domains = JSONObject(subtypes.subtypes[index].domains.filter { $0.value != Self.inherited })
            for field in fields where field.fieldDomain != nil && subtypes.subtypes[index].domains.value(forCaseInsensitiveKey: field.name) == nil {
                domains[field.name] = .null
            }
            subtypes.subtypes[index].domains = domains
        }
        self = subtypes
    }

    /// The subtypes `json` describes (its own shape); nil when it is not that shape.
    public init?(json: JSONValue) {
        guard let field = json["subtypeField"]?.stringValue, let defaultCode = json["defaultSubtypeCode"]?.int64Value,
            let items = json["subtypes"]?.arrayValue
        else { return nil }
        var subtypes: [Subtype] = []
        for item in items {
            guard let code = item["code"]?.int64Value, let name = item["name"]?.stringValue else { return nil }
            subtypes.append(
                Subtype(
                    code: code, name: name, defaultValues: item["defaultValues"]?.objectValue ?? [:], domains: item["domains"]?.objectValue ?? [:]))
        }
        self.init(field: field, defaultCode: defaultCode, subtypes: subtypes)
    }
}
