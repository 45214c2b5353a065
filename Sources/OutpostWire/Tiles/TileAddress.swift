/// A tile's address as a tile or tilemap URL gives it (`{level}/{row}/{column}`, a vector tile's
/// column ending in `.pbf`), checked against the tiling before anything counts with it: a level
/// of 0-30 and a row and column inside that level's grid, so `row + height` and the like can
/// never overflow (docs/tiles.md).
public struct TileAddress: Sendable, Equatable {
    /// The deepest level a Web Mercator tiling of `Int` rows can address with room to spare.
    public static let deepestLevel = 30

    public var level: Int
    public var row: Int
    public var column: Int

    public init(level: Int, row: Int, column: Int) {
        self.level = level
        self.row = row
        self.column = column
    }

    /// Tiles along one side of `level`'s grid.
    public static func side(level: Int) -> Int { 1 << level }

    /// The address the path's three parts name, or nil when they are not one of the tiling's tiles.
    public static func parse(level: String, row: String, column: String) -> TileAddress? {
        let column = column.hasSuffix(".pbf") ? String(column.dropLast(4)) : column
        guard let level = Int(level), (0...deepestLevel).contains(level), let row = Int(row), let column = Int(column) else { return nil }
        let side = side(level: level)
        guard (0..<side).contains(row), (0..<side).contains(column) else { return nil }
        return TileAddress(level: level, row: row, column: column)
    }

    /// A `tilemap`'s block: `width` × `height` tiles (each 1-256) from this address, cut at the
    /// level's last row and column (ArcGIS answers `adjusted` then).
    public func block(width: Int, height: Int) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>, adjusted: Bool)? {
        guard (1...256).contains(width), (1...256).contains(height) else { return nil }
        let last = Self.side(level: level) - 1
        let rows = row...min(row + height - 1, last)
        let columns = column...min(column + width - 1, last)
        return (rows, columns, rows.count != height || columns.count != width)
    }
}
