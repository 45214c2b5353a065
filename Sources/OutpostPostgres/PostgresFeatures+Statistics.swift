import OutpostStorage
import OutpostWire

extension PostgresFeatures {
    /// `outStatistics`, optionally per group, filtered by `having`, ordered by group fields
    /// or output names and paged: the SpatiaLite backend's rules (`SpatiaLiteFeatures.statistics`),
    /// with PostgreSQL's sample `stddev_samp` and `var_samp`.
    static func statistics(
        _ query: LayerQuery, layer: StoredLayer, from: String, binds: [PostgresValue], connection: PostgresConnection
    ) throws -> QueryAnswer {
        let definition = layer.definition
        var select: [String] = []
        var fields: [(name: String, type: EsriFieldType)] = []
        var groups: [String] = []
        for name in query.groupByFields {
            guard let field = definition.field(named: name) else {
                throw ArcGISError.invalidQuery("'groupByFieldsForStatistics' parameter is invalid: unknown field '\(name)'")
            }
            groups.append("t.\(PostgresQuery.quoted(identifier: field.name))")
            select.append(groups.last!)
            fields.append((field.name, field.type))
        }
        let aggregates = WhereCompiler.aggregates(.postgres)
        for statistic in query.outStatistics {
            guard let field = definition.field(named: statistic.field) else {
                throw ArcGISError.invalidQuery("'outStatistics' parameter is invalid: unknown field '\(statistic.field)'")
            }
            if statistic.kind != .count && !field.type.isNumeric {
                throw ArcGISError.invalidQuery("'outStatistics' parameter is invalid: \(statistic.kind.rawValue) needs a numeric field")
            }
            let function = aggregates[statistic.kind.rawValue.uppercased()] ?? statistic.kind.rawValue
            select.append("\(function)(t.\(PostgresQuery.quoted(identifier: field.name)))")
            let type: EsriFieldType =
                switch statistic.kind {
                case .count: .integer
                case .avg, .stddev, .var: .double
                default: field.type == .oid ? .integer : field.type
                }
            guard !fields.contains(where: { $0.name.lowercased() == statistic.outName.lowercased() }) else {
                throw ArcGISError.invalidQuery("'outStatistics' parameter is invalid: the output name '\(statistic.outName)' is used twice")
            }
            fields.append((statistic.outName, type))
        }
        var sql = "SELECT \(select.joined(separator: ", "))\(from)"
        var allBinds = binds
        if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
        if let having = query.having {
            let fragment = try WhereCompiler.compile(having: having, columns: resolver(for: definition), dialect: .postgres)
            sql += " HAVING \(fragment.sql)"
            allBinds += fragment.arguments.map(\.postgresValue)
        }
        if !query.orderBy.isEmpty {
            var order: [String] = []
            for (name, ascending) in query.orderBy {
                // A group field or an output name; the output's position keeps user text out of the SQL.
                guard let index = fields.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) else {
                    throw ArcGISError.invalidQuery("'orderByFields' parameter is invalid: '\(name)' is neither a group field nor an output statistic")
                }
                order.append("\(index + 1)\(ascending ? "" : " DESC")")
            }
            sql += " ORDER BY \(order.joined(separator: ", "))"
        } else if !groups.isEmpty {
            sql += " ORDER BY \((1...groups.count).map(String.init).joined(separator: ", "))"
        }
        if query.resultRecordCount != nil || query.resultOffset != nil {
            sql += " LIMIT \(query.resultRecordCount.map(String.init) ?? "ALL") OFFSET \(query.resultOffset ?? 0)"
        }
        let rows = try connection.query(PostgresQuery(questionMarks: sql, binds: allBinds)).rows
        return .statistics(fields: fields, rows: try rows.map { row in try fields.indices.map { try jsonValue(row, $0, type: fields[$0].type) } })
    }
}
