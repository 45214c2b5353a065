import OutpostWire

/// GeoPackage binary geometry (GPB): a `GP` header with SRS id and optional envelope,
/// followed by standard WKB (GeoPackage 1.4 §2.1.3).
public enum GeoPackageBinary {
    public static func encode(_ geometry: OGCGeometry, srsID: Int32) -> [UInt8] {
        let envelope = geometry.envelope
        var w = ByteWriter(capacity: 72)
        w.byte(0x47)
        w.byte(0x50)
        w.byte(0)
        let isEmpty = envelope.isEmpty
        // Flags: little-endian (bit 0); envelope [minx,maxx,miny,maxy] (code 1) unless a point or empty.
        var flags: UInt8 = 0x01
        let writesEnvelope: Bool
        if case .point = geometry { writesEnvelope = false } else { writesEnvelope = !isEmpty }
        if writesEnvelope { flags |= 0x02 }
        if isEmpty { flags |= 0x10 }
        w.byte(flags)
        w.int32(srsID)
        if writesEnvelope {
            w.double(envelope.xmin)
            w.double(envelope.xmax)
            w.double(envelope.ymin)
            w.double(envelope.ymax)
        }
        WKB.write(geometry, into: &w)
        return w.bytes
    }

    public struct Header: Sendable, Equatable {
        public var srsID: Int32
        public var envelope: Envelope?
        public var isEmpty: Bool
        public var wkbOffset: Int
    }

    public static func header(_ bytes: [UInt8]) throws(GeometryError) -> Header {
        guard bytes.count >= 8, bytes[0] == 0x47, bytes[1] == 0x50 else { throw .invalid("not a GeoPackage geometry") }
        let flags = bytes[3]
        guard flags & 0x20 == 0 else { throw .unsupported("extended GeoPackage geometry") }
        var r = ByteReader(bytes, offset: 4)
        r.littleEndian = flags & 0x01 == 1
        let srsID = Int32(bitPattern: try r.uint32())
        let envelopeCode = (flags >> 1) & 0x07
        let doubles: Int
        switch envelopeCode {
        case 0: doubles = 0
        case 1: doubles = 4
        case 2, 3: doubles = 6
        case 4: doubles = 8
        default: throw .invalid("bad GeoPackage envelope code \(envelopeCode)")
        }
        var envelope: Envelope?
        if doubles > 0 {
            let minx = try r.double()
            let maxx = try r.double()
            let miny = try r.double()
            let maxy = try r.double()
            for _ in 4..<doubles { _ = try r.double() }
            envelope = Envelope(xmin: minx, ymin: miny, xmax: maxx, ymax: maxy)
        }
        return Header(srsID: srsID, envelope: envelope, isEmpty: flags & 0x10 != 0, wkbOffset: r.offset)
    }

    public static func decode(_ bytes: [UInt8]) throws(GeometryError) -> (geometry: OGCGeometry, srsID: Int32) {
        let header = try header(bytes)
        return (try WKB.decode(bytes, offset: header.wkbOffset), header.srsID)
    }
}
