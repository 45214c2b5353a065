import Foundation
import OutpostGeometry
import OutpostWire

/// How `exportTiles`' `levels` are given (`exportBy`).
public enum TileExportLevelKind: String, Sendable, Equatable {
    case levelId = "LevelID"
    case resolution = "Resolution"
    case scale = "Scale"
}

/// The tiles of one level an export takes: a block of rows and columns, less the tiles an
/// area of interest leaves out.
public struct TileExportLevel: Sendable, Equatable {
    public var level: Int
    public var rows: ClosedRange<Int>
    public var columns: ClosedRange<Int>
    /// Tiles of the block that the area of interest keeps (all of them without one).
    public var count: Int
    /// With an area of interest, the columns kept in each row (sorted runs); nil: the whole block.
    public var runs: [Int: [ClosedRange<Int>]]?

    public init(level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, count: Int, runs: [Int: [ClosedRange<Int>]]? = nil) {
        self.level = level
        self.rows = rows
        self.columns = columns
        self.count = count
        self.runs = runs
    }

    /// Whether the level takes a tile of its block.
    public func includes(row: Int, column: Int) -> Bool {
        guard rows.contains(row), columns.contains(column) else { return false }
        guard let runs else { return true }
        guard let kept = runs[row] else { return false }
        // The last run starting at or before the column.
        var low = 0
        var high = kept.count
        while low < high {
            let middle = (low + high) / 2
            if kept[middle].lowerBound <= column { low = middle + 1 } else { high = middle }
        }
        return low > 0 && kept[low - 1].contains(column)
    }
}

/// What an export takes, level by level.
public struct TileExportPlan: Sendable, Equatable {
    public var levels: [TileExportLevel]
    /// The polygon (Web Mercator rings) tiles must touch, when one was given.
    public var areaOfInterest: [[Point]]?
    public var tileCount: Int { levels.reduce(0) { $0 + $1.count } }

    public init(levels: [TileExportLevel], areaOfInterest: [[Point]]? = nil) {
        self.levels = levels
        self.areaOfInterest = areaOfInterest
    }

    /// Whether the export takes a tile of `level`'s block (the writers ask tile by tile).
    public func includes(_ level: TileExportLevel, row: Int, column: Int) -> Bool {
        level.includes(row: row, column: column)
    }
}

/// Why an export is refused: ArcGIS's wording for too many tiles (error 001564), with the
/// levels to drop to fit.
public enum TileExportRefusal: Error, Equatable, ArcGISErrorConvertible {
    case invalidLevels(String)
    case outsideTheService
    case tooManyTiles(requested: Int, maximum: Int, service: String, dropLevels: [Int])

    public var arcGISError: ArcGISError {
        switch self {
        case .invalidLevels(let reason):
            ArcGISError(kind: .invalidParameter, message: "Invalid value for parameter levels.", details: [reason])
        case .outsideTheService:
            ArcGISError(
                kind: .invalidParameter, message: "Invalid export extent.", details: ["The extent or area of interest covers no tile of the service."]
            )
        case .tooManyTiles(let requested, let maximum, let service, let dropLevels):
            ArcGISError(
                kind: .invalidParameter,
                message:
                    "ERROR 001564: Requested tile count(\(requested)) exceeds the maximum allowed number of tiles(\(maximum)) to be exported for service \(service).",
                details: dropLevels.isEmpty
                    ? ["Export a smaller extent."]
                    : ["Leave out levels \(dropLevels.map(String.init).joined(separator: ", ")) (or export a smaller extent)."])
        }
    }
}

