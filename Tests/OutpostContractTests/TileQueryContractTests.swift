import OutpostDataTools
import OutpostGeometry
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Feature-tile queries and distinct values, the same on every backend, over the demo
/// (docs/decisions.md, "Feature tiles and distinct values"): Trees (layer 2, 2,500 points,
/// `maxRecordCount` 1000) and Countries (layer 1, 177 polygons).
@Suite struct TileQueryContractTests {
    /// One seeded demo per backend, shared by these read-only tests.
    static let demos = Guarded<[String: any OutpostBackend]>([:])

    static func demo(_ contract: ContractBackend) throws -> any OutpostBackend {
        if let made = demos.value[contract.name] { return made }
        let backend = try contract.make(ManualClock())
        try DemoData.seed(backend, testdataDirectory: TestFolders.testdata)
        demos.withLock { $0[contract.name] = backend }
        return backend
    }

    static func query(_ backend: any OutpostBackend, layer: Int, _ pairs: [(String, String)]) throws -> QueryAnswer {
        try backend.features.query(try LayerQuery.parse(RequestParameters(pairs + [("f", "json")])), service: "Demo", layer: layer)
    }

    static func page(_ backend: any OutpostBackend, layer: Int, _ pairs: [(String, String)]) throws -> FeaturePage {
        guard case .features(let page) = try query(backend, layer: layer, pairs) else { throw ArcGISError.invalidQuery("not a feature page") }
        return page
    }

    /// Every tree: the envelope of Berlin's generated trees, as a tile query sends it.
    static let allTrees = [("geometry", "13,52,14,53"), ("geometryType", "esriGeometryEnvelope"), ("outFields", "OBJECTID")]

    @Test(arguments: ContractBackend.all)
    func aTileOverTheLimitAnswersNoFeaturesAndSaysSo(_ contract: ContractBackend) throws {
        let demo = try Self.demo(contract)
        let tile = Self.allTrees + [("resultType", "tile"), ("returnExceededLimitFeatures", "false")]
        let over = try Self.page(demo, layer: 2, tile + [("maxRecordCountFactor", "1")])
        #expect(over.features.isEmpty && over.exceededTransferLimit)
        // The same tile at the SDK's factor 3 holds all 2,500 trees.
        let whole = try Self.page(demo, layer: 2, tile + [("maxRecordCountFactor", "3")])
        #expect(whole.features.count == 2500 && !whole.exceededTransferLimit)
        // A tile under the limit answers its trees.
        let corner = try Self.page(
            demo, layer: 2,
            [("geometry", "13.2,52.4,13.3,52.45"), ("outFields", "OBJECTID"), ("resultType", "tile"), ("returnExceededLimitFeatures", "false")])
        let counted = try Self.query(demo, layer: 2, [("geometry", "13.2,52.4,13.3,52.45"), ("returnCountOnly", "true")])
        guard case .count(let inCorner) = counted else { throw ArcGISError.invalidQuery("no count") }
        #expect(inCorner > 50 && inCorner < 1000 && corner.features.count == inCorner && !corner.exceededTransferLimit)
        // The last page of a paged tile is not over the limit.
        let last = try Self.page(demo, layer: 2, tile + [("maxRecordCountFactor", "1"), ("resultOffset", "2000")])
        #expect(last.features.count == 500 && !last.exceededTransferLimit)
        // By default, and outside tiles, an over-limit page holds the first features, as before.
        let partial = try Self.page(demo, layer: 2, Self.allTrees + [("resultType", "tile")])
        #expect(partial.features.count == 1000 && partial.exceededTransferLimit)
        let standard = try Self.page(demo, layer: 2, Self.allTrees + [("returnExceededLimitFeatures", "false")])
        #expect(standard.features.count == 1000 && standard.exceededTransferLimit)
    }

