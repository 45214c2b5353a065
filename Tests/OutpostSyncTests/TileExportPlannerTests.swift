import OutpostGeometry
import OutpostWire
import Testing

@testable import OutpostSync

/// Which tiles an export takes (docs/tiles.md, "Export"): one row per case.
@Suite struct TileExportPlannerTests {
    static let half = WebMercatorTiling.halfWorld
    static let world = Envelope(xmin: -half, ymin: -half, xmax: half, ymax: half)

    static let levelRows: [(String, TileExportLevelKind, [Int]?)] = [
        ("0-2", .levelId, [0, 1, 2]),
        ("3, 1,1", .levelId, [1, 3]),
        ("0-1,4-5", .levelId, [0, 1, 4, 5]),
        ("2-1", .levelId, nil),
        ("7", .levelId, nil),
        ("", .levelId, nil),
        ("a", .levelId, nil),
        ("156543.03", .resolution, [0]),
        ("4891.97,9783.94", .resolution, [4, 5]),
        ("591657527.59,18489297.74", .scale, [0, 5]),
        ("900000000", .scale, [0]),
        ("-3", .scale, nil),
    ]

    @Test(arguments: levelRows.indices) func levelsAreParsedByTheirKind(_ row: Int) throws {
        let (text, kind, expected) = Self.levelRows[row]
        if let expected {
            #expect(try TileExportPlanner.levels(text, by: kind, available: 0...5) == expected, "\(text)")
        } else {
            #expect(throws: TileExportRefusal.self, "\(text)") { try TileExportPlanner.levels(text, by: kind, available: 0...5) }
        }
    }

    @Test func theWholeWorldIsEveryTileOfEachLevel() throws {
        let plan = try TileExportPlanner.plan(levels: [2, 0, 1], extent: Self.world, maximum: 100, service: "S:MapServer")
        #expect(plan.levels.map(\.count) == [1, 4, 16] && plan.tileCount == 21)
        #expect(plan.levels[2].rows == 0...3 && plan.levels[2].columns == 0...3)
    }

    @Test func aQuadrantTakesTheTilesInsideItNotTheOnesSharingAnEdge() throws {
        let northEast = Envelope(xmin: 0, ymin: 0, xmax: Self.half, ymax: Self.half)
        let plan = try TileExportPlanner.plan(levels: [1, 2], extent: northEast, maximum: 100, service: "S:MapServer")
        #expect(plan.levels[0] == TileExportLevel(level: 1, rows: 0...0, columns: 1...1, count: 1))
        #expect(plan.levels[1] == TileExportLevel(level: 2, rows: 0...1, columns: 2...3, count: 4))
        // A point takes the one tile it is in.
        let point = Envelope(xmin: 1000, ymin: 1000, xmax: 1000, ymax: 1000)
        #expect(try TileExportPlanner.plan(levels: [3], extent: point, maximum: 1, service: "S").tileCount == 1)
    }

    @Test func anAreaOfInterestLeavesOutTheTilesItDoesNotTouch() throws {
        // At level 2 (4 × 4 tiles of size s), in tile units u = (x + h) / s, v = (h − y) / s:
        // the triangle u ≥ 0.5, v ≥ 0.5, u + v ≤ 4.2 touches the tiles whose nearest point
        // max(c, 0.5) + max(r, 0.5) is below 4.2: rows of 4, 4, 3 and 2 tiles.
        let s = Self.half / 2
        func point(_ u: Double, _ v: Double) -> Point { Point(x: -Self.half + u * s, y: Self.half - v * s) }
        let triangle = [[point(0.5, 0.5), point(3.7, 0.5), point(0.5, 3.7), point(0.5, 0.5)]]
        let plan = try TileExportPlanner.plan(levels: [2], extent: Self.world, areaOfInterest: triangle, maximum: 100, service: "S")
        #expect(plan.levels[0].rows == 0...3 && plan.levels[0].columns == 0...3)
        #expect(plan.tileCount == 13)
        #expect(!TileExportPlanner.touches(tile: TileExportPlanner.tileEnvelope(level: 2, row: 3, column: 2), triangle))
        #expect(TileExportPlanner.touches(tile: TileExportPlanner.tileEnvelope(level: 2, row: 1, column: 3), triangle))
        let square = [[Point(x: 10, y: 10), Point(x: 20, y: 10), Point(x: 20, y: 20), Point(x: 10, y: 20), Point(x: 10, y: 10)]]
        #expect(try TileExportPlanner.plan(levels: [4], extent: Self.world, areaOfInterest: square, maximum: 100, service: "S").tileCount == 1)
    }

    @Test func tooManyTilesAreRefusedNamingTheCountAndTheLevelsToDrop() {
        #expect(throws: TileExportRefusal.tooManyTiles(requested: 1365, maximum: 100, service: "DemoBasemap:MapServer", dropLevels: [4, 5])) {
            try TileExportPlanner.plan(levels: Array(0...5), extent: Self.world, maximum: 100, service: "DemoBasemap:MapServer")
        }
        let error = TileExportRefusal.tooManyTiles(requested: 1365, maximum: 100, service: "DemoBasemap:MapServer", dropLevels: [4, 5]).arcGISError
        #expect(error.message.contains("Requested tile count(1365) exceeds the maximum allowed number of tiles(100)"))
        #expect(error.details == ["Leave out levels 4, 5 (or export a smaller extent)."])
        #expect(throws: TileExportRefusal.outsideTheService) {
            try TileExportPlanner.plan(
                levels: [0], extent: Envelope(xmin: 3 * Self.half, ymin: 0, xmax: 4 * Self.half, ymax: 1), maximum: 10, service: "S")
        }
    }
}
