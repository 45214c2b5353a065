import OutpostGeometry
import OutpostWire

/// The tiles of each level that an export's area of interest touches, found by descending the
/// tile quadtree (docs/tiles.md, "Export"). Only tiles an edge of the area crosses are divided,
/// each keeping the edges that cross it; a tile no edge crosses is wholly inside the area or
/// wholly outside (one point-in-polygon test against an index of strips), and a tile wholly
/// inside counts its 4^k descendants k levels down without visiting them. So the work follows
/// the tiles the area's edges cross, every one of which is taken: the descent stops as soon as
/// a level holds more tiles than the maximum, however large the blocks or deep the levels.
///
/// A tile touches the area when its closed square meets the closed region of any ring (holes
/// are not cut out: a few more tiles taken, never one the area needs left out).
struct AreaOfInterestTiles {
    struct Edge {
        var ax, ay, bx, by: Double
        var ring: Int32
    }

    /// A tile wholly inside the area, taken with all its descendants (clipped to the export
    /// extent's block when the tile straddles the extent).
    private struct InsideTile {
        var level: Int
        var row: Int
        var column: Int
    }

    /// What the descent found: each requested level's count and kept columns per row, or the
    /// level where the count passed the maximum and the lower bound it had reached.
    enum Outcome {
        case levels([TileExportLevel])
        case tooMany(atLeast: Int, fromLevel: Int)
    }

    private let edges: [Edge]
    private let strips: [[Int32]]
    private let stripBottom: Double
    private let stripHeight: Double
    private let bounds: Envelope

    /// Rings in Web Mercator metres; `bounds` the export extent within the area's box.
    init(rings: [[Point]], bounds: Envelope) {
        var edges: [Edge] = []
        var ymin = Double.infinity
        var ymax = -Double.infinity
        for (index, ring) in rings.enumerated() {
            for (a, b) in zip(ring, ring.dropFirst() + ring.prefix(1)) where a != b {
                edges.append(Edge(ax: a.x, ay: a.y, bx: b.x, by: b.y, ring: Int32(index)))
                ymin = min(ymin, a.y)
                ymax = max(ymax, a.y)
            }
        }
        // Strips of equal height over the area's rows of latitude: a ray cast from a point
        // crosses only the edges of the point's strip.
        let count = max(1, min(256, edges.count / 4))
        let height = ymax > ymin ? (ymax - ymin) / Double(count) : 1
        var strips = Array(repeating: [Int32](), count: count)
        for (index, edge) in edges.enumerated() {
            let low = Self.strip(min(edge.ay, edge.by), bottom: ymin, height: height, count: count)
            let high = Self.strip(max(edge.ay, edge.by), bottom: ymin, height: height, count: count)
            for strip in low...high { strips[strip].append(Int32(index)) }
        }
        self.edges = edges
        self.strips = strips
        self.stripBottom = ymin
        self.stripHeight = height
        self.bounds = bounds
    }

    private static func strip(_ y: Double, bottom: Double, height: Double, count: Int) -> Int {
        min(max(Int(((y - bottom) / height).rounded(.down)), 0), count - 1)
    }

    /// Whether a point is inside any ring (even-odd within each ring).
    func contains(_ x: Double, _ y: Double) -> Bool {
        guard !strips.isEmpty, y >= stripBottom, y <= stripBottom + stripHeight * Double(strips.count) else { return false }
        var ring: Int32 = -1
        var odd = false
        for index in strips[Self.strip(y, bottom: stripBottom, height: stripHeight, count: strips.count)] {
            let edge = edges[Int(index)]
            if edge.ring != ring {
                if odd { return true }
                ring = edge.ring
                odd = false
            }
            guard (edge.ay > y) != (edge.by > y) else { continue }
            if edge.ax + (y - edge.ay) * (edge.bx - edge.ax) / (edge.by - edge.ay) > x { odd.toggle() }
        }
        return odd
    }

    /// Whether the segment meets the closed box (Liang–Barsky).
    static func meets(_ edge: Edge, _ box: Envelope) -> Bool {
        var enter = 0.0
        var leave = 1.0
        // One side of the box: false when the segment is wholly beyond it.
        func clip(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let r = q / p
            if p < 0 {
                if r > leave { return false }
                enter = max(enter, r)
            } else {
                if r < enter { return false }
                leave = min(leave, r)
            }
            return true
        }
        let dx = edge.bx - edge.ax
        let dy = edge.by - edge.ay
        return clip(-dx, edge.ax - box.xmin) && clip(dx, box.xmax - edge.ax) && clip(-dy, edge.ay - box.ymin) && clip(dy, box.ymax - edge.ay)
    }

