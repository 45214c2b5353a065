import GRDB
import OutpostStorage
import OutpostWhereSQL
import OutpostWire

extension SpatiaLiteFeatures {
    /// `outStatistics`, optionally per group (`groupByFieldsForStatistics`), filtered by
    /// `having`, in the plan's total order, paged like features (`StatisticsPlan`): one row
    /// is read past the page to say `exceededTransferLimit`.
    static func statistics(
        _ query: LayerQuery, layer: StoredLayer, from: String, arguments: StatementArguments,
        db: Database
    ) throws -> QueryAnswer {
        let definition = layer.definition
        let plan = try StatisticsPlan(query, definition: definition)
        let groups = plan.groups.map { "t.\($0.name.quotedDatabaseIdentifier)" }
        let aggregates = plan.statistics.map { statistic in
            "\(SQLiteWhereDialect().aggregate(statistic.kind))(t.\(statistic.field.name.quotedDatabaseIdentifier))"
        }
        var sql = "SELECT \((groups + aggregates).joined(separator: ", "))\(from)"
        var statementArguments = arguments
        if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
        if let having = query.having {
            let fragment: SQLFragment
            do {
                fragment = try WhereCompiler.compile(having: having, columns: resolver(for: definition), dialect: .sqlite)
            } catch {
                throw StorageRefusal(error, in: .having)
            }
            sql += " HAVING \(fragment.sql)"
            statementArguments += StatementArguments(fragment.arguments.map(\.databaseValue))
        }
        // SQLite sorts NULLs first ascending and last descending; PostgreSQL is told the same.
        if !plan.order.isEmpty { sql += " ORDER BY " + plan.order.map { "\($0.position)\($0.ascending ? "" : " DESC")" }.joined(separator: ", ") }
        sql += " LIMIT \(plan.pageSize + 1) OFFSET \(plan.offset)"
        let rows = try Row.fetchAll(db, sql: sql, arguments: statementArguments)
        let exceeded = rows.count > plan.pageSize
        let page = exceeded && query.answersNothingOverTheLimit ? [] : rows.prefix(plan.pageSize)
        let values = page.map { row in (0..<plan.fields.count).map { jsonValue(row[$0] as DatabaseValue) } }
        return .statistics(fields: plan.fields, rows: values, exceededTransferLimit: exceeded)
    }
}
