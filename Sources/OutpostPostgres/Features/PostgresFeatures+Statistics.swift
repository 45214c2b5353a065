import OutpostStorage
import OutpostWhereSQL
import OutpostWire

extension PostgresFeatures {
    /// `outStatistics`, optionally per group, filtered by `having`, in the plan's total order
    /// and paged (`StatisticsPlan`): the SpatiaLite backend's rows (`SpatiaLiteFeatures.statistics`),
    /// with PostgreSQL's sample `stddev_samp` and `var_samp`, NULLs sorted as SQLite sorts them.
    static func statistics(
        _ query: LayerQuery, layer: StoredLayer, from: String, binds: [PostgresValue], connection: PostgresConnection
    ) throws -> QueryAnswer {
        let definition = layer.definition
        let plan = try StatisticsPlan(query, definition: definition)
        let groups = plan.groups.map { "t.\(PostgresQuery.quoted(identifier: $0.name))" }
        let aggregates = plan.statistics.map { statistic in
            "\(PostgresWhereDialect().aggregate(statistic.kind))(t.\(PostgresQuery.quoted(identifier: statistic.field.name)))"
        }
        var sql = "SELECT \((groups + aggregates).joined(separator: ", "))\(from)"
        var allBinds = binds
        if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
        if let having = query.having {
            let fragment: SQLFragment
            do {
                fragment = try WhereCompiler.compile(having: having, columns: resolver(for: definition), dialect: .postgres)
            } catch {
                throw StorageRefusal(error, in: .having)
            }
            sql += " HAVING \(fragment.sql)"
            allBinds += fragment.arguments.map(\.postgresValue)
        }
        if !plan.order.isEmpty {
            sql += " ORDER BY " + plan.order.map { "\($0.position) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }.joined(separator: ", ")
        }
        sql += " LIMIT \(plan.pageSize + 1) OFFSET \(plan.offset)"
        let rows = try connection.query(PostgresQuery(questionMarks: sql, binds: allBinds)).rows
        let exceeded = rows.count > plan.pageSize
        let page = exceeded && query.answersNothingOverTheLimit ? [] : rows.prefix(plan.pageSize)
        let values = try page.map { row in try plan.fields.indices.map { try jsonValue(row, $0, type: plan.fields[$0].type) } }
        return .statistics(fields: plan.fields, rows: values, exceededTransferLimit: exceeded)
    }
}
