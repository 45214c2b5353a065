import Foundation
import OutpostGeometry
import OutpostWire

/// Which package an export writes (docs/tiles.md, "Formats written").
public enum TilePackageFormat: String, Sendable, Equatable {
    /// Esri's open tile package: a stored zip of Compact Cache V2 bundles.
    case tpkx
    case mbtiles

    public var fileExtension: String { rawValue }
}

/// An `exportTiles` or `estimateExportTilesSize` request, parsed (offline-maps.md §3.2, §3.3):
/// extents and polygons already in Web Mercator metres.
public struct TileExportRequest: Sendable, Equatable {
    /// `levels` as given; nil asks for every level of the set.
    public var levels: String?
    public var levelKind: TileExportLevelKind
    /// `exportExtent`; nil (or `DEFAULT`) is the service's full extent.
    public var extent: Envelope?
    /// `areaOfInterest` or `polygon`: the rings tiles must touch.
    public var areaOfInterest: [[Point]]?
    public var format: TilePackageFormat

    public init(
        levels: String? = nil, levelKind: TileExportLevelKind = .levelId, extent: Envelope? = nil, areaOfInterest: [[Point]]? = nil,
        format: TilePackageFormat = .tpkx
    ) {
        self.levels = levels
        self.levelKind = levelKind
        self.extent = extent
        self.areaOfInterest = areaOfInterest
        self.format = format
    }

    /// Parses the form of a request to a service of `kind`. Vector sets always export as
    /// MBTiles; raster sets as `.tpkx` unless `storageFormat` asks for MBTiles.
    public static func parse(_ p: RequestParameters, kind: TileSet.Kind) throws(ArcGISError) -> TileExportRequest {
        var request = TileExportRequest(format: kind == .vector ? .mbtiles : .tpkx)
        if let levels = p["levels"]?.trimmingCharacters(in: .whitespaces), !levels.isEmpty { request.levels = levels }
        if let by = p["exportBy"], !by.isEmpty {
            guard let kind = [TileExportLevelKind.levelId, .resolution, .scale].first(where: { $0.rawValue.lowercased() == by.lowercased() }) else {
                throw .invalidParameter("exportBy", "LevelID, Resolution or Scale")
            }
            request.levelKind = kind
        }
        if let text = p["exportExtent"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.uppercased() != "DEFAULT" {
            request.extent = try extent(text)
        }
        if let text = (p["areaOfInterest"] ?? p["polygon"])?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            request.areaOfInterest = try polygon(text)
        }
        if kind == .raster, let format = p["storageFormat"] ?? p["storageFormatType"], !format.isEmpty {
            switch format.lowercased() {
            case "esrimapcachestoragemodecompactv2", "compactv2", "tpkx": request.format = .tpkx
            case "mbtiles": request.format = .mbtiles
            case "esrimapcachestoragemodecompact", "compact", "tpk":
                throw ArcGISError(
                    kind: .invalidParameter, message: "Invalid value for parameter storageFormat.",
                    details: [
                        "esriMapCacheStorageModeCompact (.tpk) has no public specification; ask for esriMapCacheStorageModeCompactV2 (.tpkx) or MBTiles."
                    ])
            default: throw .invalidParameter("storageFormat", "esriMapCacheStorageModeCompactV2 or MBTiles")
            }
        }
        return request
    }

    /// An envelope as JSON or as `xmin,ymin,xmax,ymax` (degrees without a spatial reference
    /// when they look like degrees, as the ArcGIS API for Python documents).
    static func extent(_ text: String) throws(ArcGISError) -> Envelope {
        if !text.hasPrefix("{") {
            let numbers = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, numbers[0] < numbers[2], numbers[1] < numbers[3] else {
                throw .invalidParameter("exportExtent", "an envelope")
            }
            let degrees = numbers.allSatisfy { abs($0) <= 180 }
            return try webMercator(
                Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3]), degrees ? .wgs84 : .webMercator, "exportExtent")
        }
        guard let json = try? JSONParser.parse(text), case .envelope(let envelope) = try? Geometry.fromEsriJSON(json).0,
            envelope.xmin < envelope.xmax, envelope.ymin < envelope.ymax
        else { throw .invalidParameter("exportExtent", "an envelope") }
        return try webMercator(envelope, (try? Geometry.fromEsriJSON(json).1) ?? .webMercator, "exportExtent")
    }

    /// A polygon, or a feature set whose features' polygons are taken together.
    /// The most vertices an area of interest may have, all its rings and features together: a
    /// drawn or digitised area needs far fewer, and planning's cost grows with them.
    public static let maximumAreaVertices = 10_000

    static func polygon(_ text: String) throws(ArcGISError) -> [[Point]] {
        guard let json = try? JSONParser.parse(text) else { throw .invalidParameter("areaOfInterest", "a polygon or a feature set of polygons") }
        let defaultReference = (json["spatialReference"]).flatMap(SpatialReference.init(json:))
        let geometries = json["features"]?.arrayValue?.compactMap { $0["geometry"] } ?? [json]
        var rings: [[Point]] = []
        var vertices = 0
        for geometry in geometries {
            guard let (parsed, reference) = try? Geometry.fromEsriJSON(geometry), case .polygon(let parts) = parsed, !parts.isEmpty else {
                throw .invalidParameter("areaOfInterest", "a polygon or a feature set of polygons")
            }
            let sr = reference ?? defaultReference ?? .webMercator
            vertices += parts.reduce(0) { $0 + $1.count }
            guard vertices <= maximumAreaVertices else {
                throw .invalidParameter("areaOfInterest", "a polygon of at most \(maximumAreaVertices) vertices in all")
            }
            for ring in parts {
                guard ring.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { throw .invalidParameter("areaOfInterest", "finite coordinates") }
                rings.append(try ring.map { point throws(ArcGISError) in try webMercator(point, sr, "areaOfInterest") })
            }
        }
        guard !rings.isEmpty else { throw .invalidParameter("areaOfInterest", "a polygon or a feature set of polygons") }
        return rings
    }

    private static func webMercator(_ envelope: Envelope, _ sr: SpatialReference, _ name: String) throws(ArcGISError) -> Envelope {
        let low = try webMercator(Point(x: envelope.xmin, y: envelope.ymin), sr, name)
        let high = try webMercator(Point(x: envelope.xmax, y: envelope.ymax), sr, name)
        return Envelope(xmin: low.x, ymin: low.y, xmax: high.x, ymax: high.y)
    }

    /// Tile services are in Web Mercator; geometries come in it or in WGS 84.
    private static func webMercator(_ point: Point, _ sr: SpatialReference, _ name: String) throws(ArcGISError) -> Point {
        switch sr.epsg {
        case 3857: return point
        case 4326:
            let (x, y) = WebMercatorTiling.project(longitude: point.x, latitude: point.y)
            return Point(x: x, y: y)
        default:
            throw ArcGISError(
                kind: .invalidParameter, message: "Invalid value for parameter \(name).",
                details: ["Spatial reference \(sr.wkid) is not supported here: give Web Mercator (102100/3857) or WGS 84 (4326)."])
        }
    }
}
