import OutpostGeometry
import OutpostWire
import Testing

/// Geometries on a quantization grid as ArcGIS writes them: integers, parts delta encoded,
/// in view mode consecutive vertices in one cell dropped and degenerate parts with them.
@Suite struct QuantizationTests {
    /// A 1-unit grid whose top-left corner is (0, 100).
    static let view = QuantizationGrid(originPosition: .upperLeft, scaleX: 1, scaleY: 1, translateX: 0, translateY: 100, keepsEveryVertex: false)
    static let edit = QuantizationGrid(originPosition: .upperLeft, scaleX: 1, scaleY: 1, translateX: 0, translateY: 100, keepsEveryVertex: true)

    static func written(_ geometry: QuantizedGeometry?) -> String {
        guard let geometry else { return "nil" }
        var w = JSONWriter()
        geometry.writeEsriJSON(to: &w)
        return w.string
    }

    @Test func aPointIsItsColumnAndRow() throws {
        let point = try Self.view.quantize(.point(Point(x: 10.4, y: 89.6)))
        #expect(Self.written(point) == #"{"x":10,"y":10}"#)
        let lower = QuantizationGrid(originPosition: .lowerLeft, scaleX: 2, scaleY: 2, translateX: 0, translateY: 0, keepsEveryVertex: false)
        #expect(Self.written(try lower.quantize(.point(Point(x: 10, y: 20)))) == #"{"x":5,"y":10}"#)
        #expect(try Self.view.quantize(.point(Point(x: .nan, y: .nan))) == nil)
    }

    @Test func pathsAreDeltaEncodedAndRepeatedCellsDropped() throws {
        let line = Geometry.polyline([
            [Point(x: 0, y: 100), Point(x: 0.2, y: 99.9), Point(x: 3, y: 96), Point(x: 3.4, y: 96.1), Point(x: 5, y: 100)],
            // Collapses to one cell: no path is left of it.
            [Point(x: 50, y: 50), Point(x: 50.3, y: 50.2)],
        ])
        let quantized = try #require(try Self.view.quantize(line))
        #expect(Self.written(quantized) == #"{"paths":[[[0,0],[3,4],[2,-4]]]}"#)
        let decoded = quantized.decoded(on: Self.view)
        #expect(decoded == [[Point(x: 0, y: 100), Point(x: 3, y: 96), Point(x: 5, y: 100)]])
        // Edit mode keeps every vertex and every part.
        let full = try #require(try Self.edit.quantize(line))
        #expect(full.parts.map(\.count) == [10, 4])
        #expect(Self.written(full).hasPrefix(#"{"paths":[[[0,0],[0,0],[3,4],[0,0],[2,-4]]"#))
    }

    @Test func ringsThatCollapseAreDroppedAndTheirPolygonWithThem() throws {
        let big = [Point(x: 0, y: 100), Point(x: 10, y: 100), Point(x: 10, y: 90), Point(x: 0, y: 90), Point(x: 0, y: 100)]
        let sliver = [Point(x: 20, y: 80), Point(x: 20.3, y: 80), Point(x: 20.3, y: 79.8), Point(x: 20, y: 80)]
        let polygon = try #require(try Self.view.quantize(.polygon([big, sliver])))
        #expect(Self.written(polygon) == #"{"rings":[[[0,0],[10,0],[0,10],[-10,0],[0,-10]]]}"#)
        #expect(try Self.view.quantize(.polygon([sliver])) == nil)
        let points = try #require(try Self.view.quantize(.multipoint([Point(x: 1, y: 99), Point(x: 1.2, y: 99), Point(x: 4, y: 95)])))
        #expect(Self.written(points) == #"{"points":[[1,1],[3,4]]}"#)
    }

    /// Whatever the geometry, every vertex a client decodes lies within half a cell of a
    /// vertex of the original, in order, and the original's vertices are all within half a
    /// cell of a decoded one (a dropped vertex shares its cell with a kept one).
    @Test(arguments: [0.5, 3, 17.25])
    func decodedVerticesAreWithinHalfACell(_ tolerance: Double) throws {
        var random = SeededGenerator(seed: UInt64(tolerance * 100))
        let grid = QuantizationGrid(
            originPosition: tolerance == 3 ? .lowerLeft : .upperLeft, scaleX: tolerance, scaleY: tolerance, translateX: -500, translateY: 400,
            keepsEveryVertex: false)
        for _ in 0..<50 {
            var path: [Point] = []
            for _ in 0..<(2 + Int(random.next() % 40)) {
                path.append(Point(x: -600 + random.nextDouble() * 1200, y: -600 + random.nextDouble() * 1200))
            }
            guard let quantized = try grid.quantize(.polyline([path])) else { continue }
            let decoded = quantized.decoded(on: grid)[0]
            let half = tolerance / 2 + 1e-9
            var next = 0
            for original in path {
                // The decoded vertex for this one is the current or the next one.
                while next < decoded.count, abs(decoded[next].x - original.x) > half || abs(decoded[next].y - original.y) > half { next += 1 }
                #expect(next < decoded.count, "vertex \(original) has no decoded vertex within half a cell")
            }
        }
    }

    /// A vertex outside the reference's domain without a cell is stored data the grid cannot
    /// carry: its geometry is answered as none, not the page's 400; a vertex inside the
    /// domain without a cell is still the grid's 400 (docs/decisions.md, "Coordinate domains").
    @Test func aVertexOutsideTheDomainLeavesItsFeatureWithoutGeometry() throws {
        let domain = CoordinateSystem.degrees.domain
        let edit = QuantizationGrid(
            originPosition: .upperLeft, scaleX: 1e-9, scaleY: 1e-9, translateX: -180, translateY: 90, keepsEveryVertex: true, domain: domain)
        #expect(try edit.quantize(.point(Point(x: 1e300, y: 0))) == nil)
        #expect(try edit.quantize(.polyline([[Point(x: 0, y: 0), Point(x: -1e10, y: 0)]])) == nil)
        #expect(try edit.quantize(.point(Point(x: 10, y: 95))) != nil, "outside the domain but on the grid: answered")
        let fine = QuantizationGrid(
            originPosition: .upperLeft, scaleX: 1e-14, scaleY: 1e-14, translateX: 0, translateY: 0, keepsEveryVertex: false, domain: domain)
        #expect(throws: ArcGISError.self) { try fine.quantize(.point(Point(x: 170, y: 10))) }
        #expect(
            CoordinateSystem.degrees.clamped(Envelope(xmin: -10, ymin: .nan, xmax: .infinity, ymax: 95))
                == Envelope(xmin: -10, ymin: -90, xmax: 360, ymax: 90))
        #expect(CoordinateSystem.projected.admits(x: 4e11, y: -4e11) && !CoordinateSystem.projected.admits(x: 5e11, y: 0))
        #expect(!CoordinateSystem.degrees.admits(x: .nan, y: 0) && CoordinateSystem.degrees.admits(x: -360, y: 90))
    }

    @Test func aVertexBeyondTheIntegersIsA400() {
        let fine = QuantizationGrid(originPosition: .upperLeft, scaleX: 1e-9, scaleY: 1e-9, translateX: 0, translateY: 0, keepsEveryVertex: false)
        do {
            _ = try fine.quantize(.polyline([[Point(x: 0, y: 0), Point(x: 1e8, y: 0)]]))
            Issue.record("quantized a vertex 1e17 cells away")
        } catch {
            #expect(error.code == 400 && error.details.joined().contains("quantizationParameters"))
        }
    }
}
