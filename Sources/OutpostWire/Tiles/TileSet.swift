import Foundation

/// A set of tiles a tile service serves: raster (a `MapServer` with a single fused cache) or
/// vector (a `VectorTileServer`), on the Web Mercator tiling of 256-pixel tiles that MBTiles
/// uses (levels are zoom levels, rows count from the top).
public struct TileSet: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case raster
        case vector

        /// The service kind in a URL.
        public var serviceKind: String { self == .raster ? "MapServer" : "VectorTileServer" }
    }

    public var name: String
    public var kind: Kind
    /// `png`, `jpg`, `webp` or `pbf`.
    public var format: String
    public var minZoom: Int
    public var maxZoom: Int
    /// West, south, east, north in degrees.
    public var bounds: [Double]
    public var description: String
    /// The MBTiles `json` metadata (a vector set's `vector_layers`), or null.
    public var metadata: JSONValue
    /// When it was imported (epoch ms): tiles never change after, so this versions them.
    public var created: Int64

    public init(
        name: String, kind: Kind, format: String, minZoom: Int, maxZoom: Int, bounds: [Double] = [-180, -85.0511, 180, 85.0511],
        description: String = "", metadata: JSONValue = .null, created: Int64
    ) {
        self.name = name
        self.kind = kind
        self.format = format
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.description = description
        self.metadata = metadata
        self.created = created
    }

    /// Whether `level/row/column` is a tile of the tiling this set covers.
    public func contains(level: Int, row: Int, column: Int) -> Bool {
        guard (minZoom...maxZoom).contains(level) else { return false }
        let count = 1 << level
        return (0..<count).contains(row) && (0..<count).contains(column)
    }
}

/// The Web Mercator tiling (EPSG:3857, 256-pixel tiles, 96 DPI) as ArcGIS describes it.
public enum WebMercatorTiling {
    /// Half the world's width in metres.
    public static let halfWorld = 20_037_508.342_789_244
    static let dpi = 96.0
    /// Metres per inch as ArcGIS's tiling schemes count them (their level 0 is 1:591,657,527.59).
    static let metresPerInch = 0.025_400_050_8

    public static func resolution(level: Int) -> Double { 2 * halfWorld / 256 / Double(1 << level) }
    public static func scale(level: Int) -> Double { resolution(level: level) * dpi / metresPerInch }

    /// Longitude and latitude (degrees) to Web Mercator metres.
    public static func project(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let clamped = min(max(latitude, -85.051_128_78), 85.051_128_78)
        let x = longitude * halfWorld / 180
        let y = log(tan((90 + clamped) * .pi / 360)) * halfWorld / .pi
        return (x, y)
    }

    /// Web Mercator metres to longitude and latitude (degrees).
    public static func unproject(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        (x / halfWorld * 180, atan(sinh(y / halfWorld * .pi)) * 180 / .pi)
    }

    /// The set's bounds (degrees: west, south, east, north) in Web Mercator metres.
    public static func envelope(_ bounds: [Double]) -> Envelope {
        let bounds = bounds.count == 4 ? bounds : [-180, -85.0511, 180, 85.0511]
        let lowerLeft = project(longitude: bounds[0], latitude: bounds[1])
        let upperRight = project(longitude: bounds[2], latitude: bounds[3])
        return Envelope(xmin: lowerLeft.x, ymin: lowerLeft.y, xmax: upperRight.x, ymax: upperRight.y)
    }

    public static let spatialReference: JSONValue = ["wkid": 102100, "latestWkid": 3857]

    /// `tileInfo` for levels `0...maxZoom` of 256-pixel tiles in `format`.
    public static func tileInfo(maxZoom: Int, format: String) -> JSONValue {
        let lods: [JSONValue] = (0...max(0, maxZoom)).map { level in
            ["level": .int(Int64(level)), "resolution": .double(resolution(level: level)), "scale": .double(scale(level: level))]
        }
        return [
            "rows": 256, "cols": 256, "dpi": 96, "format": .string(esriFormat(format)), "compressionQuality": 0,
            "origin": ["x": .double(-halfWorld), "y": .double(halfWorld)], "spatialReference": spatialReference, "lods": .array(lods),
        ]
    }

    /// An extent in Web Mercator from degrees (west, south, east, north).
    public static func extent(_ bounds: [Double]) -> JSONValue { extent(envelope(bounds)) }

    /// An extent's JSON in Web Mercator.
    public static func extent(_ envelope: Envelope) -> JSONValue {
        [
            "xmin": .double(envelope.xmin), "ymin": .double(envelope.ymin), "xmax": .double(envelope.xmax), "ymax": .double(envelope.ymax),
            "spatialReference": spatialReference,
        ]
    }

    public static func esriFormat(_ format: String) -> String {
        switch format.lowercased() {
        case "png": "PNG"
        case "jpg", "jpeg": "JPEG"
        case "pbf", "mvt": "pbf"
        default: format.uppercased()
        }
    }

    /// The HTTP content type of a tile.
    public static func contentType(_ format: String) -> String {
        switch format.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "webp": "image/webp"
        default: "application/x-protobuf"
        }
    }
}

/// A tile of a set as an export reads it: where it is (rows from the top) and its size.
public struct StoredTile: Sendable, Hashable {
    public var row: Int
    public var column: Int
    public var byteCount: Int

    public init(row: Int, column: Int, byteCount: Int) {
        self.row = row
        self.column = column
        self.byteCount = byteCount
    }
}
