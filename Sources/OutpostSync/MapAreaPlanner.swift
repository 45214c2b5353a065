import Foundation
import OutpostGeometry
import OutpostWire

/// A map area's shape as CreateMapArea takes it (offline-maps.md §2.3): an envelope or a
/// polygon, in the spatial reference it was given in.
public enum MapAreaShape: Equatable, Sendable {
    case envelope(Envelope, wkid: Int)
    case polygon([[Point]], wkid: Int)

    /// The shape's bounding box.
    public var extent: Envelope {
        switch self {
        case .envelope(let envelope, _): return envelope
        case .polygon(let rings, _):
            var box = Envelope.empty
            for ring in rings { for point in ring { box.expand(x: point.x, y: point.y) } }
            return box
        }
    }

    public var wkid: Int {
        switch self {
        case .envelope(_, let wkid), .polygon(_, let wkid): wkid
        }
    }

    /// As a map area item keeps it: `properties.extent`, `properties.area`.
    public var extentJSON: JSONValue {
        let box = extent
        return [
            "xmin": .double(box.xmin), "ymin": .double(box.ymin), "xmax": .double(box.xmax), "ymax": .double(box.ymax),
            "spatialReference": ["wkid": .int(Int64(wkid))],
        ]
    }

    public var geometryJSON: JSONValue {
        switch self {
        case .envelope: return extentJSON
        case .polygon(let rings, let wkid):
            return [
                "rings": .array(rings.map { ring in .array(ring.map { [.double($0.x), .double($0.y)] }) }),
                "spatialReference": ["wkid": .int(Int64(wkid))],
            ]
        }
    }
}

/// CreateMapArea's rules (offline-maps.md §2.1–2.3), pure: which area a request names, and
/// whether the web map may have it.
public enum MapAreaPlanner {
    /// The longest `area` text taken (ArcGIS's `MAX_POLYGON_LIMIT`).
    public static let maximumAreaText = 100_000
    /// Map areas per web map unless the server says otherwise (`maxMapAreaItemsLimit`).
    public static let defaultAreaLimit = 16

    /// The area a request names: `area` (by `areaType`) before `extent` before `bookmark`; a
    /// bookmark is looked up in the web map's `bookmarks`.
    public static func area(
        areaType: String?, area: String?, extent: String?, bookmark: String?, webMap: JSONValue
    ) throws(PackagingError)
        -> MapAreaShape
    {
        if let area, !area.isEmpty {
            guard area.utf8.count <= maximumAreaText else {
                throw .invalid("area", "It is longer than \(maximumAreaText) characters.")
            }
            guard let json = try? JSONParser.parse(area) else { throw .invalid("area", "It is not JSON.") }
            switch (areaType ?? "").uppercased() {
            case "BOOKMARK":
                guard let name = json["name"]?.stringValue else { throw .invalid("area", "A bookmark area is {\"name\": …}.") }
                return try bookmarked(name, in: webMap)
            case "POLYGON": return try shape(json, polygon: true, parameter: "area")
            case "ENVELOPE", "": return try shape(json, polygon: json["rings"] != nil, parameter: "area")
            default: throw .invalid("areaType", "It is BOOKMARK, ENVELOPE or POLYGON.")
            }
        }
        if let extent, !extent.isEmpty {
            guard let json = try? JSONParser.parse(extent) else { throw .invalid("extent", "It is not JSON.") }
            return try shape(json, polygon: false, parameter: "extent")
        }
        if let bookmark, !bookmark.isEmpty { return try bookmarked(bookmark, in: webMap) }
        throw PackagingError(.areaMissing, "No area was given (area, extent or bookmark).")
    }

    /// Refuses an area when the map has its limit of areas, or one with the same shape.
    public static func check(_ shape: MapAreaShape, existing: [MapAreaShape], limit: Int) throws(PackagingError) {
        guard existing.count < limit else { throw .exceeding(limit: limit) }
        guard !existing.contains(shape) else { throw .exists }
    }

    private static func bookmarked(_ name: String, in webMap: JSONValue) throws(PackagingError) -> MapAreaShape {
        let bookmarks = webMap["bookmarks"]?.arrayValue ?? []
        guard let found = bookmarks.first(where: { $0["name"]?.stringValue == name }), let extent = found["extent"] else {
            throw .invalid("bookmark", "The web map has no bookmark '\(name)'.")
        }
        return try shape(extent, polygon: false, parameter: "bookmark")
    }

    private static func shape(_ json: JSONValue, polygon: Bool, parameter: String) throws(PackagingError) -> MapAreaShape {
        guard let (geometry, reference) = try? Geometry.fromEsriJSON(json) else {
            throw .invalid(parameter, polygon ? "It is not a polygon." : "It is not an envelope.")
        }
        let wkid = reference?.wkid ?? 4326
        switch geometry {
        case .envelope(let envelope) where !polygon && envelope.xmin < envelope.xmax && envelope.ymin < envelope.ymax:
            return .envelope(envelope, wkid: wkid)
        case .polygon(let rings) where polygon && !rings.isEmpty && rings.allSatisfy({ $0.count >= 4 }):
            // The packages' replicas filter by it: no more vertices than a filter geometry may have.
            guard geometry.vertexCount <= Geometry.maximumFilterVertices else {
                throw .invalid(parameter, "It has more than \(Geometry.maximumFilterVertices) vertices.")
            }
            return .polygon(rings, wkid: wkid)
        default:
            throw .invalid(parameter, polygon ? "It is not a polygon." : "It is not an envelope.")
        }
    }
}
