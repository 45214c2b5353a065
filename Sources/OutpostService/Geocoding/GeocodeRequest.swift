import OutpostGeocoding
import OutpostWire

/// A `GeocodeServer` request's parameters as values (docs/geocoding.md, "Service"): points,
/// extents and distances already in the index's planar reference (`WebMercator`). Pure: the
/// fuzz target `FuzzGeocode` parses hostile parameters with it.
public struct GeocodeRequest: Sendable {
    /// The references a request may use: WGS84 (the default, as ArcGIS's) and Web Mercator.
    public enum Reference: Sendable, Equatable {
        case wgs84
        case webMercator(wkid: Int)

        public init?(_ reference: SpatialReference) {
            switch reference.wkid {
            case 4326: self = .wgs84
            case 3857, 102100, 102113, 900913: self = .webMercator(wkid: reference.wkid)
            default: return nil
            }
        }

        public var spatialReference: SpatialReference {
            switch self {
            case .wgs84: .wgs84
            case .webMercator(let wkid): SpatialReference(wkid: wkid)
            }
        }

        /// A planar index point in this reference.
        public func coordinates(of point: PlanarPoint) -> (x: Double, y: Double) {
            switch self {
            case .wgs84:
                let (longitude, latitude) = WebMercator.coordinates(of: point)
                return (longitude, latitude)
            case .webMercator: return (point.x, point.y)
            }
        }

        func planar(x: Double, y: Double) -> PlanarPoint {
            switch self {
            case .wgs84: WebMercator.point(longitude: x, latitude: y)
            case .webMercator: PlanarPoint(x: x, y: y)
            }
        }
    }

    /// The most `maxLocations`, and the default (ArcGIS's `MaxResultSize`).
    public static let maximumLocations = 50
    /// The most records one `geocodeAddresses` takes (`locatorProperties.MaxBatchSize`): each
    /// record is up to three index lookups; with `LocatorAnswers.batches`, one batch at a time.
    public static let maximumBatchSize = 100
    /// The entries one batch record reads (the AND pass's first): a tenth of a single request's.
    public static let batchEntriesPerRecord = 100
    /// `distance` is metres, at most this (a region, not a planet).
    public static let maximumDistanceMetres = 50_000.0
    /// reverseGeocode's default distance, as ArcGIS's: 100 m.
    public static let defaultReverseDistanceMetres = 100.0

    public var outSR: Reference = .wgs84
    public var maxLocations = GeocodeRequest.maximumLocations
    public var minScore = 0.0
    public var bias: LocationBias?
    public var extent: SearchExtent?
    /// Whether every candidate attribute is asked for (`outFields=*`) or only some.
    public var outFields: [String] = []

    public init() {}

    /// What narrows and orders the answers, as `LocatorSearch` takes it.
    public var preferences: GeocodePreferences { GeocodePreferences(minScore: minScore, bias: bias, extent: extent) }

    /// The parameters every operation shares: `outSR`, `maxLocations`, `location` and
    /// `distance`, `searchExtent`, `outFields`, `minScore`.
    public static func parse(_ parameters: RequestParameters) throws(ArcGISError) -> GeocodeRequest {
        var request = GeocodeRequest()
        if let raw = parameters.string("outSR") {
            guard let reference = SpatialReference(json: .string(raw)).flatMap(Reference.init) else {
                throw .invalidParameter("outSR", "the locator answers in 4326 or 3857 (102100)")
            }
            request.outSR = reference
        }
        if let count = try parameters.int("maxLocations") {
            guard (1...maximumLocations).contains(count) else { throw .invalidParameter("maxLocations", "1 to \(maximumLocations)") }
            request.maxLocations = count
        }
        if let score = try parameters.double("minScore") {
            guard score.isFinite, (0...100).contains(score) else { throw .invalidParameter("minScore", "0 to 100") }
            request.minScore = score
        }
        if let location = try point(parameters, "location") {
            let metres = try distance(parameters, default: nil)
            request.bias = LocationBias(location: location, distance: metres.map { $0 * WebMercator.unitsPerMetre(at: location) })
        }
        if let text = parameters.string("searchExtent") { request.extent = try extent(text) }
        request.outFields = parameters.string("outFields").map { $0.split(separator: ",").map { String($0).trimmingWhitespace() } } ?? []
        return request
    }

