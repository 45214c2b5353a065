import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteFeatures {
    /// `outStatistics`, optionally per group (`groupByFieldsForStatistics`), filtered by
    /// `having`, ordered by group fields or output names, paged like features.
    static func statistics(
        _ query: LayerQuery, layer: StoredLayer, from: String, arguments: StatementArguments,
        db: Database
    ) throws -> QueryAnswer {
        let definition = layer.definition
        var select: [String] = []
        var fields: [(name: String, type: EsriFieldType)] = []
        var groups: [String] = []
        for name in query.groupByFields {
            guard let field = definition.field(named: name) else {
                throw ArcGISError.invalidQuery("'groupByFieldsForStatistics' parameter is invalid: unknown field '\(name)'")
            }
            groups.append("t.\(field.name.quotedDatabaseIdentifier)")
            select.append(groups.last!)
            fields.append((field.name, field.type))
        }
        for statistic in query.outStatistics {
            guard let field = definition.field(named: statistic.field) else {
                throw ArcGISError.invalidQuery("'outStatistics' parameter is invalid: unknown field '\(statistic.field)'")
            }
            if statistic.kind != .count && !field.type.isNumeric {
                throw ArcGISError.invalidQuery("'outStatistics' parameter is invalid: \(statistic.kind.rawValue) needs a numeric field")
            }
            let function = WhereCompiler.aggregates[statistic.kind.rawValue.uppercased()] ?? statistic.kind.rawValue
            select.append("\(function)(t.\(field.name.quotedDatabaseIdentifier))")
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
        var statementArguments = arguments
        if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
        if let having = query.having {
            let fragment = try WhereCompiler.compile(having: having, columns: resolver(for: definition))
            sql += " HAVING \(fragment.sql)"
            statementArguments += StatementArguments(fragment.arguments.map(\.databaseValue))
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
            sql += " LIMIT \(query.resultRecordCount ?? -1) OFFSET \(query.resultOffset ?? 0)"
        }
        let rows = try Row.fetchAll(db, sql: sql, arguments: statementArguments)
        let values = rows.map { row in (0..<fields.count).map { jsonValue(row[$0] as DatabaseValue) } }
        return .statistics(fields: fields, rows: values)
    }
}
