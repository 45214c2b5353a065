import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Attacks on the feature-tile and distinct-value parameters of `query` (issue 44:
/// `resultType`, `maxRecordCountFactor`, `returnExceededLimitFeatures`, `quantizationParameters`,
/// `returnDistinctValues`, `defaultSR`) and what they combine with, on both backends.
/// Tests marked "Was a finding (fixed)" document a bug the review found, fixed since; the
/// others pin attacks that held.
@Suite struct QueryAttackTests {
    typealias Backend = DemoBackend

    /// Seeded demos shared by the read-only tests.
    static let shared = Guarded<[String: any OutpostBackend]>([:])

    /// `fresh`: a demo of its own, for tests that edit.
    static func withApp(_ backend: Backend, fresh: Bool = false, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let store: any OutpostBackend
        if !fresh, let made = shared.value[backend.name] {
            store = made
        } else {
            store = try backend.make()
            if !fresh { shared.withLock { $0[backend.name] = store } }
        }
        let app = Application(router: buildRouter(store: store))
        try await app.test(.router, body)
    }

    static let demo = "/arcgis/rest/services/Demo/FeatureServer"

    static func get(_ client: any TestClientProtocol, _ path: String, _ pairs: [(String, String)]) async throws -> JSONValue {
        let query = pairs.map { "\($0.0)=\(FormURLEncoding.percentEncode($0.1))" }.joined(separator: "&")
        return try await client.execute(uri: "\(demo)/\(path)?\(query)", method: .get) { json($0) }
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ pairs: [(String, String)]) async throws -> JSONValue {
        try await client.execute(uri: "\(demo)/\(path)", method: .post, headers: formHeaders, body: form(pairs)) { json($0) }
    }

    static func rows(_ answer: JSONValue) -> [[String]] {
        (answer["features"]?.arrayValue ?? []).map { feature in
            (feature["attributes"]?.objectValue ?? [:]).map { "\($0.key)=\($0.value.jsonText)" }.sorted()
        }
    }

    // MARK: - Findings

    /// Was a finding (fixed): `mode=edit` picked the "full resolution" from the EPSG code's
    /// range (4000–4999 = degrees), not from the reference's kind. A geographic reference
    /// outside it (GDA2020, EPSG 7844; Esri's 104xxx) got 0.0001 degree cells (about 11 m) and
    /// "lossless" edit answers moved vertices by metres; a projected reference inside it (EPSG
    /// 4087 World Equidistant Cylindrical, 4978 geocentric) got 1e-9 metre cells, so any extent
    /// wider than 1.1 km was a 400. Now the kind is read from PROJ's database
    /// (`CoordinateSystemCatalog`), the definitions both backends reproject with.
    @Test func editModeResolutionFollowsTheReferencesKindNotItsCode() throws {
        func grid(_ parameters: QuantizationParameters, _ wkid: Int) throws -> QuantizationGrid {
            let reference = SpatialReference(wkid: wkid)
            return try parameters.grid(outSR: reference, coordinateSystem: CoordinateSystemCatalog.coordinateSystem(of: reference))
        }
        let australia = try QuantizationParameters.parse(
            try JSONParser.parse(#"{"mode":"edit","extent":{"xmin":110,"ymin":-45,"xmax":155,"ymax":-10}}"#))
        // GDA2020, Esri's WGS 84 twin and a grads reference are angles: 0.0001 of a unit is not "full resolution".
        for wkid in [7844, 104199, 4807, 4326] { #expect(try grid(australia, wkid).scaleX == 1e-9, "\(wkid)") }
        // A 10 km extent in metre references whose codes happen to be in 4000–4999.
        let metres = try QuantizationParameters.parse(
            try JSONParser.parse(#"{"mode":"edit","extent":{"xmin":1380000,"ymin":5140000,"xmax":1390000,"ymax":5150000}}"#))
        for wkid in [4087, 4978, 102100, 2193] { #expect(try grid(metres, wkid).scaleX == 1e-4, "\(wkid)") }
        #expect(abs(CoordinateSystemCatalog.coordinateSystem(of: SpatialReference(wkid: 4807)).degreesPerUnit - 0.9) < 1e-12)
        #expect(!CoordinateSystemCatalog.knows(SpatialReference(wkid: 999_999)))
    }

    /// Was a finding (fixed), the same over HTTP: an edit-mode answer in GDA2020 decoded
    /// metres away from the stored point (both backends).
    @Test(arguments: Backend.all)
    func editModeAnswersInAGeographicReferenceDecodeToTheStoredPoint(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let base = [("f", "json"), ("where", "OBJECTID < 4"), ("outFields", "OBJECTID"), ("outSR", "7844")]
            let plain = try await Self.get(client, "0/query", base)
            let edit = #"{"mode":"edit","originPosition":"upperLeft","extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#
            let quantized = try await Self.get(client, "0/query", base + [("quantizationParameters", edit)])
            let scale = try #require(quantized["transform"]?["scale"]?.arrayValue?.first?.doubleValue, "\(quantized)")
            let stored = try #require(plain["features"]?.arrayValue)
            let cells = try #require(quantized["features"]?.arrayValue)
            try #require(stored.count == 3 && cells.count == 3)
            for (point, cell) in zip(stored, cells) {
                let x = try #require(point["geometry"]?["x"]?.doubleValue)
                let column = try #require(cell["geometry"]?["x"]?.doubleValue)
                let decoded = -180 + column * scale
                #expect(abs(decoded - x) <= 1e-8, "edit mode moved x by \(abs(decoded - x)) degree (scale \(scale))")
            }
        }
    }

    /// Was a finding (fixed): paging aggregated queries is advertised
    /// (`supportsPaginationOnAggregatedQueries: true`, issue 44) but (1) grouped statistics
    /// were ordered only by `orderByFields`, so on PostgreSQL ties fell in any order and pages
    /// overlapped and skipped groups (16 groups paged by 3 gave 14 distinct), and the two
    /// backends ordered ties differently; (2) a page never said `exceededTransferLimit`, so a
    /// client could not tell there was a next page; (3) the page was not bounded by the
    /// layer's maximum (2,500 groups answered with `maxRecordCount` 1000). Now `StatisticsPlan`
    /// orders by `orderByFields`, then every group field, reads `pageSize + 1` rows with the
    /// page size of `LayerQuery.pageSize(for:)` and sets the flag.
    @Test(arguments: Backend.all)
    func pagedGroupedStatisticsCoverEveryGroupOnceAndSayWhenMoreFollow(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let statistics = #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]"#
            let base = [
                ("f", "json"), ("where", "1=1"), ("outStatistics", statistics), ("groupByFieldsForStatistics", "healthy,species"),
                ("orderByFields", "healthy"),
            ]
            let whole = Self.rows(try await Self.get(client, "2/query", base))
            #expect(whole.count == 16)
            var paged: [[String]] = []
            for offset in stride(from: 0, to: 16, by: 3) {
                let page = try await Self.get(client, "2/query", base + [("resultRecordCount", "3"), ("resultOffset", String(offset))])
                #expect((page["exceededTransferLimit"] == true) == (offset + 3 < 16), "offset \(offset)")
                paged += Self.rows(page)
            }
            #expect(paged.count == 16 && Set(paged).count == 16 && Set(paged) == Set(whole), "pages overlap or skip groups")
            // Ties on `healthy` are broken by the group fields ascending, the same on both backends.
            func key(_ row: [String]) -> (String, String) {
                (row.first { $0.hasPrefix("healthy=") } ?? "", row.first { $0.hasPrefix("species=") } ?? "")
            }
            let ordered = whole.sorted { key($0).0 != key($1).0 ? key($0).0 < key($1).0 : key($0).1.utf8.lexicographicallyPrecedes(key($1).1.utf8) }
            #expect(whole == ordered && paged == whole, "groups are not in (healthy, species) order")
            // One group per tree: more groups than the layer's maximum (1000) must be paged.
            let perTree = try await Self.get(
                client, "2/query", [("f", "json"), ("outStatistics", statistics), ("groupByFieldsForStatistics", "OBJECTID")])
            let count = perTree["features"]?.arrayValue?.count ?? 0
            #expect(count <= 1000 && perTree["exceededTransferLimit"] == true, "\(count) groups in one answer")
        }
    }

    /// Was a finding (fixed): `applyEdits` stored a point far outside its reference's domain
    /// (x = 1e300 in WGS 84; 1e10 too), and then one anonymous edit broke the layer for
    /// others: on PostgreSQL every `outSR` query that reached the row was a 500 (PostGIS
    /// "transform: Invalid coordinate"; SpatiaLite answered `{"x":null,"y":null}`), and on both
    /// backends every quantized query without a spatial filter (the Maps SDK's snapshot mode)
    /// was a 400 ("a coordinate lies more than 2^52 cells outside the extent"). Now every edit
    /// path refuses coordinates outside the reference's domain (`EditRules.storableGeometry`,
    /// error 1000), and a row stored before (or imported) is answered without geometry where
    /// it cannot be projected or quantized (`aRowStoredOutsideTheDomainIsAnsweredWithoutGeometry`).
    @Test(arguments: Backend.all)
    func aPointOutsideItsReferencesDomainDoesNotBreakTheLayer(_ backend: Backend) async throws {
        try await Self.withApp(backend, fresh: true) { client in
            let added = try await Self.post(
                client, "0/applyEdits", [("f", "json"), ("adds", #"[{"attributes":{"name":"Nowhere"},"geometry":{"x":1e300,"y":0}}]"#)])
            #expect(added["addResults"]?.arrayValue?.first?["success"] == false, "\(added)")
            #expect(added["addResults"]?.arrayValue?.first?["error"]?["code"] == 1000, "\(added)")
            let projected = try await Self.get(client, "0/query", [("f", "json"), ("where", "1=1"), ("outFields", "OBJECTID"), ("outSR", "102100")])
            #expect(projected["error"] == nil, "outSR over the row: \(projected["error"]?.jsonText ?? "")")
            let view = #"{"mode":"view","tolerance":0.01,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#
            let snapshot = try await Self.get(
                client, "0/query", [("f", "json"), ("where", "1=1"), ("outFields", "OBJECTID"), ("quantizationParameters", view)])
            #expect(snapshot["error"] == nil, "quantized layer: \(snapshot["error"]?.jsonText ?? "")")
        }
    }

    // MARK: - Attacks that held

    /// Distinct pages at every boundary: exactly a page, the last row, past the end, offset
    /// `Int64.max`, a zero page, a tile over and at the limit, and pages of three that tile the
    /// whole list in byte order; `returnCountOnly` counts what the pages hold.
    @Test(arguments: Backend.all)
    func distinctPagesAreExactAtEveryBoundary(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let distinct = [("f", "json"), ("outFields", "continent"), ("returnDistinctValues", "true"), ("returnGeometry", "false")]
            for (extra, features, exceeded) in [
                ([("resultRecordCount", "8")], 8, false), ([("resultRecordCount", "7")], 7, true), ([("resultOffset", "7")], 1, false),
                ([("resultOffset", "8")], 0, false), ([("resultOffset", String(Int64.max))], 0, false),
                ([("resultOffset", "7"), ("resultRecordCount", "1")], 1, false), ([("resultRecordCount", "0")], 0, true),
                ([("resultRecordCount", "999999999999999")], 8, false),
                ([("resultType", "tile"), ("returnExceededLimitFeatures", "false"), ("resultRecordCount", "7")], 0, true),
                ([("resultType", "tile"), ("returnExceededLimitFeatures", "false"), ("resultRecordCount", "8")], 8, false),
                ([("resultType", "tile"), ("returnExceededLimitFeatures", "false"), ("resultOffset", "1"), ("resultRecordCount", "7")], 7, false),
            ] as [([(String, String)], Int, Bool)] {
                let page = try await Self.get(client, "1/query", distinct + extra)
                #expect(page["features"]?.arrayValue?.count == features, "\(extra): \(page)")
                #expect((page["exceededTransferLimit"] == true) == exceeded, "\(extra)")
            }
            // Two fields paged by three: every combination once, in (species, healthy) byte order.
            let pair = [("f", "json"), ("outFields", "species,healthy"), ("returnDistinctValues", "true")]
            var paged: [(String, Int64)] = []
            for offset in stride(from: 0, to: 18, by: 3) {
                let page = try await Self.get(client, "2/query", pair + [("resultRecordCount", "3"), ("resultOffset", String(offset))])
                for feature in page["features"]?.arrayValue ?? [] {
                    paged.append((feature["attributes"]?["species"]?.stringValue ?? "", feature["attributes"]?["healthy"]?.int64Value ?? -1))
                }
            }
            #expect(paged.count == 16 && Set(paged.map { "\($0.0)|\($0.1)" }).count == 16)
            let ordered = paged.sorted { ($0.0.utf8.lexicographicallyPrecedes($1.0.utf8)) || ($0.0 == $1.0 && $0.1 < $1.1) }
            #expect(paged.map { "\($0.0)|\($0.1)" } == ordered.map { "\($0.0)|\($0.1)" })
            let counted = try await Self.get(client, "2/query", pair + [("returnCountOnly", "true"), ("resultRecordCount", "1")])
            #expect(counted == ["count": 16])
        }
    }

    /// Distinct values after edits that stress comparison: NULLs, 0 and -0.0, denormals, case
    /// (byte order puts "ZZ" before "zz"), the same on both backends, descending NULLs last.
    @Test(arguments: Backend.all)
    func distinctNullsZerosDenormalsAndCaseOrderAsBytes(_ backend: Backend) async throws {
        try await Self.withApp(backend, fresh: true) { client in
            let ring = #"{"rings":[[[0,0],[0,1],[1,1],[0,0]]]}"#
            let adds =
                #"[{"attributes":{"name":"a","continent":"zz","pop_est":-0.0,"gdp_md_est":1e-310},"geometry":\#(ring)},"#
                + #"{"attributes":{"name":"b","continent":"ZZ","pop_est":0,"gdp_md_est":5e-324},"geometry":\#(ring)},"#
                + #"{"attributes":{"name":"c","continent":"Zz","pop_est":null,"gdp_md_est":null},"geometry":\#(ring)}]"#
            let added = try await Self.post(client, "1/applyEdits", [("f", "json"), ("adds", adds)])
            #expect(added["addResults"]?.arrayValue?.allSatisfy { $0["success"] == true } == true, "\(added)")
            let mine = ("where", "name IN ('a','b','c')")
            let continents = try await Self.get(
                client, "1/query", [("f", "json"), mine, ("outFields", "continent"), ("returnDistinctValues", "true")])
            #expect(continents["features"]?.arrayValue?.compactMap { $0["attributes"]?["continent"]?.stringValue } == ["ZZ", "Zz", "zz"])
            let numbers = try await Self.get(
                client, "1/query",
                [("f", "json"), mine, ("outFields", "pop_est,gdp_md_est"), ("returnDistinctValues", "true"), ("orderByFields", "pop_est DESC")])
            let values = (numbers["features"]?.arrayValue ?? []).map {
                [$0["attributes"]?["pop_est"]?.jsonText, $0["attributes"]?["gdp_md_est"]?.jsonText]
            }
            #expect(values.count == 3 && values.last == ["null", "null"], "\(values)")
            #expect(values.prefix(2).allSatisfy { $0[0] == "0" }, "\(values)")
            let zeros = try await Self.get(
                client, "1/query", [("f", "json"), mine, ("outFields", "pop_est"), ("returnDistinctValues", "true"), ("returnCountOnly", "true")])
            #expect(zeros == ["count": 2])  // NULL and one zero
        }
    }

    /// `outFields` and `orderByFields` of a distinct query reach SQL only as the layer's own
    /// names: quoting, expressions, the geometry column, aliases and statement tails are 400s;
    /// case and duplicates resolve to one column; nothing is changed.
    @Test(arguments: Backend.all)
    func distinctNamesAreOnlyTheLayersColumns(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let distinct = [("f", "json"), ("returnDistinctValues", "true"), ("returnGeometry", "false")]
            for pairs in [
                [("outFields", "Shape")], [("outFields", "shape")], [("outFields", "continent AS c")], [("outFields", "count(*)")],
                [("outFields", "continent)--")], [("outFields", "'continent'")], [("outFields", "[continent]")], [("outFields", "OBJECTID+1")],
                [("outFields", "Continent alias")], [("outFields", "continent"), ("orderByFields", "1")],
                [("outFields", "continent"), ("orderByFields", "continent; DROP TABLE x")],
                [("outFields", "continent"), ("orderByFields", "continent NULLS FIRST")],
                [("outFields", "continent"), ("orderByFields", "(continent)")], [("outFields", "continent"), ("orderByFields", "OBJECTID")],
            ] {
                let answer = try await Self.get(client, "1/query", distinct + pairs)
                #expect(answer["error"]?["code"] == 400, "\(pairs): \(answer)")
            }
            let folded = try await Self.get(
                client, "1/query", distinct + [("outFields", "CONTINENT,continent, Continent"), ("orderByFields", "CONTINENT DESC, continent ASC")])
            #expect(
                folded["fields"]?.arrayValue?.count == 1 && folded["features"]?.arrayValue?.first?["attributes"] == ["continent": "South America"])
            let every = try await Self.get(client, "1/query", distinct + [("outFields", "*"), ("resultRecordCount", "2")])
            #expect(every["fields"]?.arrayValue?.count == 7 && every["features"]?.arrayValue?.first?["attributes"]?["OBJECTID"] == 1)
            let count = try await Self.get(client, "1/query", [("f", "json"), ("where", "1=1"), ("returnCountOnly", "true")])
            #expect(count == ["count": 177])
        }
    }

    /// Hostile numbers in `quantizationParameters` and friends are the 400 envelope on both
    /// backends, never a fault: NaN (the parser reads it), Infinity, overflowing literals, -0,
    /// denormal extents and tolerances, grids of 2^40+ cells, an edit grid over a huge extent,
    /// wkids that are not references, PBF.
    @Test(arguments: Backend.all)
    func hostileQuantizationNumbersAre400s(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            let base = [("f", "json"), ("where", "OBJECTID < 5"), ("outFields", "OBJECTID")]
            for text in [
                #"{"tolerance":NaN,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                #"{"tolerance":Infinity,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                #"{"tolerance":1e999,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                #"{"tolerance":-0.0,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                #"{"tolerance":5e-324,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                #"{"extent":{"xmin":-0.0,"ymin":-0.0,"xmax":0,"ymax":0}}"#,
                #"{"extent":{"xmin":0,"ymin":0,"xmax":5e-320,"ymax":5e-320}}"#,
                #"{"extent":{"xmin":NaN,"ymin":0,"xmax":1,"ymax":1}}"#,
                #"{"tolerance":1e308,"extent":{"xmin":-1.7e308,"ymin":-1.7e308,"xmax":1.7e308,"ymax":1.7e308}}"#,
                // A zero-area extent with a denormal tolerance passes the early check; the vertices then have no cell.
                #"{"tolerance":5e-324,"extent":{"xmin":0,"ymin":0,"xmax":0,"ymax":0}}"#,
                #"{"mode":"edit","extent":{"xmin":-1e9,"ymin":-1e9,"xmax":1e9,"ymax":1e9}}"#,
                #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":0}}"#,
                #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":-4326}}"#,
                #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":9999999999999}}}"#,
                #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1},"mode":["view"]}"#,
                #"{"tolerance":{"valueOf":1},"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                #""view""#, "null", "",
            ] {
                let answer = try await Self.get(client, "1/query", base + [("quantizationParameters", text)])
                #expect(answer["error"]?["code"] == 400 || (text.isEmpty && answer["error"] == nil), "\(text): \(answer)")
            }
            for pairs in [
                [("f", "pbf")], [("maxRecordCountFactor", "9223372036854775807")], [("maxRecordCountFactor", "1e1")],
                [("resultOffset", "9223372036854775808")], [("resultRecordCount", "-1")], [("defaultSR", "NaN")],
            ] {
                let answer = try await Self.get(client, "1/query", [("f", "json")] + pairs)
                #expect(answer["error"]?["code"] == 400, "\(pairs): \(answer)")
            }
        }
    }

    /// The page bound holds whatever `resultRecordCount` asks: the layer's maximum times the
    /// factor, for features and for distinct rows; a tile over it reads as empty.
    @Test(arguments: Backend.all)
    func thePageBoundHoldsWithAHugeResultRecordCount(_ backend: Backend) async throws {
        try await Self.withApp(backend) { client in
            for (factor, distinct, count, exceeded) in [
                ("1", false, 1000, true), ("5", false, 2500, false), ("1", true, 1000, true), ("3", true, 2500, false),
            ] {
                let answer = try await Self.get(
                    client, "2/query",
                    [
                        ("f", "json"), ("outFields", "OBJECTID"), ("returnGeometry", "false"), ("resultRecordCount", String(Int64.max)),
                        ("maxRecordCountFactor", factor), ("returnDistinctValues", String(distinct)),
                    ])
                #expect(
                    answer["features"]?.arrayValue?.count == count && (answer["exceededTransferLimit"] == true) == exceeded, "\(factor) \(distinct)")
            }
            let tile = try await Self.get(
                client, "2/query",
                [
                    ("f", "json"), ("resultType", "tile"), ("returnExceededLimitFeatures", "false"), ("resultRecordCount", "2499"),
                    ("maxRecordCountFactor", "5"), ("resultOffset", "1"),
                ])
            #expect(tile["features"]?.arrayValue?.count == 2499 && tile["exceededTransferLimit"] == nil)
        }
    }
}
