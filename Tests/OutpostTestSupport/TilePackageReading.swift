/// Reads tile packages in tests, from the specifications rather than from Outpost's writers:
/// a zip's stored entries through its central directory, and a tile out of a Compact Cache
/// V2 bundle through its index.
public enum TilePackageReading {
    /// The entries of a zip whose entries are stored (method 0), by name; nil if any entry is
    /// compressed or the archive is malformed.
    public static func storedEntries(_ zip: [UInt8]) -> [String: [UInt8]]? {
        guard let end = (0...max(0, zip.count - 22)).reversed().first(where: { u32(zip, $0) == 0x0605_4b50 }) else { return nil }
        var position = Int(u32(zip, end + 16))
        var entries: [String: [UInt8]] = [:]
        for _ in 0..<Int(u16(zip, end + 10)) {
            guard u32(zip, position) == 0x0201_4b50, u16(zip, position + 10) == 0 else { return nil }
            let size = Int(u32(zip, position + 20))
            let nameLength = Int(u16(zip, position + 28))
            let skip = nameLength + Int(u16(zip, position + 30)) + Int(u16(zip, position + 32))
            let name = String(decoding: zip[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            let local = Int(u32(zip, position + 42))
            guard u32(zip, local) == 0x0403_4b50 else { return nil }
            let start = local + 30 + Int(u16(zip, local + 26)) + Int(u16(zip, local + 28))
            entries[name] = Array(zip[start..<(start + size)])
            position += 46 + skip
        }
        return entries
    }

    /// The tile at `row`/`column` of a bundle (absolute, as the bundle's name counts them),
    /// or nil when its index entry is empty.
    public static func tile(inBundle bundle: [UInt8], row: Int, column: Int) -> [UInt8]? {
        let entry = u64(bundle, 64 + 8 * ((row % 128) * 128 + column % 128))
        let offset = Int(entry & 0xFF_FFFF_FFFF)
        let size = Int(entry >> 40)
        guard size > 0, Int(u32(bundle, offset - 4)) == size else { return nil }
        return Array(bundle[offset..<(offset + size)])
    }

    /// How many tiles a bundle's index holds.
    public static func tileCount(inBundle bundle: [UInt8]) -> Int {
        (0..<16384).filter { u64(bundle, 64 + 8 * $0) != 0 }.count
    }

    public static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    public static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    public static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
}
