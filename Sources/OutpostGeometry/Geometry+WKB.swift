import OutpostWire

/// Well-known binary (little-endian, 2D) in and out. Reading accepts big-endian, ISO
/// Z/M/ZM codes and EWKB flags, and keeps X and Y.
public enum WKB {
    public static func encode(_ geometry: OGCGeometry) -> [UInt8] {
        var writer = ByteWriter(capacity: 64)
        write(geometry, into: &writer)
        return writer.bytes
    }

    static func write(_ geometry: OGCGeometry, into w: inout ByteWriter) {
        w.byte(1)
        w.uint32(geometry.typeCode)
        writeBody(geometry, into: &w) { w, member in write(member, into: &w) }
    }

    /// The body after the type code; `member` writes one member of a collection (WKB and
    /// SpatiaLite frame members differently).
    static func writeBody(
        _ geometry: OGCGeometry, into w: inout ByteWriter,
        member: (inout ByteWriter, OGCGeometry) -> Void
    ) {
        switch geometry {
        case .point(let p):
            w.point(p)
        case .lineString(let points):
            w.uint32(UInt32(points.count))
            for p in points { w.point(p) }
        case .polygon(let rings):
            w.uint32(UInt32(rings.count))
            for ring in rings {
                w.uint32(UInt32(ring.count))
                for p in ring { w.point(p) }
            }
        case .multiPoint(let points):
            w.uint32(UInt32(points.count))
            for p in points { member(&w, .point(p)) }
        case .multiLineString(let paths):
            w.uint32(UInt32(paths.count))
            for path in paths { member(&w, .lineString(path)) }
        case .multiPolygon(let polygons):
            w.uint32(UInt32(polygons.count))
            for polygon in polygons { member(&w, .polygon(polygon)) }
        }
    }

    public static func decode(_ bytes: [UInt8], offset: Int = 0) throws(GeometryError) -> OGCGeometry {
        var reader = ByteReader(bytes, offset: offset)
        return try read(&reader, depth: 0)
    }

    static func read(_ r: inout ByteReader, depth: Int) throws(GeometryError) -> OGCGeometry {
        guard depth < 4 else { throw .invalid("nested too deeply") }
        let order = try r.byte()
        guard order <= 1 else { throw .invalid("bad byte order marker \(order)") }
        r.littleEndian = order == 1
        var code = try r.uint32()
        var dimensions = 2
        // EWKB flags.
        if code & 0x8000_0000 != 0 { dimensions += 1 }
        if code & 0x4000_0000 != 0 { dimensions += 1 }
        if code & 0x2000_0000 != 0 { _ = try r.uint32() }  // SRID
        code &= 0x0FFF_FFFF
        // ISO Z / M / ZM.
        switch code / 1000 {
        case 1, 2: dimensions += 1
        case 3: dimensions += 2
        default: break
        }
        let base = code % 1000
        return try readBody(type: base, dimensions: dimensions, from: &r) { r throws(GeometryError) in
            try read(&r, depth: depth + 1)
        }
    }

    static func readPoint(_ r: inout ByteReader, dimensions: Int) throws(GeometryError) -> Point {
        let x = try r.double()
        let y = try r.double()
        for _ in 2..<max(dimensions, 2) { _ = try r.double() }
        return Point(x: x, y: y)
    }

    static func readPoints(_ r: inout ByteReader, dimensions: Int) throws(GeometryError) -> [Point] {
        let n = try r.count(minimumElementSize: 8 * dimensions)
        var points: [Point] = []
        points.reserveCapacity(n)
        for _ in 0..<n { points.append(try readPoint(&r, dimensions: dimensions)) }
        return points
    }

    static func readBody(
        type: UInt32, dimensions: Int, from r: inout ByteReader,
        member: (inout ByteReader) throws(GeometryError) -> OGCGeometry
    ) throws(GeometryError) -> OGCGeometry {
        switch type {
        case 1:
            return .point(try readPoint(&r, dimensions: dimensions))
        case 2:
            return .lineString(try readPoints(&r, dimensions: dimensions))
        case 3:
            let n = try r.count(minimumElementSize: 4)
            var rings: [[Point]] = []
            for _ in 0..<n { rings.append(try readPoints(&r, dimensions: dimensions)) }
            return .polygon(rings)
        case 4, 5, 6:
            let n = try r.count(minimumElementSize: 5)
            var members: [OGCGeometry] = []
            members.reserveCapacity(n)
            for _ in 0..<n { members.append(try member(&r)) }
            switch type {
            case 4:
                var points: [Point] = []
                for m in members {
                    guard case .point(let p) = m else { throw .invalid("multipoint member is not a point") }
                    points.append(p)
                }
                return .multiPoint(points)
            case 5:
                var paths: [[Point]] = []
                for m in members {
                    guard case .lineString(let p) = m else { throw .invalid("multilinestring member is not a linestring") }
                    paths.append(p)
                }
                return .multiLineString(paths)
            default:
                var polygons: [[[Point]]] = []
                for m in members {
                    guard case .polygon(let p) = m else { throw .invalid("multipolygon member is not a polygon") }
                    polygons.append(p)
                }
                return .multiPolygon(polygons)
            }
        case 7:
            throw .unsupported("GEOMETRYCOLLECTION")
        default:
            throw .unsupported("WKB type \(type)")
        }
    }
}
