import OutpostStorage
import OutpostWire

/// A `TileSetStore` whose sets are MBTiles files in an `MBTilesFolder`, listed by a database:
/// the database names each set's file (`file(of:)`), the folder answers for its tiles.
public protocol MBTilesTileSets: TileSetStore {
    var files: MBTilesFolder { get }
    /// The file name a set is listed under, or `StoreError.serviceNotFound`.
    func file(of set: String) throws -> String
    /// Removes the set's listing and answers its file name, or `StoreError.serviceNotFound`.
    func unlist(_ set: String) throws -> String
}

extension MBTilesTileSets {
    public func tile(set: String, level: Int, row: Int, column: Int) throws -> [UInt8]? {
        try files.tile(file: try file(of: set), level: level, row: row, column: column)
    }

    public func tilesPresent(set: String, level: Int, row: Int, column: Int, height: Int, width: Int) throws -> [[Bool]] {
        try files.tilesPresent(file: try file(of: set), level: level, row: row, column: column, height: height, width: width)
    }

    public func tileSizes(set: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile] {
        try files.tileSizes(file: try file(of: set), level: level, rows: rows, columns: columns)
    }

    public func readTiles(
        set: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try files.readTiles(file: try file(of: set), level: level, rows: rows, columns: columns, body)
    }

    public func deleteTileSet(named name: String) throws { files.discard(file: try unlist(name)) }

    public func storedBytes(set: String) throws -> Int64 { try files.storedBytes(file: try file(of: set)) }

    public func addStyleResources(set: String, from directory: String) throws -> [String] {
        try files.addStyleResources(file: try file(of: set), from: directory)
    }

    public func styleResource(set: String, path: String) throws -> [UInt8]? {
        try files.styleResource(file: try file(of: set), path: path)
    }
}
