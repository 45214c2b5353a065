import Testing

@testable import OutpostWire

/// The feature-tile parameters of a layer query as the wire model reads them
/// (docs/decisions.md, "Feature tiles and distinct values").
@Suite struct TileQueryParametersTests {
    static func parse(_ pairs: [(String, String)]) throws(ArcGISError) -> LayerQuery { try LayerQuery.parse(RequestParameters(pairs)) }

    static func rejects(_ pairs: [(String, String)], naming parameter: String) {
        do {
            _ = try parse(pairs)
            Issue.record("accepted \(pairs)")
        } catch {
            #expect(error.code == 400 && error.details.joined().contains(parameter), "\(pairs): \(error.details)")
        }
    }

    static let layer = LayerDefinition(
        id: 0, name: "Trees", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
        fields: LayerDefinition.withSystemFields([]), maxRecordCount: 1000)

    @Test func resultTypeAndTheFactorSizeThePage() throws {
        #expect(try Self.parse([]).pageSize(for: Self.layer) == 1000)
        #expect(try Self.parse([("resultType", "tile"), ("maxRecordCountFactor", "3")]).pageSize(for: Self.layer) == 3000)
        #expect(try Self.parse([("resultType", "Standard"), ("maxRecordCountFactor", "5")]).pageSize(for: Self.layer) == 5000)
        #expect(try Self.parse([("maxRecordCountFactor", "2"), ("resultRecordCount", "1500")]).pageSize(for: Self.layer) == 1500)
        #expect(try Self.parse([("maxRecordCountFactor", "2"), ("resultRecordCount", "9000")]).pageSize(for: Self.layer) == 2000)
        for factor in ["0", "6", "-1", "2.5", "x"] { Self.rejects([("maxRecordCountFactor", factor)], naming: "maxRecordCountFactor") }
        Self.rejects([("resultType", "tiles")], naming: "resultType")
        var huge = Self.layer
        huge.maxRecordCount = Int.max / 2
        #expect(try Self.parse([("maxRecordCountFactor", "5")]).pageSize(for: huge) == Int(Int32.max))
    }

    @Test func returnExceededLimitFeaturesFalseEmptiesOnlyTiles() throws {
        #expect(try Self.parse([("resultType", "tile"), ("returnExceededLimitFeatures", "false")]).answersNothingOverTheLimit)
        #expect(try !Self.parse([("resultType", "tile")]).answersNothingOverTheLimit)
        #expect(try !Self.parse([("returnExceededLimitFeatures", "false")]).answersNothingOverTheLimit)
        Self.rejects([("returnExceededLimitFeatures", "maybe")], naming: "returnExceededLimitFeatures")
        #expect(try Self.parse([("returnDistinctValues", "true")]).returnDistinctValues)
    }

    @Test func defaultSRIsTheFallbackOfOutSRAndTheGeometry() throws {
        let query = try Self.parse([("defaultSR", "102100"), ("geometry", "1,2,3,4")])
        #expect(query.outSR == nil && query.answerSpatialReference(for: Self.layer) == .webMercator)
        #expect(query.geometry?.spatialReference(named: nil, layer: .wgs84) == .webMercator)
        #expect(query.geometry?.spatialReference(named: SpatialReference(wkid: 3035), layer: .wgs84).wkid == 3035)
        let explicit = try Self.parse([("defaultSR", "102100"), ("outSR", "4326"), ("inSR", "3035"), ("geometry", "1,2,3,4")])
        #expect(explicit.answerSpatialReference(for: Self.layer) == .wgs84)
        #expect(explicit.geometry?.spatialReference(named: nil, layer: .wgs84).wkid == 3035)
        Self.rejects([("defaultSR", "north")], naming: "defaultSR")
    }

    /// GeoJSON is WGS 84 (RFC 7946): `defaultSR` does not change its answer's reference; `outSR` does.
    @Test func defaultSRLeavesGeoJSONInWGS84() throws {
        var layer = Self.layer
        layer.spatialReference = SpatialReference(wkid: 2193)
        let geoJSON = try Self.parse([("f", "geojson"), ("defaultSR", "102100"), ("geometry", "1,2,3,4")])
        #expect(geoJSON.answerSpatialReference(for: layer) == .wgs84)
        // The query geometry still reads in it.
        #expect(geoJSON.geometry?.spatialReference(named: nil, layer: layer.spatialReference) == .webMercator)
        let asked = try Self.parse([("f", "geojson"), ("defaultSR", "102100"), ("outSR", "3857")])
        #expect(asked.answerSpatialReference(for: layer).wkid == 3857)
        #expect(try Self.parse([("f", "json"), ("defaultSR", "102100")]).answerSpatialReference(for: layer) == .webMercator)
    }

    static let tile =
        #"{"mode":"view","originPosition":"upperLeft","tolerance":152.87405657,"extent":{"type":"extent","xmin":1467590.8,"ymin":6887893.5,"xmax":1506726.9,"ymax":6927029.6,"spatialReference":{"wkid":102100,"latestWkid":3857}}}"#

