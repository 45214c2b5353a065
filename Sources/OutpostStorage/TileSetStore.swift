import OutpostWire

/// Tile sets the tile services serve, and their tiles.
///
/// Contract: a set's tiles never change after it is added (`created` versions them, so
/// answers may be cached); `tile` takes rows counted from the top (ArcGIS's and XYZ's order)
/// and answers nil for a tile the set does not have; names compare without case.
public protocol TileSetStore: Sendable {
    func tileSets() throws -> [TileSet]
    func tileSet(named name: String) throws -> TileSet?
    /// Adds an MBTiles file (copied) as the set `name`; its kind follows its `format`. A
    /// vector set may bring its style resources (a folder, as `addStyleResources` takes); a
    /// raster set or a folder without any is refused before anything is added.
    func addTileSet(mbtiles path: String, name: String, description: String?, styleResources: String?) throws -> TileSet
    /// Removes the set: its listing first (no request finds it after), then its file and style
    /// resources. `StoreError.serviceNotFound` when there is no such set.
    func deleteTileSet(named name: String) throws
    func tile(set: String, level: Int, row: Int, column: Int) throws -> [UInt8]?
    /// Which tiles of a block exist, row by row (a `tilemap`).
    func tilesPresent(set: String, level: Int, row: Int, column: Int, height: Int, width: Int) throws -> [[Bool]]
    /// Keeps a vector set's style resources (`StyleResources` paths below `directory`;
    /// anything else there is ignored) in place of any kept before; returns the paths kept.
    @discardableResult func addStyleResources(set: String, from directory: String) throws -> [String]
    /// A style resource's bytes (a `StyleResources` path), or nil when the set has none there.
    func styleResource(set: String, path: String) throws -> [UInt8]?
    /// The tiles of a block with their sizes, in the order `readTiles` hands them (exports
    /// lay a bundle out from these before they read the bytes).
    func tileSizes(set: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile]
    /// The bytes the set's tiles and style resources take on disk.
    func storedBytes(set: String) throws -> Int64
    /// The tiles of a block, their bytes lent to `body` for the call only.
    func readTiles(
        set: String, level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    ) throws
}

extension TileSetStore {
    public func addTileSet(mbtiles path: String, name: String, description: String?) throws -> TileSet {
        try addTileSet(mbtiles: path, name: name, description: description, styleResources: nil)
    }
}

/// Why a tile set could not be added.
public enum TileSetFailure: ArcGISErrorConvertible, Equatable, CustomStringConvertible {
    case invalidName(String)
    case exists(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .invalidName(let name): "'\(name)' is not a valid service name (letters, digits, '_' and '-')"
        case .exists(let name): "a tile service \(name) exists already"
        case .unreadable(let reason): "not an MBTiles file this server can serve: \(reason)"
        }
    }

    public var arcGISError: ArcGISError {
        ArcGISError(kind: .invalidParameter, message: "Unable to add the tile service.", details: [description])
    }
}

extension TileSet {
    /// The bounds as a row keeps them (JSON), every backend alike.
    public var storedBounds: String { JSONValue.array(bounds.map(JSONValue.double)).jsonText }

    public static func storedBounds(_ text: String?) -> [Double] {
        text.flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.doubleValue) ?? []
    }
}
