import Foundation
import OutpostGeometry
import OutpostWire
import Testing

@testable import OutpostSync

/// Tiles an area of interest touches, found by descending the quadtree (docs/tiles.md, "Export").
@Suite struct AreaOfInterestTilesTests {
    static let half = WebMercatorTiling.halfWorld
    static let world = Envelope(xmin: -half, ymin: -half, xmax: half, ymax: half)

    /// A random simple-enough polygon (a star around a centre: no self-crossing ring).
    static func star(_ random: inout SeededGenerator) -> [[Point]] {
        let cx = Double.random(in: -Self.half * 0.8...half * 0.8, using: &random)
        let cy = Double.random(in: -Self.half * 0.8...half * 0.8, using: &random)
        let arms = Int.random(in: 3...12, using: &random)
        var ring: [Point] = []
        for arm in 0..<arms {
            let angle = Double(arm) / Double(arms) * 2 * .pi
            let radius = Double.random(in: Self.half * 0.01...half * 0.3, using: &random)
            ring.append(Point(x: cx + radius * cos(angle), y: cy + radius * sin(angle)))
        }
        return [ring + [ring[0]]]
    }

    /// Every tile of levels 0-6, checked one by one with the closed-square test, against the
    /// descent's counts and kept tiles, for 40 random areas, with and without an extent.
    @Test func theDescentTakesExactlyTheTilesThatTouchTheArea() throws {
        var random = SeededGenerator(seed: 43)
        for _ in 0..<40 {
            let rings = Self.star(&random)
            let extent =
                Bool.random(using: &random)
                ? Self.world : Envelope(xmin: -Self.half * 0.3, ymin: -Self.half * 0.5, xmax: Self.half * 0.4, ymax: Self.half * 0.2)
            guard let plan = try? TileExportPlanner.plan(levels: Array(0...6), extent: extent, areaOfInterest: rings, maximum: 100_000, service: "S")
            else { continue }
            var box = Envelope.empty
            for point in rings[0] { box.expand(x: point.x, y: point.y) }
            let bounds = extent.intersection(box)
            for level in plan.levels {
                var expected = 0
                for row in level.rows {
                    for column in level.columns {
                        let square = TileExportPlanner.tileEnvelope(level: level.level, row: row, column: column).intersection(bounds)
                        let touches = TileExportPlanner.touches(tile: square, rings)
                        if touches { expected += 1 }
                        #expect(level.includes(row: row, column: column) == touches, "level \(level.level) \(row)/\(column)")
                    }
                }
                #expect(level.count == expected, "level \(level.level)")
            }
        }
    }

    /// Issue 43, finding 5: an area of interest over a set that goes to level 20 was counted tile
    /// by tile over every level's block (about 1.5e12 steps in the request handler). The descent
    /// visits only the tiles the area's edges cross and stops at the first level over the limit.
    @Test func anAreaAcrossTheWorldToLevel20IsRefusedFromTheLevelThatPassesTheMaximum() throws {
        let band = [
            [
                Point(x: -Self.half * 0.99, y: -Self.half * 0.98), Point(x: Self.half * 0.98, y: Self.half * 0.99),
                Point(x: Self.half * 0.99, y: Self.half * 0.98),
                Point(x: -Self.half * 0.98, y: -Self.half * 0.99), Point(x: -Self.half * 0.99, y: -Self.half * 0.98),
            ]
        ]
        do {
            _ = try TileExportPlanner.plan(levels: Array(0...20), extent: Self.world, areaOfInterest: band, maximum: 100_000, service: "S")
            Issue.record("a diagonal band across the world to level 20 is far more than 100,000 tiles")
        } catch .tooManyTiles(let requested, let maximum, _, let dropLevels) {
            #expect(requested > maximum)
            #expect(dropLevels.first.map { $0 > 8 } == true && dropLevels.last == 20, "\(dropLevels)")
        } catch {
            Issue.record("\(error)")
        }
        // A small area at level 20 alone is a few tiles, found without walking the level's block.
        let small = [[Point(x: 1000, y: 1000), Point(x: 1100, y: 1000), Point(x: 1000, y: 1100), Point(x: 1000, y: 1000)]]
        let plan = try TileExportPlanner.plan(levels: [20], extent: Self.world, areaOfInterest: small, maximum: 100, service: "S")
        #expect((1...9).contains(plan.tileCount), "\(plan.tileCount)")
        let level = plan.levels[0]
        #expect(Self.bundles(level) <= 4)
    }

    /// The 128 × 128 bundles holding a kept tile (what the package writers visit).
    static func bundles(_ level: TileExportLevel) -> Int {
        var keys = Set<[Int]>()
        for (row, ranges) in level.runs ?? [:] {
            for range in ranges { for left in (range.lowerBound / 128)...(range.upperBound / 128) { keys.insert([row / 128, left]) } }
        }
        return keys.count
    }

    /// A thin area across a deep level keeps few of its block's tiles and bundles.
    @Test func aThinDiagonalAreaVisitsOnlyTheBundlesItCrosses() throws {
        // Off the grid's corners by a part of a tile, so that it never merely grazes one.
        let (a, b) = (-Self.half * 0.5 + 777.7, Self.half * 0.5 + 777.7)
        let thin = [
            [
                Point(x: a, y: -Self.half * 0.5), Point(x: b, y: Self.half * 0.5), Point(x: b + 1, y: Self.half * 0.5),
                Point(x: a + 1, y: -Self.half * 0.5),
                Point(x: a, y: -Self.half * 0.5),
            ]
        ]
        let plan = try TileExportPlanner.plan(levels: [14], extent: Self.world, areaOfInterest: thin, maximum: 100_000, service: "S")
        let level = plan.levels[0]
        #expect(level.rows.count * level.columns.count > 60_000_000, "the block is huge")
        #expect(level.count < 3 * 8192 && level.count >= 8192, "\(level.count)")
        #expect(Self.bundles(level) < 3 * 64, "\(Self.bundles(level))")
    }
}
