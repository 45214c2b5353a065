/// The portal's `filetype` values of `publish` that Outpost takes, and the item type each
/// file is added as (docs/portal.md, "Publishing").
public enum PublishFileType: String, Sendable, CaseIterable {
    case shapefile
    case fileGeodatabase
    case csv
    case geojson
    case geoPackage
    case kml

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
        }
    }

    /// Whether it comes zipped (a Shapefile's parts, a geodatabase's folder).
    public var isZipped: Bool { self == .shapefile || self == .fileGeodatabase }
}
