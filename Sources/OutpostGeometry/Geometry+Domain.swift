import OutpostWire

extension Geometry {
    /// Refuses a vertex outside the coordinates `reference` admits (`CoordinateSystem.domain`:
    /// longitude and latitude for a geographic reference, a bound on lengths otherwise), so
    /// one edit cannot store a point that no answer can reproject or quantize
    /// (docs/decisions.md, "Coordinate domains"). Run after `validate()`.
    public func checkDomain(of reference: SpatialReference, _ coordinateSystem: CoordinateSystem) throws(GeometryError) {
        let parts: [[Point]] =
            switch self {
            case .point(let p): [[p]]
            case .multipoint(let points): [points]
            case .polyline(let parts), .polygon(let parts): parts
            case .envelope(let e): [[Point(x: e.xmin, y: e.ymin), Point(x: e.xmax, y: e.ymax)]]
            }
        for part in parts {
            if let outside = OGCGeometry.multiPoint(part).firstVertex(outside: coordinateSystem) {
                throw .invalid(Self.outsideDescription(outside, reference: reference, coordinateSystem))
            }
        }
    }

    public static func outsideDescription(_ point: Point, reference: SpatialReference, _ coordinateSystem: CoordinateSystem) -> String {
        let domain = coordinateSystem.domain
        let admitted =
            coordinateSystem.isGeographic
            ? "longitude \(domain.xmin)…\(domain.xmax) and latitude \(domain.ymin)…\(domain.ymax)"
            : "coordinates within ±\(domain.xmax)"
        return "the coordinate (\(point.x), \(point.y)) lies outside spatial reference \(reference.wkid), which admits \(admitted)"
    }
}

extension OGCGeometry {
    /// The first vertex that is not finite or lies outside `coordinateSystem.domain`; nil
    /// when every vertex is inside.
    public func firstVertex(outside coordinateSystem: CoordinateSystem) -> Point? {
        let domain = coordinateSystem.domain
        func outside(_ points: [Point]) -> Point? {
            points.first { !($0.x >= domain.xmin && $0.x <= domain.xmax && $0.y >= domain.ymin && $0.y <= domain.ymax) }
        }
        switch self {
        case .point(let p): return outside([p])
        case .lineString(let points), .multiPoint(let points): return outside(points)
        case .polygon(let parts), .multiLineString(let parts):
            for part in parts { if let p = outside(part) { return p } }
        case .multiPolygon(let polygons):
            for polygon in polygons { for ring in polygon { if let p = outside(ring) { return p } } }
        }
        return nil
    }

    /// Whether every vertex is a finite number: what a reprojection PROJ could not do leaves
    /// infinities (SpatiaLite's `ST_Transform`), answered as no geometry.
    public var isFinite: Bool {
        func finite(_ points: [Point]) -> Bool { points.allSatisfy { $0.x.isFinite && $0.y.isFinite } }
        switch self {
        case .point(let p): return finite([p])
        case .lineString(let points), .multiPoint(let points): return finite(points)
        case .polygon(let parts), .multiLineString(let parts): return parts.allSatisfy(finite)
        case .multiPolygon(let polygons): return polygons.allSatisfy { $0.allSatisfy(finite) }
        }
    }
}