    @Test(arguments: ContractBackend.all)
    func pagesAreTheResultTypesMaximumTimesTheFactor(_ contract: ContractBackend) throws {
        let demo = try Self.demo(contract)
        let doubled = try Self.page(demo, layer: 2, [("resultType", "standard"), ("maxRecordCountFactor", "2")])
        #expect(doubled.features.count == 2000 && doubled.exceededTransferLimit)
        let all = try Self.page(demo, layer: 2, [("maxRecordCountFactor", "5"), ("resultOffset", "100")])
        #expect(all.features.count == 2400 && !all.exceededTransferLimit)
        let capped = try Self.page(demo, layer: 2, [("resultType", "tile"), ("maxRecordCountFactor", "5"), ("resultRecordCount", "10")])
        #expect(capped.features.count == 10 && capped.exceededTransferLimit)
    }

    @Test(arguments: ContractBackend.all)
    func distinctValuesAreOneRowPerCombination(_ contract: ContractBackend) throws {
        let demo = try Self.demo(contract)
        let everyCountry = try Self.page(demo, layer: 1, [("outFields", "continent"), ("returnGeometry", "false")])
        let continents = Set(everyCountry.features.compactMap { $0.attributes[1].stringValue })
        #expect(everyCountry.features.count == 177 && continents.count == 8)
        let distinct = [("outFields", "continent"), ("returnDistinctValues", "true"), ("returnGeometry", "false")]
        let rows = try Self.page(demo, layer: 1, distinct)
        #expect(rows.fields.map(\.name) == ["continent"])
        let names = rows.features.compactMap { $0.attributes.first?.stringValue }
        #expect(names.count == 8 && Set(names) == continents && names == names.sorted())
        #expect(rows.features.allSatisfy { $0.geometry == nil } && !rows.exceededTransferLimit)
        let descending = try Self.page(demo, layer: 1, distinct + [("orderByFields", "continent DESC")])
        #expect(descending.features.compactMap { $0.attributes.first?.stringValue } == names.reversed())
        guard case .count(let count) = try Self.query(demo, layer: 1, distinct + [("returnCountOnly", "true")]) else {
            throw ArcGISError.invalidQuery("no count")
        }
        #expect(count == 8)
        // With a where clause: the continents of the countries it selects.
        let populous = try Self.page(demo, layer: 1, [("where", "pop_est > 100000000"), ("outFields", "continent")])
        let selected = try Self.page(demo, layer: 1, distinct + [("where", "pop_est > 100000000")])
        let wanted = Set(populous.features.compactMap { $0.attributes[1].stringValue })
        #expect(Set(selected.features.compactMap { $0.attributes[0].stringValue }) == wanted)
        #expect(selected.features.count == wanted.count && selected.features.count < 8)
        // Pages of three, in order, make the whole list.
        var paged: [String] = []
        for offset in stride(from: 0, to: 9, by: 3) {
            let page = try Self.page(demo, layer: 1, distinct + [("resultRecordCount", "3"), ("resultOffset", String(offset))])
            #expect(page.exceededTransferLimit == (offset + 3 < 8))
            paged += page.features.compactMap { $0.attributes.first?.stringValue }
        }
        #expect(paged == names)
        // returnGeometry=true answers the same rows, without geometry.
        let withGeometry = try Self.page(demo, layer: 1, [("outFields", "continent"), ("returnDistinctValues", "true")])
        #expect(withGeometry.features.compactMap { $0.attributes.first?.stringValue } == names)
        #expect(withGeometry.features.allSatisfy { $0.geometry == nil })
        // Two fields: every combination once.
        let pairs = try Self.page(demo, layer: 2, [("outFields", "species,healthy"), ("returnDistinctValues", "true"), ("returnGeometry", "false")])
        let combinations = pairs.features.map { $0.attributes.map(\.jsonText).joined(separator: "|") }
        #expect(Set(combinations).count == combinations.count && combinations.count == 16)
    }

