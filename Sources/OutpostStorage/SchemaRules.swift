import OutpostGeometry
import OutpostWire

/// What every backend checks of a schema and a stored geometry, the same way: a service's
/// layers and fields, table names, and which geometries a layer stores.
public enum SchemaRules {
    /// What a backend checks before it creates `service`: a name it may take, then `validate`.
    public static func checkCreatable(_ service: ServiceDefinition) throws {
        guard ServiceDefinition.isValidName(service.name) else {
            throw StoreError.invalidName(
                "service names use letters, digits, '_' and '-', optionally in one folder ('Folder/Name'), and do not end in FeatureServer, VersionManagementServer or replicafiles (got '\(service.name)')"
            )
        }
        try validate(service)
    }

    public static func validate(_ service: ServiceDefinition) throws {
        var ids = Set<Int>()
        for layer in service.layers {
            guard ids.insert(layer.id).inserted else { throw StoreError.invalidSchema("layer id \(layer.id) used twice") }
            guard layer.id >= 0 else { throw StoreError.invalidSchema("layer ids must not be negative") }
            var names = Set<String>()
            for field in layer.fields {
                guard isValidFieldName(field.name) else {
                    throw StoreError.invalidSchema("field name '\(field.name)' must start with a letter and use letters, digits and '_'")
                }
                guard names.insert(field.name.lowercased()).inserted else {
                    throw StoreError.invalidSchema("field '\(field.name)' appears twice in layer \(layer.id)")
                }
                guard field.name.lowercased() != StoredLayer.geometryColumn else {
                    throw StoreError.invalidSchema("'\(field.name)' is reserved for the geometry column")
                }
                try validateDomain(of: field)
            }
            guard layer.fields.filter({ $0.type == .oid }).map(\.name) == [layer.objectIdField] else {
                throw StoreError.invalidSchema("layer \(layer.id) needs exactly one OID field named '\(layer.objectIdField)'")
            }
            guard layer.fields.filter({ $0.type == .globalID }).map(\.name) == [layer.globalIdField] else {
                throw StoreError.invalidSchema("layer \(layer.id) needs exactly one GlobalID field named '\(layer.globalIdField)'")
            }
            if layer.kind == .featureLayer && layer.geometryType == nil {
                throw StoreError.invalidSchema("feature layer \(layer.id) needs a geometry type")
            }
            if layer.geometryType == .envelope { throw StoreError.invalidSchema("envelope is not a storable geometry type") }
            if let subtypes = layer.subtypes { try validate(subtypes, of: layer) }
            for relationship in layer.relationships {
                guard let related = service.layer(id: relationship.relatedTableId) else {
                    throw StoreError.invalidSchema("relationship \(relationship.id) points at missing layer \(relationship.relatedTableId)")
                }
                _ = related
                guard layer.field(named: relationship.keyField) != nil else {
                    throw StoreError.invalidSchema(
                        "relationship \(relationship.id) key field '\(relationship.keyField)' is not a field of layer \(layer.id)")
                }
            }
        }
    }

    /// Subtypes sort by an integer field, name codes it can hold and the default among them, and
    /// give fields of the layer domains that fit them and defaults their domains admit, so an
    /// add that takes the defaults is always valid.
    public static func validate(_ subtypes: LayerSubtypes, of layer: LayerDefinition) throws {
        func invalid(_ reason: String) -> StoreError { .invalidSchema("layer \(layer.id) subtypes: \(reason)") }
        guard let field = layer.field(named: subtypes.field), [.smallInteger, .integer].contains(field.type) else {
            throw invalid("'\(subtypes.field)' is not an integer field of the layer")
        }
        guard Set(subtypes.subtypes.map(\.code)).count == subtypes.subtypes.count else { throw invalid("a code is used twice") }
        guard subtypes.subtype(code: subtypes.defaultCode) != nil else { throw invalid("the default code \(subtypes.defaultCode) is no subtype") }
        for subtype in subtypes.subtypes {
            do { _ = try FieldValue.coerce(.int(subtype.code), for: field, domain: nil) } catch {
                throw invalid("code \(subtype.code) does not fit the field '\(field.name)'")
            }
            for (name, domain) in subtype.domains {
                guard var target = layer.field(named: name) else { throw invalid("'\(subtype.name)' gives a domain to '\(name)', no field") }
                guard domain != LayerSubtypes.inherited else { continue }
                target.domain = domain
                try validateDomain(of: target)
            }
            for (name, value) in subtype.defaultValues {
                guard let target = layer.field(named: name), target.editable, target.type != .oid, target.type != .globalID else {
                    throw invalid("'\(subtype.name)' has a default for '\(name)', no editable field")
                }
                do { _ = try FieldValue.coerce(value, for: target, domain: subtype.domain(of: target)) } catch {
                    throw invalid("the default of '\(name)' in '\(subtype.name)' is refused: \(error.description)")
                }
            }
        }
    }

    /// A field's domain is null or a domain ArcGIS describes (`FieldDomain`) whose codes or
    /// bounds the field's type can hold: edits are checked against it.
    static func validateDomain(of field: FieldDefinition) throws {
        guard !field.domain.isNull else { return }
        guard let domain = field.fieldDomain else {
            throw StoreError.invalidSchema("field '\(field.name)': domain is not a codedValue or range domain")
        }
        switch domain {
        case .codedValue(let name, let codes):
            for code in codes {
                do { _ = try FieldValue.coerce(code.code, for: FieldDefinition(name: field.name, type: field.type, length: field.length)) } catch {
                    throw StoreError.invalidSchema("field '\(field.name)': code \(code.code.jsonText) of domain '\(name)' does not fit the field")
                }
            }
        case .range(let name, _, _):
            guard [.smallInteger, .integer, .single, .double, .date].contains(field.type) else {
                throw StoreError.invalidSchema("field '\(field.name)': range domain '\(name)' needs a numeric or date field")
            }
        }
    }

    public static func isValidFieldName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, name.count <= 64 else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// `f_<name>`: lower case, '-' as '_', a folder's '/' as '__'.
    public static func tablePrefix(service: String) -> String {
        "f_" + service.lowercased().replacingOccurrences(of: "/", with: "__").replacingOccurrences(of: "-", with: "_")
    }

    /// The geometry in the column's OGC type (points into multipoint columns and so on).
    public static func storable(_ geometry: OGCGeometry, for layer: LayerDefinition, row: Int) throws -> OGCGeometry {
        guard let type = layer.geometryType else { throw StoreError.invalidFeature("row \(row): a table has no geometry") }
        switch (type, geometry) {
        case (.point, .point), (.multipoint, .multiPoint), (.polyline, .multiLineString), (.polygon, .multiPolygon):
            return geometry
        case (.multipoint, .point(let p)): return .multiPoint([p])
        case (.polyline, .lineString(let path)): return .multiLineString([path])
        case (.polygon, .polygon(let rings)): return .multiPolygon([rings])
        case (.point, .multiPoint(let points)) where points.count == 1: return .point(points[0])
        default:
            throw StoreError.invalidFeature("row \(row): a \(geometry.typeName) does not fit a \(type.shortName) layer")
        }
    }
}
