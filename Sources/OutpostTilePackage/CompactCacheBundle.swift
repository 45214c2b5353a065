/// The layout of an Esri Compact Cache V2 bundle (docs/tiles.md, "Formats written"):
/// one file per 128 × 128 block of a level's tiles, named after the block's top-left tile
/// (`R{row:04x}C{col:04x}.bundle`), holding a 64-byte header, an index of 16,384 entries
/// (row-major in the block; `offset | size << 40`, the offset pointing past a 4-byte size
/// written before each tile; 0 = no tile) and the tiles.
///
/// Pure: `init` lays out tiles whose sizes are known, and `header` and `index` are the bytes
/// to write before them, in the order given.
public struct CompactCacheBundle: Equatable, Sendable {
    /// Tiles per side of a bundle (ArcGIS's packet size).
    public static let side = 128
    static let records = side * side
    static let headerSize = 64
    static let indexSize = records * 8
    /// A bundle's bytes before its tiles.
    public static let overhead = headerSize + indexSize

    /// The block's top-left tile.
    public let row: Int
    public let column: Int
    /// Index entries, row-major.
    public private(set) var index: [UInt64]
    public private(set) var fileSize: UInt64
    public private(set) var maxRecordSize: UInt32 = 0

    /// The bundle holding tile `row`/`column`, before any tile is laid out.
    public init(containing row: Int, _ column: Int) {
        self.row = row / Self.side * Self.side
        self.column = column / Self.side * Self.side
        index = Array(repeating: 0, count: Self.records)
        fileSize = UInt64(Self.headerSize + Self.indexSize)
    }

    /// The file name, as readers look it up (lowercase hex).
    public var fileName: String { "R\(Self.hex(row))C\(Self.hex(column)).bundle" }

    /// The level folder (`L05`).
    public static func levelFolder(_ level: Int) -> String { level < 10 ? "L0\(level)" : "L\(level)" }

    /// Lays out the next tile (of this block) after the ones before it.
    public mutating func append(row tileRow: Int, column tileColumn: Int, size: Int) {
        precondition(tileRow / Self.side * Self.side == row && tileColumn / Self.side * Self.side == column, "tile outside the bundle")
        fileSize += 4
        index[(tileRow % Self.side) * Self.side + tileColumn % Self.side] = fileSize | (UInt64(size) << 40)
        fileSize += UInt64(size)
        maxRecordSize = max(maxRecordSize, UInt32(size))
    }

    /// The header and index: the bundle's first 64 + 131,072 bytes.
    public var headerAndIndex: [UInt8] {
        var bytes = ByteWriter()
        bytes.data.reserveCapacity(Self.headerSize + Self.indexSize)
        bytes.u32(3)  // version
        bytes.u32(UInt32(Self.records))
        bytes.u32(maxRecordSize)
        bytes.u32(5)  // offset size
        bytes.u64(0)  // slack space
        bytes.u64(fileSize)
        bytes.u64(40)  // user header offset
        bytes.u32(UInt32(20 + Self.indexSize))  // user header size
        bytes.u32(3)  // legacy fields, as ArcGIS writes them
        bytes.u32(16)
        bytes.u32(UInt32(Self.records))
        bytes.u32(5)
        bytes.u32(UInt32(Self.indexSize))
        for entry in index { bytes.u64(entry) }
        return bytes.data
    }

    /// The 4-byte size written before a tile.
    static func sizePrefix(_ size: Int) -> [UInt8] {
        var bytes = ByteWriter()
        bytes.u32(UInt32(size))
        return bytes.data
    }

    private static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
