/// Appends little- or big-endian scalars to a byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func uint32(_ v: UInt32, bigEndian: Bool = false) {
        let value = bigEndian ? v.bigEndian : v.littleEndian
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    mutating func int32(_ v: Int32) { uint32(UInt32(bitPattern: v)) }

    mutating func double(_ v: Double) {
        withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func point(_ p: Point) {
        double(p.x)
        double(p.y)
    }
}

/// Reads scalars from a byte buffer, tracking byte order per WKB rules.
struct ByteReader {
    let bytes: [UInt8]
    var offset: Int
    var littleEndian = true

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(GeometryError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() throws(GeometryError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw .truncated }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(bytes[offset + i]) << (8 * i) }
        offset += 4
        return littleEndian ? v : v.byteSwapped
    }

    mutating func double() throws(GeometryError) -> Double {
        guard offset + 8 <= bytes.count else { throw .truncated }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * i) }
        offset += 8
        return Double(bitPattern: littleEndian ? v : v.byteSwapped)
    }

    /// A count, bounded by what the remaining bytes could possibly hold (hostile input).
    mutating func count(minimumElementSize: Int) throws(GeometryError) -> Int {
        let n = Int(try uint32())
        guard n <= remaining / max(minimumElementSize, 1) else { throw .truncated }
        return n
    }
}
