import OutpostWire

/// `returnDistinctValues=true`: one row per distinct combination of the `outFields` values,
/// the same on every backend (docs/decisions.md, "Feature tiles and distinct values").
public struct DistinctValuesPlan: Sendable {
    /// The fields of the rows, as `outFields` names them (`*`: every field); resolved against
    /// the layer, so only its own names reach SQL.
    public var fields: [FieldDefinition]
    /// The order of the rows: 1-based positions in `fields` with their direction. The
    /// `orderByFields` first, then every other field ascending, so pages never overlap.
    public var order: [(position: Int, ascending: Bool)]

    public init(_ query: LayerQuery, definition: LayerDefinition) throws(StorageRefusal) {
        guard let requested = query.outFields else {
            throw .noDistinctFields
        }
        var fields: [FieldDefinition] = []
        if requested.contains("*") {
            fields = definition.fields
        } else {
            for name in requested {
                guard let field = definition.field(named: name) else {
                    throw .unknownField(name, in: .outFields)
                }
                if !fields.contains(where: { $0.name == field.name }) { fields.append(field) }
            }
        }
        var order: [(position: Int, ascending: Bool)] = []
        for item in query.orderBy {
            guard let index = fields.firstIndex(where: { $0.name.lowercased() == item.field.lowercased() }) else {
                throw .notADistinctField(item.field)
            }
            if !order.contains(where: { $0.position == index + 1 }) { order.append((index + 1, item.ascending)) }
        }
        for position in fields.indices.map({ $0 + 1 }) where !order.contains(where: { $0.position == position }) {
            order.append((position, true))
        }
        self.fields = fields
        self.order = order
    }
}
