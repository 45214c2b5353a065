import OutpostWire

/// A 2D coordinate.
public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A geometry in Esri's model: polylines are lists of paths, polygons lists of rings
/// (outer rings clockwise, holes counter-clockwise), as on the ArcGIS wire.
///
/// Conversion to and from OGC models (WKB, GeoPackage, SpatiaLite, GeoJSON) lives in the
/// `Geometry+<Format>` files; `RingOrientation` does the ring bookkeeping between them.
public enum Geometry: Sendable, Equatable {
    case point(Point)
    case multipoint([Point])
    case polyline([[Point]])
    case polygon([[Point]])
    case envelope(Envelope)

    public var geometryType: EsriGeometryType {
        switch self {
        case .point: .point
        case .multipoint: .multipoint
        case .polyline: .polyline
        case .polygon: .polygon
        case .envelope: .envelope
        }
    }

    public var isEmpty: Bool {
        switch self {
        case .point(let p): p.x.isNaN || p.y.isNaN
        case .multipoint(let points): points.isEmpty
        case .polyline(let paths): paths.allSatisfy(\.isEmpty)
        case .polygon(let rings): rings.allSatisfy(\.isEmpty)
        case .envelope(let e): e.isEmpty || e.xmin.isNaN
        }
    }

    public var vertexCount: Int {
        switch self {
        case .point: 1
        case .multipoint(let points): points.count
        case .polyline(let parts), .polygon(let parts): parts.reduce(0) { $0 + $1.count }
        case .envelope: 4
        }
    }

    public var envelope: Envelope {
        var result = Envelope.empty
        switch self {
        case .point(let p):
            if !p.x.isNaN { result.expand(x: p.x, y: p.y) }
        case .multipoint(let points):
            for p in points { result.expand(x: p.x, y: p.y) }
        case .polyline(let parts), .polygon(let parts):
            for part in parts { for p in part { result.expand(x: p.x, y: p.y) } }
        case .envelope(let e):
            result = e
        }
        return result
    }

    /// An envelope as a polygon ring (for stores and predicates that want a polygon).
    public var polygonized: Geometry {
        guard case .envelope(let e) = self else { return self }
        return .polygon([
            [
                Point(x: e.xmin, y: e.ymin), Point(x: e.xmin, y: e.ymax), Point(x: e.xmax, y: e.ymax),
                Point(x: e.xmax, y: e.ymin), Point(x: e.xmin, y: e.ymin),
            ]
        ])
    }

    /// Whether this geometry may be stored in a layer of `type`.
    public func fits(_ type: EsriGeometryType) -> Bool {
        switch (self, type) {
        case (.point, .point), (.multipoint, .multipoint), (.polyline, .polyline), (.polygon, .polygon): true
        case (.point, .multipoint), (.envelope, .polygon): true
        default: false
        }
    }

    /// Structural checks every stored geometry must pass: finite coordinates, paths with two
    /// or more vertices, closed rings of four or more.
    public func validate() throws(GeometryError) {
        func finite(_ p: Point) throws(GeometryError) {
            guard p.x.isFinite && p.y.isFinite else { throw .invalid("coordinates must be finite numbers") }
        }
        switch self {
        case .point(let p): try finite(p)
        case .multipoint(let points):
            guard !points.isEmpty else { throw .invalid("a multipoint needs at least one point") }
            for p in points { try finite(p) }
        case .polyline(let paths):
            guard !paths.isEmpty else { throw .invalid("a polyline needs at least one path") }
            for path in paths {
                guard path.count >= 2 else { throw .invalid("every path needs at least two vertices") }
                for p in path { try finite(p) }
            }
        case .polygon(let rings):
            guard !rings.isEmpty else { throw .invalid("a polygon needs at least one ring") }
            for ring in rings {
                guard ring.count >= 4 else { throw .invalid("every ring needs at least four vertices") }
                for p in ring { try finite(p) }
                guard ring.first == ring.last else { throw .invalid("rings must be closed") }
            }
        case .envelope(let e):
            guard e.xmin.isFinite, e.ymin.isFinite, e.xmax.isFinite, e.ymax.isFinite else {
                throw .invalid("envelope coordinates must be finite numbers")
            }
            guard e.xmin <= e.xmax, e.ymin <= e.ymax else { throw .invalid("envelope min must not exceed max") }
        }
    }
}

public enum GeometryError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    case unsupported(String)
    case truncated

    public var description: String {
        switch self {
        case .invalid(let reason): "Invalid geometry: \(reason)"
        case .unsupported(let what): "Unsupported geometry: \(what)"
        case .truncated: "Invalid geometry: the binary data ends early"
        }
    }
}
