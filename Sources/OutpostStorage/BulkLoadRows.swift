import OutpostGeometry
import OutpostWire

/// The rows of a bulk load (import, demo data, a move between stores), read the same way by
/// both backends: each attribute found by its field's name in any case (each spelling
/// resolved once per load), an unknown field refused, values coerced leniently, GlobalIDs
/// normalised or drawn from one seeded generator per load (no system call per row), and
/// geometries checked storable. Errors name the row.
public struct BulkLoadRows {
    /// The layer's fields without OBJECTID, in the order `values` fills them.
    public let fields: [FieldDefinition]
    private let definition: LayerDefinition
    private let globalIdPosition: Int?
    private let objectIdKey: String
    private let positionByLoweredName: [String: Int]
    /// Attribute keys repeat across rows: each spelling's position (−1: OBJECTID).
    private var positionByKey: [String: Int] = [:]
    private var generator: SeededGenerator

    public init(_ definition: LayerDefinition) {
        self.definition = definition
        fields = definition.fields.filter { $0.type != .oid }
        globalIdPosition = fields.firstIndex { $0.type == .globalID }
        objectIdKey = definition.objectIdField.lowercased()
        positionByLoweredName = Dictionary(fields.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var system = SystemRandomNumberGenerator()
        generator = SeededGenerator(seed: system.next())
    }

    /// One row read: a value for each of `fields`, the OBJECTID it names (if any; kept only by
    /// a move), and its geometry made storable (nil when the row has none).
    public struct Row {
        public var values: [SQLValue]
        public var objectId: JSONValue?
        public var geometry: OGCGeometry?
    }

    public mutating func read(_ row: FeatureRow, index: Int) throws -> Row {
        var values = [SQLValue](repeating: .null, count: fields.count)
        var objectId: JSONValue?
        var globalId: String?
        for (key, value) in row.attributes {
            let position = try position(of: key, row: index)
            if position < 0 {
                objectId = value
                continue
            }
            if position == globalIdPosition {
                if case .null = value { continue }
                guard let text = value.stringValue, let normalized = GlobalID.normalize(text) else {
                    throw StoreError.invalidFeature("row \(index): '\(value.jsonText)' is not a GlobalID")
                }
                globalId = normalized
                continue
            }
            do {
                values[position] = try FieldValue.coerce(value, for: fields[position], mode: .lenient)
            } catch {
                throw StoreError.invalidFeature("row \(index): \(error.description)")
            }
        }
        if let globalIdPosition { values[globalIdPosition] = .text(globalId ?? GlobalID.make(using: &generator)) }
        let geometry = definition.geometryType == nil ? nil : try row.geometry.map { try SchemaRules.storable($0, for: definition, row: index) }
        return Row(values: values, objectId: objectId, geometry: geometry)
    }

    private mutating func position(of key: String, row index: Int) throws -> Int {
        if let cached = positionByKey[key] { return cached }
        let lowered = key.lowercased()
        let found: Int
        if lowered == objectIdKey {
            found = -1
        } else {
            guard let position = positionByLoweredName[lowered] else {
                throw StoreError.invalidFeature("row \(index): unknown field '\(key)'")
            }
            found = position
        }
        positionByKey[key] = found
        return found
    }
}
