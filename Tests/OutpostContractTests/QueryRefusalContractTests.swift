import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// Every backend refuses the same bad values of a query with the same typed refusal, said of
/// the value and not of the HTTP parameter that carried it (`StorageRefusal`; the HTTP layer
/// names that).
@Suite struct QueryRefusalContractTests {
    static let count = #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]"#

    static let refusals: [([(String, String)], StorageRefusal)] = [
        ([("where", "nope = 1")], .unknownField("nope", in: .whereClause)),
        ([("where", "UPPER(label, label) = 'A'")], .invalidClause("UPPER takes 1 argument(s)", in: .whereClause)),
        ([("where", "1=1; DROP TABLE x")], .invalidClause("';' is not allowed in a where clause (at character 4)", in: .whereClause)),
        ([("outSR", "999999")], .unknownSpatialReference(999_999, of: .outputSpatialReference)),
        ([("geometry", "0,0,1,1"), ("inSR", "999999")], .unknownSpatialReference(999_999, of: .geometrySpatialReference)),
        ([("outFields", "nope")], .unknownField("nope", in: .outFields)),
        ([("orderByFields", "nope")], .unknownField("nope", in: .orderBy)),
        ([("outStatistics", count), ("groupByFieldsForStatistics", "nope")], .unknownField("nope", in: .groupBy)),
        (
            [("outStatistics", count), ("groupByFieldsForStatistics", "label"), ("having", "SUM(value + 1) > 1")],
            .invalidClause("SUM takes one field", in: .having)
        ),
        ([("outStatistics", #"[{"statisticType":"avg","onStatisticField":"label","outStatisticFieldName":"a"}]"#)], .notNumeric(statistic: "avg")),
        ([("returnDistinctValues", "true"), ("outFields", "label"), ("orderByFields", "value")], .notADistinctField("value")),
        ([("returnDistinctValues", "true")], .noDistinctFields),
    ]

    @Test(arguments: ContractBackend.all, refusals)
    func aBadValueIsRefusedAlikeOnEveryBackend(_ contract: ContractBackend, _ bad: ([(String, String)], StorageRefusal)) throws {
        let (pairs, refusal) = bad
        let (backend, _) = try contract.fresh()
        let query = try LayerQuery.parse(RequestParameters([("f", "json")] + pairs))
        #expect(throws: refusal) { try backend.features.query(query, service: "Points", layer: 0) }
    }

    @Test(arguments: ContractBackend.all)
    func tooManyIdsAndASpatialFilterOnATableAreRefused(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        var ids = LayerQuery()
        ids.objectIds = Array(1...100_001)
        #expect(throws: StorageRefusal.tooManyObjectIds(limit: 100_000)) { try backend.features.query(ids, service: "Points", layer: 0) }
        var table = pointLayerService(name: "Plain")
        table.layers[0].kind = .table
        table.layers[0].geometryType = nil
        _ = try backend.schema.createService(table)
        let spatial = try LayerQuery.parse(RequestParameters([("f", "json"), ("geometry", "0,0,1,1")]))
        #expect(throws: StorageRefusal.notSpatial(layer: "Points")) { try backend.features.query(spatial, service: "Plain", layer: 0) }
    }
}
