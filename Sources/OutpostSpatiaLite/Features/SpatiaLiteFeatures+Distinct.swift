import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteFeatures {
    /// `returnDistinctValues`: the distinct rows of the plan's fields (their count with
    /// `returnCountOnly`), ordered by position and paged like features.
    static func distinctValues(
        _ query: LayerQuery, layer: StoredLayer, from: String, arguments: StatementArguments, outSR: SpatialReference, db: Database
    ) throws -> QueryAnswer {
        let plan = try DistinctValuesPlan(query, definition: layer.definition)
        let select = "SELECT DISTINCT " + plan.fields.map { "t.\($0.name.quotedDatabaseIdentifier)" }.joined(separator: ", ") + from
        if query.returnCountOnly {
            return .count(try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(select))", arguments: arguments) ?? 0)
        }
        let pageSize = query.pageSize(for: layer.definition)
        let order = plan.order.map { "\($0.position)\($0.ascending ? "" : " DESC")" }.joined(separator: ", ")
        let rows = try Row.fetchAll(
            db, sql: "\(select) ORDER BY \(order) LIMIT \(pageSize + 1) OFFSET \(query.resultOffset ?? 0)", arguments: arguments)
        let exceeded = rows.count > pageSize
        let features =
            exceeded && query.answersNothingOverTheLimit
            ? [] : rows.prefix(pageSize).map { row in QueriedFeature(attributes: plan.fields.indices.map { jsonValue(row[$0] as DatabaseValue) }) }
        return .features(FeaturePage(fields: plan.fields, features: features, exceededTransferLimit: exceeded, spatialReference: outSR))
    }

    /// Whether more than `pageSize` rows follow `offset`: one row looked up past the page, so
    /// a tile over the limit costs no geometry.
    static func exceedsPage(_ fromWhere: String, arguments: StatementArguments, pageSize: Int, offset: Int, db: Database) throws -> Bool {
        let (skip, overflow) = offset.addingReportingOverflow(pageSize)
        guard !overflow else { return false }
        return try Bool.fetchOne(db, sql: "SELECT 1\(fromWhere) LIMIT 1 OFFSET \(skip)", arguments: arguments) ?? false
    }
}
