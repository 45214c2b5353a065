import OutpostWire

/// Esri JSON geometry (§15 of the sync reference) in and out.
extension Geometry {
    /// Parses an Esri JSON geometry. The spatial reference inside it, if any, is returned too.
    public static func fromEsriJSON(_ json: JSONValue) throws(GeometryError) -> (Geometry, SpatialReference?) {
        guard case .object(let object) = json else { throw .invalid("geometry must be a JSON object") }
        let sr = object.value(forCaseInsensitiveKey: "spatialReference").flatMap(SpatialReference.init(json:))
        func number(_ key: String) throws(GeometryError) -> Double {
            guard let value = object.value(forCaseInsensitiveKey: key) else { throw .invalid("missing '\(key)'") }
            if case .null = value { return .nan }
            if case .string(let s) = value, s == "NaN" { return .nan }
            guard let d = value.doubleValue else { throw .invalid("'\(key)' must be a number") }
            return d
        }
        if object.value(forCaseInsensitiveKey: "x") != nil {
            return (.point(Point(x: try number("x"), y: try number("y"))), sr)
        }
        if let points = object.value(forCaseInsensitiveKey: "points") {
            return (.multipoint(try limited(try coordinates(points))), sr)
        }
        if let paths = object.value(forCaseInsensitiveKey: "paths") {
            return (.polyline(try limited(try parts(paths))), sr)
        }
        if let rings = object.value(forCaseInsensitiveKey: "rings") {
            return (.polygon(try limited(try parts(rings))), sr)
        }
        if object.value(forCaseInsensitiveKey: "xmin") != nil {
            return (
                .envelope(
                    Envelope(
                        xmin: try number("xmin"), ymin: try number("ymin"),
                        xmax: try number("xmax"), ymax: try number("ymax"))), sr
            )
        }
        if object.value(forCaseInsensitiveKey: "curvePaths") != nil || object.value(forCaseInsensitiveKey: "curveRings") != nil {
            throw .unsupported("true curves")
        }
        throw .invalid("not an Esri geometry (expected x/y, points, paths, rings or xmin..ymax)")
    }

    /// The most vertices one geometry may have (a hostile request must not make the server
    /// index a geometry of arbitrary size; real features stay far below).
    public static let maximumVertices = 1_000_000

    private static func limited(_ points: [Point]) throws(GeometryError) -> [Point] {
        guard points.count <= maximumVertices else { throw .invalid("more than \(maximumVertices) vertices") }
        return points
    }

    private static func limited(_ parts: [[Point]]) throws(GeometryError) -> [[Point]] {
        guard parts.reduce(0, { $0 + $1.count }) <= maximumVertices else { throw .invalid("more than \(maximumVertices) vertices") }
        return parts
    }

    private static func coordinates(_ json: JSONValue) throws(GeometryError) -> [Point] {
        guard case .array(let items) = json else { throw .invalid("coordinates must be an array") }
        var points: [Point] = []
        points.reserveCapacity(items.count)
        for item in items {
            guard case .array(let pair) = item, pair.count >= 2, let x = pair[0].doubleValue, let y = pair[1].doubleValue
            else { throw .invalid("a coordinate must be [x, y]") }
            points.append(Point(x: x, y: y))
        }
        return points
    }

    private static func parts(_ json: JSONValue) throws(GeometryError) -> [[Point]] {
        guard case .array(let items) = json else { throw .invalid("parts must be an array") }
        var result: [[Point]] = []
        for item in items { result.append(try coordinates(item)) }
        return result
    }

    /// Parses the `geometry` parameter of a query: Esri JSON, or the short forms
    /// `x,y` (a point) and `xmin,ymin,xmax,ymax` (an envelope), white space allowed.
    /// The most vertices a filter geometry (a query's or a replica's `geometry`) may have:
    /// every candidate row is tested against it, so it bounds a request's CPU
    /// (interop test_cpu_bounds.py: SpatiaLite tests each row against it, 4.4 s of CPU at 100,000
    /// vertices over 2,500 features); a feature may have `maximumVertices`.
    public static let maximumFilterVertices = 10_000
    /// The longest filter geometry text parsed: room for `maximumFilterVertices` in any notation.
    public static let maximumFilterBytes = 8 << 20

    public static func fromQueryParameter(_ text: String, geometryType: EsriGeometryType?) throws(GeometryError) -> (Geometry, SpatialReference?) {
        let trimmed = text.trimmingWhitespace()
        if trimmed.hasPrefix("{") {
            guard trimmed.utf8.count <= maximumFilterBytes else { throw .invalid("a filter geometry longer than \(maximumFilterBytes) bytes") }
            let json: JSONValue
            do { json = try JSONParser.parse(trimmed) } catch { throw .invalid("not valid JSON: \(error.description)") }
            let parsed = try fromEsriJSON(json)
            guard parsed.0.vertexCount <= maximumFilterVertices else {
                throw .invalid("a filter geometry of more than \(maximumFilterVertices) vertices")
            }
            return parsed
        }
        let numbers = trimmed.split(separator: ",").map { Double(String($0).trimmingWhitespace()) }
        guard numbers.allSatisfy({ $0 != nil }) else { throw .invalid("expected JSON or comma-separated numbers") }
        let values = numbers.map { $0! }
        switch values.count {
        case 2 where geometryType == nil || geometryType == .point:
            return (.point(Point(x: values[0], y: values[1])), nil)
        case 4 where geometryType == nil || geometryType == .envelope:
            return (
                .envelope(
                    Envelope(
                        xmin: Swift.min(values[0], values[2]), ymin: Swift.min(values[1], values[3]),
                        xmax: Swift.max(values[0], values[2]), ymax: Swift.max(values[1], values[3]))), nil
            )
        default:
            throw .invalid("expected x,y for a point or xmin,ymin,xmax,ymax for an envelope")
        }
    }

    /// Writes the Esri JSON form (without a spatial reference).
    public func writeEsriJSON(to w: inout JSONWriter) {
        func coordinates(_ points: [Point]) {
            w.beginArray()
            for p in points {
                w.beginArray()
                w.double(p.x)
                w.double(p.y)
                w.endArray()
            }
            w.endArray()
        }
        w.beginObject()
        switch self {
        case .point(let p):
            w.key("x")
            if p.x.isNaN { w.null() } else { w.double(p.x) }
            w.key("y")
            if p.y.isNaN { w.null() } else { w.double(p.y) }
        case .multipoint(let points):
            w.key("points")
            coordinates(points)
        case .polyline(let paths):
            w.key("paths")
            w.beginArray()
            for path in paths { coordinates(path) }
            w.endArray()
        case .polygon(let rings):
            w.key("rings")
            w.beginArray()
            for ring in rings { coordinates(ring) }
            w.endArray()
        case .envelope(let e):
            w.member("xmin", e.xmin)
            w.member("ymin", e.ymin)
            w.member("xmax", e.xmax)
            w.member("ymax", e.ymax)
        }
        w.endObject()
    }

    public var esriJSON: JSONValue {
        var w = JSONWriter()
        writeEsriJSON(to: &w)
        return (try? JSONParser.parse(bytes: w.bytes)) ?? .null
    }
}

extension Geometry {
    /// The geometry as Esri JSON text (no spatial reference).
    public var esriJSONText: String {
        var writer = JSONWriter()
        writeEsriJSON(to: &writer)
        return writer.string
    }
}
