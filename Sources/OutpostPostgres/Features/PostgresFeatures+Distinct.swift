import OutpostStorage
import OutpostWire

extension PostgresFeatures {
    /// `returnDistinctValues`: the SpatiaLite backend's rows (`SpatiaLiteFeatures.distinctValues`),
    /// NULLs sorted as SQLite sorts them (first ascending, last descending).
    static func distinctValues(
        _ query: LayerQuery, layer: StoredLayer, from: String, binds: [PostgresValue], outSR: SpatialReference,
        connection: PostgresConnection
    ) throws -> QueryAnswer {
        let plan = try DistinctValuesPlan(query, definition: layer.definition)
        let select = "SELECT DISTINCT " + plan.fields.map { "t.\(PostgresQuery.quoted(identifier: $0.name))" }.joined(separator: ", ") + from
        if query.returnCountOnly {
            let count = try connection.query(PostgresQuery(questionMarks: "SELECT count(*) FROM (\(select)) d", binds: binds)).first?.int(0)
            return .count(count ?? 0)
        }
        let pageSize = query.pageSize(for: layer.definition)
        let order = plan.order.map { "\($0.position) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }.joined(separator: ", ")
        let rows = try connection.query(
            PostgresQuery(
                questionMarks: "\(select) ORDER BY \(order) LIMIT \(pageSize + 1) OFFSET \(query.resultOffset ?? 0)", binds: binds)
        ).rows
        let exceeded = rows.count > pageSize
        var features: [QueriedFeature] = []
        if !(exceeded && query.answersNothingOverTheLimit) {
            for row in rows.prefix(pageSize) {
                features.append(QueriedFeature(attributes: try plan.fields.indices.map { try jsonValue(row, $0, type: plan.fields[$0].type) }))
            }
        }
        return .features(FeaturePage(fields: plan.fields, features: features, exceededTransferLimit: exceeded, spatialReference: outSR))
    }

    /// Whether more than `pageSize` rows follow `offset`: one row looked up past the page, so
    /// a tile over the limit costs no geometry.
    static func exceedsPage(
        _ fromWhere: String, binds: [PostgresValue], pageSize: Int, offset: Int, connection: PostgresConnection
    ) throws -> Bool {
        let (skip, overflow) = offset.addingReportingOverflow(pageSize)
        guard !overflow else { return false }
        return try !connection.query(PostgresQuery(questionMarks: "SELECT 1\(fromWhere) LIMIT 1 OFFSET \(skip)", binds: binds)).rows.isEmpty
    }
}