/// Which tiles `exportTiles` and `estimateExportTilesSize` take (docs/tiles.md, "Export"):
/// levels parsed from `levels` by `exportBy`, the tiles of each level that touch the export
/// extent, and, with an area of interest, only those whose square touches the polygon.
public enum TileExportPlanner {
    /// The level ids `levels` names. `LevelID`: a list (`0,1,2`) or ranges (`0-5`);
    /// `Resolution`/`Scale`: values, each matched to the level nearest to it. Only levels the
    /// set has are allowed.
    public static func levels(_ text: String, by kind: TileExportLevelKind, available: ClosedRange<Int>) throws(TileExportRefusal) -> [Int] {
        var found = Set<Int>()
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            switch kind {
            case .levelId:
                let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil, low <= high else {
                    throw .invalidLevels("'\(part)' is not a level or a range of levels (0-5).")
                }
                // Checked before the range is walked: `0-9223372036854775806` names no level.
                guard available.contains(low), available.contains(high) else {
                    throw .invalidLevels(
                        "Level \(available.contains(low) ? high : low) is not among the service's levels \(available.lowerBound)-\(available.upperBound)."
                    )
                }
                found.formUnion(low...high)
            case .resolution, .scale:
                guard let value = Double(part), value > 0 else { throw .invalidLevels("'\(part)' is not a \(kind.rawValue.lowercased()).") }
                let measure = { (level: Int) in
                    kind == .resolution ? WebMercatorTiling.resolution(level: level) : WebMercatorTiling.scale(level: level)
                }
                found.insert(available.min { abs(log(measure($0) / value)) < abs(log(measure($1) / value)) }!)
            }
        }
        guard !found.isEmpty else { throw .invalidLevels("No level was given.") }
        guard let outside = found.sorted().first(where: { !available.contains($0) }) else { return found.sorted() }
        throw .invalidLevels("Level \(outside) is not among the service's levels \(available.lowerBound)-\(available.upperBound).")
    }

    /// What a request takes of a set: its levels (every level of the set without `levels`),
    /// the tiles within the request's extent and the set's, and the area of interest's.
    public static func plan(_ request: TileExportRequest, set: TileSet, maximum: Int) throws(TileExportRefusal) -> TileExportPlan {
        let available = set.minZoom...max(set.minZoom, set.maxZoom)
        var chosen = Array(available)
        if let text = request.levels { chosen = try levels(text, by: request.levelKind, available: available) }
        let setExtent = WebMercatorTiling.envelope(set.bounds)
        return try plan(
            levels: chosen, extent: (request.extent ?? setExtent).intersection(setExtent),
            areaOfInterest: request.areaOfInterest, maximum: maximum, service: "\(set.name):\(set.kind.serviceKind)")
    }

    /// The tiles of `levels` that touch `extent` (Web Mercator metres) and, when given, the
    /// area of interest (rings in the same metres). Refuses more than `maximum` tiles.
    public static func plan(
        levels: [Int], extent: Envelope, areaOfInterest: [[Point]]? = nil, maximum: Int, service: String
    ) throws(TileExportRefusal) -> TileExportPlan {
        let world = Envelope(
            xmin: -WebMercatorTiling.halfWorld, ymin: -WebMercatorTiling.halfWorld, xmax: WebMercatorTiling.halfWorld,
            ymax: WebMercatorTiling.halfWorld)
        var bounds = extent.intersection(world)
        if let areaOfInterest {
            var polygon = Envelope.empty
            for ring in areaOfInterest { for point in ring { polygon.expand(x: point.x, y: point.y) } }
            bounds = bounds.intersection(polygon)
        }
        guard bounds.xmin <= bounds.xmax, bounds.ymin <= bounds.ymax else { throw .outsideTheService }
        let levels = Array(Set(levels)).sorted()
        guard let deepest = levels.last, levels[0] >= 0, deepest <= TileAddress.deepestLevel else {
            throw .invalidLevels("Levels are 0 to \(TileAddress.deepestLevel).")
        }
        let blocks = (0...deepest).map { blockOfTiles(level: $0, bounds: bounds) }
        if let areaOfInterest {
            switch AreaOfInterestTiles(rings: areaOfInterest, bounds: bounds).descend(levels: levels, blocks: blocks, maximum: maximum) {
            case .levels(let planned): return TileExportPlan(levels: planned, areaOfInterest: areaOfInterest)
            case .tooMany(let atLeast, let fromLevel):
                // Every level from there on goes: the levels above it were counted and fit.
                throw .tooManyTiles(requested: atLeast, maximum: maximum, service: service, dropLevels: levels.filter { $0 >= fromLevel })
            }
        }
        var planned: [TileExportLevel] = []
        var total = 0
        for level in levels {
            let (rows, columns) = blocks[level]
            // At most 2^60 a level: no overflow, and the sum saturates.
            let count = rows.count * columns.count
            total = total.addingReportingOverflow(count).overflow ? Int.max : total + count
            planned.append(TileExportLevel(level: level, rows: rows, columns: columns, count: count))
        }
        let plan = TileExportPlan(levels: planned)
        guard total <= maximum else {
            // The deepest levels go first: each holds about four times the one above.
            var dropped: [Int] = []
            var remaining = total
            for level in planned.reversed() where remaining > maximum {
                remaining -= level.count
                dropped.append(level.level)
            }
            throw .tooManyTiles(requested: total, maximum: maximum, service: service, dropLevels: dropped.sorted())
        }
        return plan
    }

    /// The rows and columns of `level` whose tiles touch `bounds` (a tile that only shares an
    /// edge with it is not taken).
    static func blockOfTiles(level: Int, bounds: Envelope) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
        let size = 2 * WebMercatorTiling.halfWorld / Double(1 << level)
        let last = (1 << level) - 1
        func first(_ value: Double) -> Int { min(max(Int((value / size).rounded(.down)), 0), last) }
        func through(_ low: Double, _ high: Double) -> ClosedRange<Int> {
            let start = first(low)
            return start...max(start, min(Int((high / size).rounded(.up)) - 1, last))
        }
        let columns = through(bounds.xmin + WebMercatorTiling.halfWorld, bounds.xmax + WebMercatorTiling.halfWorld)
        let rows = through(WebMercatorTiling.halfWorld - bounds.ymax, WebMercatorTiling.halfWorld - bounds.ymin)
        return (rows, columns)
    }

    /// A tile's square in Web Mercator metres.
    public static func tileEnvelope(level: Int, row: Int, column: Int) -> Envelope {
        let size = 2 * WebMercatorTiling.halfWorld / Double(1 << level)
        let xmin = -WebMercatorTiling.halfWorld + Double(column) * size
        let ymax = WebMercatorTiling.halfWorld - Double(row) * size
        return Envelope(xmin: xmin, ymin: ymax - size, xmax: xmin + size, ymax: ymax)
    }

    /// Whether a tile's square and a polygon touch, tested one tile at a time: the reference
    /// `AreaOfInterestTilesTests` checks the quadtree descent against. A corner inside the polygon, a vertex
    /// inside the square, or crossing edges.
    static func touches(tile: Envelope, _ rings: [[Point]]) -> Bool {
        let corners = [
            Point(x: tile.xmin, y: tile.ymin), Point(x: tile.xmax, y: tile.ymin), Point(x: tile.xmax, y: tile.ymax),
            Point(x: tile.xmin, y: tile.ymax),
        ]
        if let outer = rings.first, corners.contains(where: { RingOrientation.contains(outer, $0) }) { return true }
        for ring in rings {
            if ring.contains(where: { tile.xmin <= $0.x && $0.x <= tile.xmax && tile.ymin <= $0.y && $0.y <= tile.ymax }) { return true }
            for (a, b) in zip(ring, ring.dropFirst()) {
                for (c, d) in zip(corners, corners.dropFirst() + [corners[0]]) where crosses(a, b, c, d) { return true }
            }
        }
        return false
    }

    private static func crosses(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> Bool {
        func side(_ p: Point, _ q: Point, _ r: Point) -> Double { (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x) }
        return side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0
    }
}