    /// `distance` in metres: finite, 0 … the maximum.
    public static func distance(_ parameters: RequestParameters, default fallback: Double?) throws(ArcGISError) -> Double? {
        guard let metres = try parameters.double("distance") else { return fallback }
        guard metres.isFinite, (0...maximumDistanceMetres).contains(metres) else {
            throw .invalidParameter("distance", "metres, 0 to \(Int(maximumDistanceMetres))")
        }
        return metres
    }

    /// A point as `x,y` (WGS84) or `{"x":…,"y":…,"spatialReference":{"wkid":…}}`, planar.
    public static func point(_ parameters: RequestParameters, _ name: String) throws(ArcGISError) -> PlanarPoint? {
        guard let text = parameters.string(name) else { return nil }
        var reference = Reference.wgs84
        var x: Double?
        var y: Double?
        if text.hasPrefix("{") {
            guard let json = try? JSONParser.parse(text) else { throw .invalidParameter(name, "not a point") }
            x = json["x"]?.doubleValue
            y = json["y"]?.doubleValue
            if let given = json["spatialReference"] {
                guard let known = SpatialReference(json: given).flatMap(Reference.init) else {
                    throw .invalidParameter(name, "a point in 4326 or 3857 (102100)")
                }
                reference = known
            }
        } else {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmingWhitespace()) }
            if parts.count == 2 {
                x = parts[0]
                y = parts[1]
            }
        }
        guard let x, let y, x.isFinite, y.isFinite else { throw .invalidParameter(name, "expected x,y or a point's JSON") }
        if reference == .wgs84, !((-180...180).contains(x) && (-90...90).contains(y)) {
            throw .invalidParameter(name, "longitude -180 to 180, latitude -90 to 90")
        }
        return reference.planar(x: x, y: y)
    }

    /// An extent as `xmin,ymin,xmax,ymax` (WGS84) or an envelope's JSON, planar.
    public static func extent(_ text: String) throws(ArcGISError) -> SearchExtent {
        var reference = Reference.wgs84
        var values: [Double?] = []
        if text.hasPrefix("{") {
            guard let json = try? JSONParser.parse(text) else { throw .invalidParameter("searchExtent", "not an envelope") }
            values = ["xmin", "ymin", "xmax", "ymax"].map { json[$0]?.doubleValue }
            if let given = json["spatialReference"] {
                guard let known = SpatialReference(json: given).flatMap(Reference.init) else {
                    throw .invalidParameter("searchExtent", "an extent in 4326 or 3857 (102100)")
                }
                reference = known
            }
        } else {
            values = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmingWhitespace()) }
        }
        let numbers = values.compactMap { $0 }
        guard values.count == 4, numbers.count == 4, numbers.allSatisfy(\.isFinite) else {
            throw .invalidParameter("searchExtent", "expected xmin,ymin,xmax,ymax or an envelope's JSON")
        }
        let low = reference.planar(x: numbers[0], y: numbers[1])
        let high = reference.planar(x: numbers[2], y: numbers[3])
        guard let extent = SearchExtent(xmin: low.x, ymin: low.y, xmax: high.x, ymax: high.y) else {
            throw .invalidParameter("searchExtent", "not an extent")
        }
        return extent
    }

    /// The address a request names: `SingleLine`, else the multi-field parameters; nil when none.
    public static func address(_ attributes: (String) -> String?) -> (singleLine: String?, fields: MultiFieldAddress?) {
        if let line = attributes("SingleLine") { return (line, nil) }
        let fields = MultiFieldAddress(
            address: attributes("Address"), address2: attributes("Address2"), city: attributes("City"), postal: attributes("Postal"),
            region: attributes("Region"))
        let given = [fields.address, fields.address2, fields.city, fields.postal, fields.region].contains { $0 != nil }
        return (nil, given ? fields : nil)
    }
}