    @Test(arguments: ContractBackend.all)
    func distinctNamesOnlyTheLayersFields(_ contract: ContractBackend) throws {
        let demo = try Self.demo(contract)
        for pairs in [
            [("outFields", "continent"), ("orderByFields", "name")], [("outFields", "continent;DROP TABLE x")], [("outFields", "\"continent\"")],
            [("returnGeometry", "false")],
        ] {
            #expect(throws: StorageRefusal.self, "\(pairs)") {
                try Self.query(demo, layer: 1, pairs + [("returnDistinctValues", "true")])
            }
        }
        #expect(try demo.features.count(service: "Demo", layer: 1) == 177)
    }

    /// Decoding a quantized answer (the transform applied, deltas summed) gives back the stored
    /// coordinates within half a cell, in the output reference.
    @Test(arguments: ContractBackend.all)
    func quantizedAnswersDecodeToTheStoredCoordinates(_ contract: ContractBackend) throws {
        let demo = try Self.demo(contract)
        let layer = try demo.layer(service: "Demo", id: 1).definition
        for (outSR, tolerance, extent) in [
            (
                "102100", 2000.0,
                #"{"xmin":-20037508.34,"ymin":-20037508.34,"xmax":20037508.34,"ymax":20037508.34,"spatialReference":{"wkid":102100}}"#
            ),
            ("4326", 0.01, #"{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}"#),
        ] {
            let plain = [("where", "continent = 'Europe'"), ("outFields", "OBJECTID"), ("outSR", outSR)]
            let quantization = #"{"mode":"view","originPosition":"upperLeft","tolerance":\#(tolerance),"extent":\#(extent)}"#
            let query = try LayerQuery.parse(RequestParameters(plain + [("quantizationParameters", quantization), ("f", "json")]))
            let grid = try #require(try query.quantizationGrid(for: layer, coordinateSystem: CoordinateSystemCatalog.coordinateSystem(of:)))
            guard case .features(let page) = try demo.features.query(query, service: "Demo", layer: 1) else {
                throw ArcGISError.invalidQuery("no page")
            }
            let quantized = try page.quantized(on: grid, layerType: .polygon)
            let stored = try Self.page(demo, layer: 1, plain)
            #expect(page.features.count == stored.features.count && page.features.count > 30)
            let half = tolerance / 2 * 1.000001
            var vertices = 0
            for (feature, encoded) in zip(stored.features, quantized.geometries) {
                guard case .polygon(let rings) = Geometry(ogc: try #require(feature.geometry), layerType: .polygon) else { continue }
                let decoded = try #require(encoded).decoded(on: grid)
                // Every decoded vertex is a stored one's cell; every stored vertex is near a decoded one.
                let original = rings.flatMap { $0 }
                for ring in decoded {
                    for p in ring {
                        #expect(original.contains { abs($0.x - p.x) <= half && abs($0.y - p.y) <= half })
                        vertices += 1
                    }
                }
                #expect(decoded.count <= rings.count)
            }
            #expect(vertices > 500, "\(outSR): \(vertices) vertices decoded")
            // Points: every tree's cell holds it.
            let trees = try Self.page(demo, layer: 2, [("outSR", outSR), ("maxRecordCountFactor", "3")])
            let treeQuery = try LayerQuery.parse(
                RequestParameters([("outSR", outSR), ("maxRecordCountFactor", "3"), ("quantizationParameters", quantization), ("f", "json")]))
            guard case .features(let treePage) = try demo.features.query(treeQuery, service: "Demo", layer: 2) else { continue }
            let treeGrid = try #require(
                try treeQuery.quantizationGrid(
                    for: try demo.layer(service: "Demo", id: 2).definition, coordinateSystem: CoordinateSystemCatalog.coordinateSystem(of:)))
            let cells = try treePage.quantized(on: treeGrid, layerType: .point)
            #expect(cells.geometries.count == 2500)
            for (feature, cell) in zip(trees.features, cells.geometries) {
                guard case .point(let p) = try #require(feature.geometry), let decoded = try #require(cell).decoded(on: treeGrid).first?.first else {
                    continue
                }
                #expect(abs(decoded.x - p.x) <= half && abs(decoded.y - p.y) <= half)
            }
        }
    }
}