    @Test func quantizationParametersAsTheSDKSendsThem() throws {
        let query = try Self.parse([("quantizationParameters", Self.tile), ("outSR", "102100")])
        let parameters = try #require(query.quantization)
        #expect(parameters.mode == .view && parameters.originPosition == .upperLeft && parameters.tolerance == 152.87405657)
        #expect(parameters.spatialReference?.epsg == 3857)
        let grid = try parameters.grid(outSR: .webMercator, coordinateSystem: .projected)
        #expect(grid.translateX == 1467590.8 && grid.translateY == 6927029.6 && grid.scaleX == 152.87405657)
        #expect(grid.json["scale"] == [.double(152.87405657), .double(152.87405657), 0, 0])
        #expect(grid.json["originPosition"] == "upperLeft")
        // The top-left corner is (0, 0); rows count down.
        #expect(grid.column(1467590.8) == 0 && grid.row(6927029.6) == 0 && grid.row(6927029.6 - 152.87405657 * 10) == 10)
        // In another reference than the answer's, the extent is refused.
        #expect(throws: ArcGISError.self) { try parameters.grid(outSR: .wgs84, coordinateSystem: .degrees) }
    }

    @Test func spellingsModesAndDefaults() throws {
        let lower = try QuantizationParameters.parse(
            try JSONParser.parse(#"{"originPosition":"lower-left","extent":{"xmin":0,"ymin":10,"xmax":100,"ymax":20}}"#))
        #expect(lower.originPosition == .lowerLeft && lower.mode == .view && lower.tolerance == nil)
        // No tolerance: ArcGIS's 10,000 by 10,000 grid.
        let grid = try lower.grid(outSR: .wgs84, coordinateSystem: .degrees)
        #expect(grid.scaleX == 0.01 && grid.scaleY == 0.001 && grid.translateY == 10 && grid.row(20) == 10_000)
        let bottom = try QuantizationParameters.parse(
            try JSONParser.parse(
                #"{"originPosition":"bottomLeft","tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":4326}}"#))
        #expect(bottom.originPosition == .lowerLeft && bottom.spatialReference == .wgs84)
        // maxAllowableOffset stands in for a missing tolerance.
        let offset = try Self.parse([
            ("quantizationParameters", #"{"extent":{"xmin":0,"ymin":0,"xmax":10,"ymax":10}}"#), ("maxAllowableOffset", "0.5"),
        ])
        #expect(offset.quantization?.tolerance == 0.5)
        // Edit mode: the reference's full resolution, whatever the tolerance says.
        let edit = try QuantizationParameters.parse(
            try JSONParser.parse(#"{"mode":"edit","tolerance":100,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#))
        #expect(try edit.grid(outSR: .wgs84, coordinateSystem: .degrees).scaleX == 1e-9)
        #expect(try edit.grid(outSR: .webMercator, coordinateSystem: .projected).scaleX == 1e-4)
        #expect(try edit.grid(outSR: .wgs84, coordinateSystem: .degrees).keepsEveryVertex)
    }

    @Test(arguments: [
        #"[1,2]"#, #"{"tolerance":1}"#, #"{"tolerance":0,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
        #"{"tolerance":-1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#, #"{"tolerance":"1","extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
        #"{"mode":"print","tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
        #"{"originPosition":"center","tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
        #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1}}"#, #"{"tolerance":1,"extent":{"xmin":2,"ymin":0,"xmax":1,"ymax":1}}"#,
        #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1e400,"ymax":1}}"#,
        #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":1e300}}"#,
        #"{"tolerance":1,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"name":"x"}}}"#,
        // 1e300 cells along an axis: an absurd grid is refused before anything is sized by it.
        #"{"tolerance":1e-300,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
        #"{"tolerance":1,"extent":{"xmin":-1e300,"ymin":0,"xmax":1e300,"ymax":1}}"#,
    ])
    func malformedQuantizationIsA400(_ text: String) {
        Self.rejects([("quantizationParameters", text)], naming: "quantizationParameters")
    }

    @Test func aGridWithoutAreaOrToleranceIsRefused() throws {
        let flat = try QuantizationParameters.parse(try JSONParser.parse(#"{"extent":{"xmin":0,"ymin":0,"xmax":0,"ymax":5}}"#))
        #expect(throws: ArcGISError.self) { try flat.grid(outSR: .wgs84, coordinateSystem: .degrees) }
        let edit = try QuantizationParameters.parse(try JSONParser.parse(#"{"mode":"edit","extent":{"xmin":-1e9,"ymin":0,"xmax":1e9,"ymax":1}}"#))
        #expect(throws: ArcGISError.self) { try edit.grid(outSR: .wgs84, coordinateSystem: .degrees) }
    }

    @Test func coordinatesFarOutsideTheGridHaveNoCell() {
        let grid = QuantizationGrid(originPosition: .lowerLeft, scaleX: 1e-9, scaleY: 1e-9, translateX: 0, translateY: 0, keepsEveryVertex: false)
        #expect(grid.column(1) == 1_000_000_000 && grid.row(-2) == -2_000_000_000)
        #expect(grid.column(1e7) == nil && grid.row(.infinity) == nil && grid.column(.nan) == nil)
    }
}
