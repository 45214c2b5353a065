import OutpostSync
import OutpostWire

/// Where an export's tiles come from: a tile set's blocks of tiles, read twice by the tile
/// package writer (sizes first, to lay a bundle out; then the bytes, streamed).
///
/// Contract: both calls hand a block's tiles in the same order, rows counted from the top;
/// the bytes lent to `body` are valid only during the call.
public protocol TileExportSource {
    func tileSizes(level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile]
    func readTiles(
        level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    ) throws
}

extension TileExportSource {
    /// The area an export's tiles cover: the union of the squares of the tiles it takes at the
    /// deepest level that holds any (nil: no tile at all). Coarser levels' tiles hold those, so
    /// every level covers it; readers lay a package out at the deepest level's resolution and
    /// crop to its extent, where a city asked for may be under a pixel but a tile is 256.
    public func extent(of plan: TileExportPlan) throws -> Envelope? {
        for level in plan.levels.reversed() {
            var rows: ClosedRange<Int>?
            var columns: ClosedRange<Int>?
            for block in level.bundleBlocks {
                for tile in try tileSizes(level: level.level, rows: block.rows, columns: block.columns)
                where plan.includes(level, row: tile.row, column: tile.column) {
                    rows = min(rows?.lowerBound ?? tile.row, tile.row)...max(rows?.upperBound ?? tile.row, tile.row)
                    columns = min(columns?.lowerBound ?? tile.column, tile.column)...max(columns?.upperBound ?? tile.column, tile.column)
                }
            }
            guard let rows, let columns else { continue }
            var extent = TileExportPlanner.tileEnvelope(level: level.level, row: rows.lowerBound, column: columns.lowerBound)
            extent.expand(TileExportPlanner.tileEnvelope(level: level.level, row: rows.upperBound, column: columns.upperBound))
            return extent
        }
        return nil
    }
}

extension TileExportLevel {
    /// The level's tiles in blocks that never straddle a bundle (128 × 128, aligned).
    public var bundleBlocks: [(rows: ClosedRange<Int>, columns: ClosedRange<Int>)] {
        let side = CompactCacheBundle.side
        var blocks: [(ClosedRange<Int>, ClosedRange<Int>)] = []
        // With an area of interest, only the bundles holding a kept tile: a thin area across a
        // deep level's block crosses few of its (possibly millions of) bundles.
        if let runs {
            var bundles = Set<[Int]>()
            for (row, ranges) in runs {
                for range in ranges {
                    for left in stride(from: range.lowerBound / side, through: range.upperBound / side, by: 1) { bundles.insert([row / side, left]) }
                }
            }
            for bundle in bundles.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let top = bundle[0] * side
                let left = bundle[1] * side
                blocks.append(
                    (
                        max(top, rows.lowerBound)...min(top + side - 1, rows.upperBound),
                        max(left, columns.lowerBound)...min(left + side - 1, columns.upperBound)
                    ))
            }
            return blocks
        }
        for top in stride(from: rows.lowerBound / side * side, through: rows.upperBound, by: side) {
            for left in stride(from: columns.lowerBound / side * side, through: columns.upperBound, by: side) {
                blocks.append(
                    (
                        max(top, rows.lowerBound)...min(top + side - 1, rows.upperBound),
                        max(left, columns.lowerBound)...min(left + side - 1, columns.upperBound)
                    ))
            }
        }
        return blocks
    }
}

/// What every package writer says of the set it exports.
public struct TilePackageDescription: Sendable {
    public var set: TileSet
    /// The exported area in Web Mercator metres (the export extent within the set's).
    public var extent: Envelope
    public var created: Int64

    public init(set: TileSet, extent: Envelope, created: Int64) {
        self.set = set
        self.extent = extent
        self.created = created
    }

    /// The extent in degrees: west, south, east, north.
    var bounds: [Double] { Self.degrees(extent) }

    /// An envelope in Web Mercator metres in degrees: west, south, east, north.
    static func degrees(_ envelope: Envelope) -> [Double] {
        let (west, south) = WebMercatorTiling.unproject(x: envelope.xmin, y: envelope.ymin)
        let (east, north) = WebMercatorTiling.unproject(x: envelope.xmax, y: envelope.ymax)
        return [west, south, east, north]
    }
}
