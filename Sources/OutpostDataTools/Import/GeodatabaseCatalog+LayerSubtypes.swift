import OutpostStorage
import OutpostWire

extension GeodatabaseCatalog {
    /// The subtypes the catalog states for source table `table`, in the imported layer's field
    /// names: per subtype its default values and the domains that differ from the field's own
    /// (`null` where the subtype has none). Subtypes the layer could not hold (their field not
    /// imported, a default or domain that does not fit) are left out with a word to `warn`.
    func layerSubtypes(
        of table: String, layer: LayerDefinition, fieldNames: [String: String], warn: (String) -> Void
    ) -> LayerSubtypes? {
        guard let source = subtypeClass(of: table) else { return nil }
        guard let field = fieldNames[source.field.lowercased()] else {
            warn("\(table): its subtype field \(source.field) is not among the imported fields; subtypes not kept")
            return nil
        }
        var subtypes: [LayerSubtypes.Subtype] = []
        for subtype in source.subtypes {
            var defaults = JSONObject()
            var domains = JSONObject()
            for info in subtype.fields {
                guard let name = fieldNames[info.field.lowercased()], let target = layer.field(named: name) else { continue }
                if !info.defaultValue.isNull { defaults[name] = info.defaultValue }
                switch info.domainName {
                case nil:
                    if target.fieldDomain != nil { domains[name] = .null }
                case let domainName? where domainName.lowercased() == target.fieldDomain?.name.lowercased():
                    break
                case let domainName?:
                    guard let domain = domain(named: domainName) else {
                        warn("\(table): subtype \(subtype.name) names the domain \(domainName), which the geodatabase does not define")
                        continue
                    }
                    domains[name] = domain.json
                }
            }
            subtypes.append(LayerSubtypes.Subtype(code: subtype.code, name: subtype.name, defaultValues: defaults, domains: domains))
        }
        let result = LayerSubtypes(field: field, defaultCode: source.defaultCode, subtypes: subtypes)
        do {
            try SchemaRules.validate(result, of: layer)
        } catch {
            warn("\(table): subtypes not kept: \(error)")
            return nil
        }
        return result
    }
}
