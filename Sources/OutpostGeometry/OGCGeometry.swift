import OutpostWire

/// The OGC simple-features model that WKB, GeoPackage, SpatiaLite and GeoJSON share.
public enum OGCGeometry: Sendable, Equatable {
    case point(Point)
    case lineString([Point])
    case polygon([[Point]])
    case multiPoint([Point])
    case multiLineString([[Point]])
    case multiPolygon([[[Point]]])

    /// The OGC type code (WKB and SpatiaLite class type).
    public var typeCode: UInt32 {
        switch self {
        case .point: 1
        case .lineString: 2
        case .polygon: 3
        case .multiPoint: 4
        case .multiLineString: 5
        case .multiPolygon: 6
        }
    }

    public var typeName: String {
        switch self {
        case .point: "POINT"
        case .lineString: "LINESTRING"
        case .polygon: "POLYGON"
        case .multiPoint: "MULTIPOINT"
        case .multiLineString: "MULTILINESTRING"
        case .multiPolygon: "MULTIPOLYGON"
        }
    }

    public var envelope: Envelope {
        var e = Envelope.empty
        func add(_ points: [Point]) { for p in points where !p.x.isNaN { e.expand(x: p.x, y: p.y) } }
        switch self {
        case .point(let p): add([p])
        case .lineString(let ps), .multiPoint(let ps): add(ps)
        case .polygon(let rings), .multiLineString(let rings): for r in rings { add(r) }
        case .multiPolygon(let polys): for poly in polys { for r in poly { add(r) } }
        }
        return e
    }
}

extension Geometry {
    /// The OGC form stored in SpatiaLite and GeoPackage: polylines become MULTILINESTRING and
    /// polygons MULTIPOLYGON, so one layer has one column type whatever its features' parts.
    public var ogc: OGCGeometry {
        switch self {
        case .point(let p): .point(p)
        case .multipoint(let points): .multiPoint(points)
        case .polyline(let paths): .multiLineString(paths)
        case .polygon(let rings): .multiPolygon(RingOrientation.ogcPolygons(fromEsriRings: rings))
        case .envelope: polygonized.ogc
        }
    }

    public init(ogc: OGCGeometry) {
        switch ogc {
        case .point(let p): self = .point(p)
        case .multiPoint(let points): self = .multipoint(points)
        case .lineString(let path): self = .polyline([path])
        case .multiLineString(let paths): self = .polyline(paths)
        case .polygon(let rings): self = .polygon(RingOrientation.esriRings(fromOGCPolygons: [rings]))
        case .multiPolygon(let polygons): self = .polygon(RingOrientation.esriRings(fromOGCPolygons: polygons))
        }
    }

    /// The Esri form of a geometry read from a layer of type `layerType`: a multipoint column
    /// read back with one point stays a multipoint.
    public init(ogc: OGCGeometry, layerType: EsriGeometryType?) {
        self.init(ogc: ogc)
        if layerType == .multipoint, case .point(let p) = self { self = .multipoint([p]) }
    }
}

extension EsriGeometryType {
    /// The OGC type of the geometry column that stores this Esri type.
    public var ogcColumnType: String {
        switch self {
        case .point: "POINT"
        case .multipoint: "MULTIPOINT"
        case .polyline: "MULTILINESTRING"
        case .polygon, .envelope: "MULTIPOLYGON"
        }
    }
}
