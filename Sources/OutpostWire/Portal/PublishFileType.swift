/// The portal's `filetype` values of `publish` that Outpost takes, and the item type each
/// file is added as (docs/portal.md, "Publishing").
public enum PublishFileType: String, Sendable, CaseIterable {
    case shapefile
    case fileGeodatabase
    case csv
    case geojson
    case geoPackage
    case kml
    /// Outpost's own: ArcGIS publishes tiles from its packages (`tilePackage`,
    /// `vectortilepackage`), which Outpost does not read; MBTiles is what open tools write.
    case mbtiles

    /// From a `filetype` parameter, matched without case.
    public init?(filetype: String) {
        guard let type = Self.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(filetype) == .orderedSame }) else { return nil }
        self = type
    }

    /// The portal item type such a file is added as.
    public var itemType: String {
        switch self {
        case .shapefile: "Shapefile"
        case .fileGeodatabase: "File Geodatabase"
        case .csv: "CSV"
        case .geojson: "GeoJson"
        case .geoPackage: "GeoPackage"
        case .kml: "KML"
        case .mbtiles: "MBTiles"
        }
    }

    /// Whether it comes zipped (a Shapefile's parts, a geodatabase's folder).
    public var isZipped: Bool { self == .shapefile || self == .fileGeodatabase }

    /// Whether it becomes a tile service (a `MapServer` or `VectorTileServer`), not features.
    public var isTiles: Bool { self == .mbtiles }
}
