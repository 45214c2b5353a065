import OutpostWire

/// SpatiaLite's internal BLOB-Geometry format, written and read without calling SQL
/// functions (bulk imports and query pages are dominated by per-row function calls).
///
/// Layout: 0x00, endian 0x01, SRID int32, MBR (4 doubles), 0x7C, class type int32, body,
/// 0xFE; collection members are each prefixed by 0x69 and their class type.
public enum SpatiaLiteBlob {
    public static func encode(_ geometry: OGCGeometry, srid: Int32) -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        let mbr = geometry.envelope
        w.byte(0x00)
        w.byte(0x01)
        w.int32(srid)
        if mbr.isEmpty {
            for _ in 0..<4 { w.double(0) }
        } else {
            w.double(mbr.xmin)
            w.double(mbr.ymin)
            w.double(mbr.xmax)
            w.double(mbr.ymax)
        }
        w.byte(0x7C)
        w.uint32(geometry.typeCode)
        WKB.writeBody(geometry, into: &w) { w, member in
            w.byte(0x69)
            w.uint32(member.typeCode)
            WKB.writeBody(member, into: &w) { _, _ in }
        }
        w.byte(0xFE)
        return w.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(GeometryError) -> OGCGeometry {
        guard bytes.count >= 44, bytes[0] == 0x00, bytes[38] == 0x7C, bytes[bytes.count - 1] == 0xFE else {
            throw .invalid("not a SpatiaLite geometry blob")
        }
        var r = ByteReader(bytes, offset: 1)
        let order = try r.byte()
        r.littleEndian = order == 1
        r.offset = 39
        let type = try r.uint32()
        let (base, dimensions) = try classType(type)
        return try WKB.readBody(type: base, dimensions: dimensions, from: &r) { r throws(GeometryError) in
            guard try r.byte() == 0x69 else { throw .invalid("missing SpatiaLite entity marker") }
            let memberType = try r.uint32()
            let (memberBase, memberDimensions) = try classType(memberType)
            return try WKB.readBody(type: memberBase, dimensions: memberDimensions, from: &r) { _ throws(GeometryError) in
                throw .invalid("nested collection")
            }
        }
    }

    /// The MBR stored in the header, without decoding the body.
    public static func envelope(_ bytes: [UInt8]) -> Envelope? {
        guard bytes.count >= 44, bytes[0] == 0x00 else { return nil }
        var r = ByteReader(bytes, offset: 1)
        guard let order = try? r.byte() else { return nil }
        r.littleEndian = order == 1
        r.offset = 6
        guard let xmin = try? r.double(), let ymin = try? r.double(), let xmax = try? r.double(),
            let ymax = try? r.double()
        else { return nil }
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    private static func classType(_ type: UInt32) throws(GeometryError) -> (UInt32, Int) {
        if type >= 1_000_000 { throw .unsupported("compressed SpatiaLite geometry") }
        switch type / 1000 {
        case 0: return (type, 2)
        case 1, 2: return (type % 1000, 3)
        case 3: return (type % 1000, 4)
        default: throw .unsupported("SpatiaLite class \(type)")
        }
    }
}
