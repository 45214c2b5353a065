import OutpostWire

/// `outStatistics`, optionally per group (`groupByFieldsForStatistics`): the columns, their
/// order and the page, the same on every backend (docs/decisions.md, "Paging grouped
/// statistics"). Names are resolved against the layer, so only its own names reach SQL.
public struct StatisticsPlan: Sendable {
    public struct Statistic: Sendable {
        public var kind: OutStatistic.Kind
        public var field: FieldDefinition
    }

    /// The group fields, in the order asked.
    public var groups: [FieldDefinition]
    /// The statistics, in the order asked, after the groups in the answer.
    public var statistics: [Statistic]
    /// The answer's columns: the groups, then each statistic under its output name.
    public var fields: [(name: String, type: EsriFieldType)]
    /// The order of the rows: 1-based positions in `fields` with their direction. The
    /// `orderByFields` first (group fields or output names), then every group field not
    /// among them ascending: groups are unique by their fields, so this is a total order and
    /// pages neither overlap nor skip a group, whatever ties the asked order leaves.
    public var order: [(position: Int, ascending: Bool)]
    /// The most rows one answer holds (`LayerQuery.pageSize(for:)`): a backend reads one more
    /// to know whether `exceededTransferLimit` is true.
    public var pageSize: Int
    public var offset: Int

    public init(_ query: LayerQuery, definition: LayerDefinition) throws(StorageRefusal) {
        var groups: [FieldDefinition] = []
        var fields: [(name: String, type: EsriFieldType)] = []
        for name in query.groupByFields {
            guard let field = definition.field(named: name) else {
                throw .unknownField(name, in: .groupBy)
            }
            groups.append(field)
            fields.append((field.name, field.type))
        }
        var statistics: [Statistic] = []
        for statistic in query.outStatistics {
            guard let field = definition.field(named: statistic.field) else {
                throw .unknownField(statistic.field, in: .statistics)
            }
            if statistic.kind != .count && !field.type.isNumeric {
                throw .notNumeric(statistic: statistic.kind.rawValue)
            }
            let type: EsriFieldType =
                switch statistic.kind {
                case .count: .integer
                case .avg, .stddev, .var: .double
                default: field.type == .oid ? .integer : field.type
                }
            guard !fields.contains(where: { $0.name.lowercased() == statistic.outName.lowercased() }) else {
                throw .outputNameTwice(statistic.outName)
            }
            statistics.append(Statistic(kind: statistic.kind, field: field))
            fields.append((statistic.outName, type))
        }
        var order: [(position: Int, ascending: Bool)] = []
        for (name, ascending) in query.orderBy {
            // A group field or an output name; its position keeps the client's text out of the SQL.
            guard let index = fields.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw .neitherGroupNorStatistic(name)
            }
            if !order.contains(where: { $0.position == index + 1 }) { order.append((index + 1, ascending)) }
        }
        for position in groups.indices.map({ $0 + 1 }) where !order.contains(where: { $0.position == position }) {
            order.append((position, true))
        }
        self.groups = groups
        self.statistics = statistics
        self.fields = fields
        self.order = order
        self.pageSize = query.pageSize(for: definition)
        self.offset = query.resultOffset ?? 0
    }
}
