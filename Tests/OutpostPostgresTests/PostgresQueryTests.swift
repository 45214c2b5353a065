import Foundation
import OutpostGeometry
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Queries on PostgreSQL give SpatiaLite's answers (docs/postgres.md, "Queries"): the demo
/// service copied row for row (ObjectIDs and GlobalIDs kept), then the same queries asked of
/// both backends and the answers compared.
@Suite(.serialized) struct PostgresQueryTests {
    /// Every row of a layer, as the SpatiaLite backend answers them, page by page.
    static func rows(of layer: StoredLayer, in store: SpatiaLiteBackend) throws -> [FeatureRow] {
        var rows: [FeatureRow] = []
        while true {
            var query = LayerQuery()
            query.outFields = ["*"]
            query.resultOffset = rows.count
            guard case .features(let page) = try store.features.query(query, service: layer.serviceName, layer: layer.definition.id) else { break }
            for feature in page.features {
                rows.append(
                    FeatureRow(
                        attributes: Dictionary(uniqueKeysWithValues: zip(page.fields.map(\.name), feature.attributes)), geometry: feature.geometry))
            }
            if !page.exceededTransferLimit { break }
        }
        return rows
    }

    /// A comparable rendering of an answer: numbers to 6 significant places, coordinates too.
    static func render(_ answer: QueryAnswer) -> String {
        func number(_ value: Double) -> String { String(format: "%.6g", value) }
        func json(_ value: JSONValue) -> String {
            switch value {
            case .double(let d): number(d)
            case .int(let i): String(i)
            default: value.jsonText
            }
        }
        func geometry(_ geometry: OGCGeometry?) -> String {
            guard let geometry else { return "-" }
            let envelope = geometry.envelope
            return "\(geometry.typeName) \([envelope.xmin, envelope.ymin, envelope.xmax, envelope.ymax].map(number))"
        }
        switch answer {
        case .features(let page):
            return "features \(page.fields.map(\.name)) \(page.exceededTransferLimit) \(page.spatialReference.wkid)\n"
                + page.features.map { "\($0.attributes.map(json)) \(geometry($0.geometry))" }.joined(separator: "\n")
        case .count(let count): return "count \(count)"
        case .objectIds(let ids): return "ids \(ids)"
        case .extent(let envelope, let count, let sr):
            return "extent \(count) \(sr.wkid) \([envelope.xmin, envelope.ymin, envelope.xmax, envelope.ymax].map(number))"
        case .statistics(let fields, let rows, let exceeded):
            return "statistics \(fields.map { "\($0.name):\($0.type.rawValue)" }) \(exceeded)\n"
                + rows.map { $0.map(json).joined(separator: " ") }.joined(separator: "\n")
        }
    }

    static let queries: [(layer: Int, parameters: [(String, String)])] = [
        (0, [("where", "1=1"), ("outFields", "*"), ("resultRecordCount", "50"), ("resultOffset", "10"), ("orderByFields", "name DESC")]),
        (0, [("where", "name LIKE 'b%'"), ("outFields", "name,rank")]),
        (0, [("where", "rank > 5 AND name <> 'Paris'"), ("returnCountOnly", "true")]),
        (0, [("where", "rank BETWEEN 2 AND 4"), ("returnIdsOnly", "true")]),
        (0, [("objectIds", "3,1,2,999"), ("outFields", "name"), ("returnGeometry", "false")]),
        (0, [("where", "UPPER(name) = 'BERLIN' OR CHAR_LENGTH(name) > 14"), ("outFields", "name"), ("outSR", "3857")]),
        (0, [("where", "rank < 3"), ("returnExtentOnly", "true"), ("returnCountOnly", "true")]),
        (1, [("geometry", "-10,40,30,60"), ("geometryType", "esriGeometryEnvelope"), ("outFields", "name,continent"), ("returnGeometry", "false")]),
        (
            1,
            [
                ("geometry", "{\"x\":1491000,\"y\":6894000}"), ("geometryType", "esriGeometryPoint"), ("inSR", "3857"),
                ("spatialRel", "esriSpatialRelIntersects"), ("outFields", "name"),
            ]
        ),
        (
            1,
            [
                ("geometry", "-20,-40,60,40"), ("geometryType", "esriGeometryEnvelope"), ("spatialRel", "esriSpatialRelContains"),
                ("returnIdsOnly", "true"),
            ]
        ),
        (
            1,
            [
                ("where", "pop_est > 1000000"), ("groupByFieldsForStatistics", "continent"), ("having", "COUNT(name) > 3"),
                ("orderByFields", "total DESC"),
                (
                    "outStatistics",
                    "[{\"statisticType\":\"count\",\"onStatisticField\":\"name\",\"outStatisticFieldName\":\"total\"},{\"statisticType\":\"avg\",\"onStatisticField\":\"pop_est\",\"outStatisticFieldName\":\"mean\"},{\"statisticType\":\"stddev\",\"onStatisticField\":\"gdp_md_est\",\"outStatisticFieldName\":\"spread\"},{\"statisticType\":\"max\",\"onStatisticField\":\"pop_est\",\"outStatisticFieldName\":\"largest\"}]"
                ),
            ]
        ),
        (
            2,
            [
                ("where", "EXTRACT(YEAR FROM planted) = 2015 AND height_m >= 10"), ("outFields", "species,planted,healthy"),
                ("orderByFields", "planted"),
            ]
        ),
        (2, [("where", "planted > DATE '2018-06-01' AND ROUND(height_m, 1) > 12.5"), ("returnCountOnly", "true")]),
        (2, [("where", "healthy = 0 OR species IN ('Tilia', 'Quercus')"), ("returnExtentOnly", "true"), ("outSR", "3857")]),
        (3, [("where", "score BETWEEN 3 AND 7 AND notes IS NOT NULL"), ("outFields", "*"), ("orderByFields", "score,inspected DESC")]),
        (3, [("where", "inspector LIKE '%a%' AND CAST(score AS REAL) / 2 > 2"), ("outFields", "inspector,score")]),
    ]

