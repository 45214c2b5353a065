import OutpostWire

/// GeoJSON (RFC 7946) geometry in and out.
public enum GeoJSONGeometry {
    public static func decode(_ json: JSONValue) throws(GeometryError) -> OGCGeometry? {
        if case .null = json { return nil }
        guard case .object(let object) = json, let type = object["type"]?.stringValue else {
            throw .invalid("a GeoJSON geometry needs a type")
        }
        let coordinates = object["coordinates"] ?? .null
        func point(_ v: JSONValue) throws(GeometryError) -> Point {
            guard case .array(let a) = v, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
                throw .invalid("a GeoJSON position must be [x, y]")
            }
            return Point(x: x, y: y)
        }
        func points(_ v: JSONValue) throws(GeometryError) -> [Point] {
            guard case .array(let a) = v else { throw .invalid("expected an array of positions") }
            var result: [Point] = []
            result.reserveCapacity(a.count)
            for item in a { result.append(try point(item)) }
            return result
        }
        func lines(_ v: JSONValue) throws(GeometryError) -> [[Point]] {
            guard case .array(let a) = v else { throw .invalid("expected an array of lines") }
            var result: [[Point]] = []
            for item in a { result.append(try points(item)) }
            return result
        }
        switch type {
        case "Point": return .point(try point(coordinates))
        case "MultiPoint": return .multiPoint(try points(coordinates))
        case "LineString": return .lineString(try points(coordinates))
        case "MultiLineString": return .multiLineString(try lines(coordinates))
        case "Polygon": return .polygon(try lines(coordinates))
        case "MultiPolygon":
            guard case .array(let a) = coordinates else { throw .invalid("expected an array of polygons") }
            var polygons: [[[Point]]] = []
            for item in a { polygons.append(try lines(item)) }
            return .multiPolygon(polygons)
        default:
            throw .unsupported("GeoJSON \(type)")
        }
    }

    public static func write(_ geometry: OGCGeometry, to w: inout JSONWriter) {
        func position(_ p: Point) {
            w.beginArray()
            w.double(p.x)
            w.double(p.y)
            w.endArray()
        }
        func positions(_ ps: [Point]) {
            w.beginArray()
            for p in ps { position(p) }
            w.endArray()
        }
        func lines(_ ls: [[Point]]) {
            w.beginArray()
            for l in ls { positions(l) }
            w.endArray()
        }
        w.beginObject()
        switch geometry {
        case .point(let p):
            w.member("type", "Point")
            w.key("coordinates")
            position(p)
        case .multiPoint(let ps):
            w.member("type", "MultiPoint")
            w.key("coordinates")
            positions(ps)
        case .lineString(let ps):
            w.member("type", "LineString")
            w.key("coordinates")
            positions(ps)
        case .multiLineString(let ls):
            w.member("type", "MultiLineString")
            w.key("coordinates")
            lines(ls)
        case .polygon(let rings):
            w.member("type", "Polygon")
            w.key("coordinates")
            lines(rings)
        case .multiPolygon(let polygons):
            w.member("type", "MultiPolygon")
            w.key("coordinates")
            w.beginArray()
            for polygon in polygons { lines(polygon) }
            w.endArray()
        }
        w.endObject()
    }
}