    /// Descends to the deepest of `levels` (ascending) within `blocks` (each level's rows and
    /// columns touching the extent, 0 through the deepest), refusing past `maximum` tiles.
    func descend(levels: [Int], blocks: [(rows: ClosedRange<Int>, columns: ClosedRange<Int>)], maximum: Int) -> Outcome {
        guard let deepest = levels.last else { return .levels([]) }
        let requested = Set(levels)
        var frontier: [(row: Int, column: Int, edges: [Int32])] = []
        var inside: [InsideTile] = []
        var straddling: [InsideTile] = []
        var wholeInside = 0  // tiles at the current level under wholly inside tiles within the extent
        var total = 0
        var planned: [TileExportLevel] = []

        // Level 0's one tile, then each level's children of the tiles edges cross.
        var candidates: [(row: Int, column: Int, edges: [Int32])] = [(0, 0, Array(edges.indices.map(Int32.init)))]
        for level in 0...deepest {
            let block = blocks[level]
            frontier.removeAll(keepingCapacity: true)
            wholeInside = wholeInside.multipliedReportingOverflow(by: 4).overflow ? Int.max : wholeInside * 4
            for candidate in candidates where block.rows.contains(candidate.row) && block.columns.contains(candidate.column) {
                let square = TileExportPlanner.tileEnvelope(level: level, row: candidate.row, column: candidate.column)
                let box = square.intersection(bounds)
                let crossing = candidate.edges.filter { Self.meets(edges[Int($0)], box) }
                if !crossing.isEmpty {
                    frontier.append((candidate.row, candidate.column, crossing))
                } else if contains((box.xmin + box.xmax) / 2, (box.ymin + box.ymax) / 2) {
                    let tile = InsideTile(level: level, row: candidate.row, column: candidate.column)
                    if square.xmin >= bounds.xmin && square.xmax <= bounds.xmax && square.ymin >= bounds.ymin && square.ymax <= bounds.ymax {
                        inside.append(tile)
                        wholeInside = wholeInside == Int.max ? Int.max : wholeInside + 1
                    } else {
                        straddling.append(tile)
                    }
                }
            }
            var count = frontier.count.addingReportingOverflow(wholeInside).overflow ? Int.max : frontier.count + wholeInside
            for tile in straddling where count < Int.max {
                guard let (rows, columns) = Self.descendants(tile, at: level, within: block) else { continue }
                count = count.addingReportingOverflow(rows.count * columns.count).overflow ? Int.max : count + rows.count * columns.count
            }
            // Every tile of a level has a descendant taken at the deepest level: a level over the
            // maximum is a plan over it, requested or not.
            if requested.contains(level) { total = total.addingReportingOverflow(count).overflow ? Int.max : total + count }
            guard count <= maximum, total <= maximum else { return .tooMany(atLeast: max(count, total), fromLevel: level) }
            if requested.contains(level) {
                planned.append(
                    TileExportLevel(
                        level: level, rows: block.rows, columns: block.columns, count: count,
                        runs: runs(level: level, block: block, crossed: frontier.map { ($0.row, $0.column) }, inside + straddling)))
            }
            guard level < deepest else { break }
            candidates.removeAll(keepingCapacity: true)
            for parent in frontier {
                for (dr, dc) in [(0, 0), (0, 1), (1, 0), (1, 1)] { candidates.append((parent.row * 2 + dr, parent.column * 2 + dc, parent.edges)) }
            }
        }
        return .levels(planned)
    }

    /// The rows and columns of `level` under an inside tile, within the level's block.
    private static func descendants(
        _ tile: InsideTile, at level: Int, within block: (rows: ClosedRange<Int>, columns: ClosedRange<Int>)
    ) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>)? {
        let side = 1 << (level - tile.level)
        let rows = (tile.row * side)...(tile.row * side + side - 1)
        let columns = (tile.column * side)...(tile.column * side + side - 1)
        guard rows.overlaps(block.rows), columns.overlaps(block.columns) else { return nil }
        return (rows.clamped(to: block.rows), columns.clamped(to: block.columns))
    }

    /// The columns kept in each row of a level: the crossed tiles and those under inside tiles,
    /// merged into runs (their number is at most the level's count, already within the maximum).
    private func runs(
        level: Int, block: (rows: ClosedRange<Int>, columns: ClosedRange<Int>), crossed: [(Int, Int)], _ inside: [InsideTile]
    ) -> [Int: [ClosedRange<Int>]] {
        var byRow: [Int: [ClosedRange<Int>]] = [:]
        for (row, column) in crossed { byRow[row, default: []].append(column...column) }
        for tile in inside {
            guard let (rows, columns) = Self.descendants(tile, at: level, within: block) else { continue }
            for row in rows { byRow[row, default: []].append(columns) }
        }
        return byRow.mapValues { ranges in
            var merged: [ClosedRange<Int>] = []
            for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                    merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                } else {
                    merged.append(range)
                }
            }
            return merged
        }
    }
}