    @Test func theDemoServiceAnswersAsOnSpatiaLite() throws {
        let demo = try makeDemoStore()
        let service = try demo.schema.service(named: "Demo")
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location)
            try backend.schema.createService(service.definition)
            for layer in service.layers {
                let rows = try Self.rows(of: layer, in: demo)
                let ids = try backend.edits.insert(rows, service: "Demo", layer: layer.definition.id, keepingObjectIds: true)
                #expect(ids.count == rows.count && !rows.isEmpty)
            }
            var compared = 0
            for (layer, parameters) in Self.queries {
                let query = try LayerQuery.parse(RequestParameters(parameters + [("f", "json")]))
                let expected = Self.render(try demo.features.query(query, service: "Demo", layer: layer))
                let got = Self.render(try backend.features.query(query, service: "Demo", layer: layer))
                #expect(got == expected, "layer \(layer) \(parameters)")
                if got == expected { compared += 1 }
                let found =
                    expected.split(separator: "\n").count > 1 || (expected.hasPrefix("count") && expected != "count 0")
                    || (expected.hasPrefix("ids") && expected != "ids []") || (expected.hasPrefix("extent") && !expected.hasPrefix("extent 0"))
                #expect(found, "the query finds something: \(parameters) → \(expected.prefix(200))")
            }
            print("queries: \(compared) of \(Self.queries.count) answered as on SpatiaLite")
            let layer = try backend.schema.layer(service: "Demo", id: 1)
            let extent = try backend.features.extent(of: layer)
            let expectedExtent = try demo.features.extent(of: try demo.schema.layer(service: "Demo", id: 1))
            #expect(abs(extent.xmin - expectedExtent.xmin) < 1e-3 && abs(extent.ymax - expectedExtent.ymax) < 1e-3)
            let counted = try backend.features.count(service: "Demo", layer: 2)
            let expectedCount = try demo.features.count(service: "Demo", layer: 2)
            #expect(counted == expectedCount)
        }
    }

    @Test func whatPostgreSQLRefusesOfAParsedWhereIsTheClientsInvalidQuery() throws {
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location)
            try backend.schema.createService(pointLayerService(name: "Points"))
            let query = try LayerQuery.parse(RequestParameters([("where", "label = 5"), ("f", "json")]))
            let refusal = #expect(throws: StorageRefusal.self) { try backend.features.query(query, service: "Points", layer: 0) }
            #expect(refusal?.value == .whereClause && refusal?.arcGISError.code == 400, "\(String(describing: refusal))")
            let injection = try LayerQuery.parse(RequestParameters([("where", "label = 'x''; DROP TABLE f_points_0; --'"), ("f", "json")]))
            let answer = try backend.features.query(injection, service: "Points", layer: 0)
            #expect(Self.render(answer).hasPrefix("features"))
            #expect(try backend.features.count(service: "Points", layer: 0) == 0, "the table is still there")
        }
    }
}
