import OutpostGeocoding
import OutpostRouting
import OutpostWire

/// A `solve` request's parameters as values (docs/routing.md, "Service"), every bound checked
/// before any work. Pure: the fuzz target `FuzzRoute` parses hostile parameters with it.
public struct RouteRequest: Sendable {
    /// The most stops one solve takes; with `findBestSequence`, the most it orders.
    public static let maximumStops = 50
    public static let maximumSequencedStops = 25
    public static let maximumBarriers = 250
    /// The most UTF-8 bytes of `stops` or `barriers`, checked before they are parsed: 250
    /// features of 4 KiB each (a feature set's attributes ride along).
    public static let maximumPointsBytes = 1 << 20

    public enum OutputLines: String, Sendable {
        case trueShape = "esriNAOutputLineTrueShape"
        case straight = "esriNAOutputLineStraight"
        case none = "esriNAOutputLineNone"
    }

    public var problem: RouteProblem
    /// Each stop's input geometry and attributes, for `returnStops`.
    public var stopInputs: [(point: PlanarPoint, attributes: JSONObject)]
    public var outSR: GeocodeRequest.Reference
    public var returnDirections = true
    public var returnRoutes = true
    public var returnStops = false
    public var returnBarriers = false
    public var outputLines = OutputLines.trueShape
    public var language = DirectionsLanguage.english
    public var lengthUnits = LengthUnit.kilometers
    /// Milliseconds since 1970 the route starts at, for directions' ETA.
    public var startTime: Double?

    public static func parse(_ parameters: RequestParameters, hasCost: Bool) throws(ArcGISError) -> RouteRequest {
        guard let stopsText = parameters.string("stops") else { throw .missingParameter("stops") }
        let stops = try points(stopsText, "stops", maximum: maximumStops, defaultName: { "Location \($0 + 1)" })
        var request = RouteRequest(
            problem: RouteProblem(stops: stops.points.map { RoutePoint(name: $0.name, point: $0.point) }),
            stopInputs: stops.points.map { ($0.point, $0.attributes) }, outSR: stops.reference)
        if let text = parameters.string("barriers") {
            request.problem.barriers = try points(text, "barriers", maximum: maximumBarriers, defaultName: { "Barrier \($0 + 1)" }).points.map {
                RoutePoint(name: $0.name, point: $0.point)
            }
        }
        for name in ["polylineBarriers", "polygonBarriers"] {
            if let text = parameters.string(name), (try? points(text, name, maximum: 0, defaultName: { _ in "" })) == nil {
                throw .invalidParameter(name, "line and area barriers are not supported; use point barriers")
            }
        }
        let travelMode = try parameters.json("travelMode")
        let impedanceName = parameters.string("impedanceAttributeName") ?? travelMode?["impedanceAttributeName"]?.stringValue
        let impedance = try impedance(impedanceName, hasCost: hasCost)
        var restrictions = Set(Restriction.allCases)
        let restrictionNames =
            // Given but empty means no restrictions, as ArcGIS reads it.
            parameters["restrictionAttributeNames"].map { $0.split(separator: ",").map { String($0).trimmingWhitespace() } }
            ?? travelMode?["restrictionAttributeNames"]?.arrayValue?.compactMap(\.stringValue)
        if let restrictionNames {
            restrictions = []
            for name in restrictionNames where !name.isEmpty && name.lowercased() != "none" {
                guard let restriction = Restriction.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                    throw .invalidParameter("restrictionAttributeNames", "the network's restrictions are Oneway and Restricted")
                }
                restrictions.insert(restriction)
            }
        }
        request.problem.rules = TravelRules(impedance: impedance, restrictions: restrictions)
        request.problem.findBestSequence = try parameters.bool("findBestSequence", default: false)
        request.problem.preserveFirstStop = try parameters.bool("preserveFirstStop", default: true)
        request.problem.preserveLastStop = try parameters.bool("preserveLastStop", default: true)
        request.problem.ignoreInvalidLocations = try parameters.bool("ignoreInvalidLocations", default: true)
        if request.problem.findBestSequence, stops.points.count > maximumSequencedStops {
            throw .invalidParameter("findBestSequence", "at most \(maximumSequencedStops) stops are put in order")
        }
        request.returnDirections = try parameters.bool("returnDirections", default: true)
        request.returnRoutes = try parameters.bool("returnRoutes", default: true)
        request.returnStops = try parameters.bool("returnStops", default: false)
        request.returnBarriers = try parameters.bool("returnBarriers", default: false)
        if let raw = parameters.string("outputLines") {
            guard let lines = OutputLines(rawValue: raw) else {
                throw .invalidParameter("outputLines", "esriNAOutputLineTrueShape, …Straight or …None")
            }
            request.outputLines = lines
        }
        if let raw = parameters.string("outSR") {
            guard let reference = SpatialReference(json: .string(raw)).flatMap(GeocodeRequest.Reference.init) else {
                throw .invalidParameter("outSR", "the route service answers in 4326 or 3857 (102100)")
            }
            request.outSR = reference
        }
        request.language = DirectionsLanguage(code: parameters.string("directionsLanguage"))
        if let raw = parameters.string("directionsLengthUnits") {
            guard let unit = LengthUnit(rawValue: raw) else { throw .invalidParameter("directionsLengthUnits", "an esriNAU… length unit") }
            request.lengthUnits = unit
        }
        if let raw = parameters.string("startTime"), raw.lowercased() != "now", !raw.isEmpty {
            guard let time = Double(raw), time.isFinite, abs(time) < 1e15 else { throw .invalidParameter("startTime", "milliseconds since 1970") }
            request.startTime = time
        }
        return request
    }

    static func impedance(_ name: String?, hasCost: Bool) throws(ArcGISError) -> Impedance {
        guard let name else { return .travelTime }
        switch name.lowercased() {
        case "length", "meters", "kilometers", "miles": return .length
        case "traveltime", "minutes", "time": return .travelTime
        case "cost" where hasCost: return .cost
        default:
            throw .invalidParameter("impedanceAttributeName", hasCost ? "Length, TravelTime or Cost" : "Length or TravelTime")
        }
    }

    /// Points as `x,y;x,y` (WGS84) or a feature set's JSON (`{"features": [...]}`, with its
    /// `spatialReference` or each geometry's). Features by `url` are refused: the server
    /// fetches nothing a request names.
    static func points(
        _ text: String, _ name: String, maximum: Int, defaultName: (Int) -> String
    ) throws(ArcGISError) -> (
        points: [(name: String, point: PlanarPoint, attributes: JSONObject)], reference: GeocodeRequest.Reference
    ) {
        var found: [(name: String, point: PlanarPoint, attributes: JSONObject)] = []
        guard text.utf8.count <= maximumPointsBytes else { throw .invalidParameter(name, "at most \(maximumPointsBytes) bytes") }
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("{") else {
            let pairs = trimmed.split(separator: ";")
            guard pairs.count <= maximum else { throw .invalidParameter(name, "at most \(maximum)") }
            for (i, pair) in pairs.enumerated() {
                let xy = pair.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmingWhitespace()) }
                guard xy.count == 2, let x = xy[0], let y = xy[1] else { throw .invalidParameter(name, "expected x,y;x,y or a feature set") }
                found.append((defaultName(i), try planar(x, y, .wgs84, name), JSONObject()))
            }
            return (found, .wgs84)
        }
        guard let json = try? JSONParser.parse(trimmed) else { throw .invalidParameter(name, "not JSON") }
        guard json["url"] == nil else { throw .invalidParameter(name, "features by URL are not fetched; send the features") }
        let rootReference = try reference(json["spatialReference"], name) ?? .wgs84
        let features = json["features"]?.arrayValue ?? []
        guard features.count <= maximum else { throw .invalidParameter(name, "at most \(maximum)") }
        for (i, feature) in features.enumerated() {
            guard let geometry = feature["geometry"], let x = geometry["x"]?.doubleValue, let y = geometry["y"]?.doubleValue else {
                throw .invalidParameter(name, "each feature needs a point geometry")
            }
            let reference = try reference(geometry["spatialReference"], name) ?? rootReference
            let attributes = feature["attributes"]?.objectValue ?? JSONObject()
            let given = attributes.first { $0.key.lowercased() == "name" }?.value.stringValue
            found.append((given.map { String($0.prefix(200)) } ?? defaultName(i), try planar(x, y, reference, name), attributes))
        }
        return (found, rootReference)
    }

    static func reference(_ json: JSONValue?, _ name: String) throws(ArcGISError) -> GeocodeRequest.Reference? {
        guard let json else { return nil }
        guard let known = SpatialReference(json: json).flatMap(GeocodeRequest.Reference.init) else {
            throw .invalidParameter(name, "points in 4326 or 3857 (102100)")
        }
        return known
    }

    static func planar(_ x: Double, _ y: Double, _ reference: GeocodeRequest.Reference, _ name: String) throws(ArcGISError) -> PlanarPoint {
        guard x.isFinite, y.isFinite else { throw .invalidParameter(name, "coordinates must be numbers") }
        switch reference {
        case .wgs84:
            guard (-180...180).contains(x), (-90...90).contains(y) else { throw .invalidParameter(name, "longitude -180 to 180, latitude -90 to 90") }
            return WebMercator.point(longitude: x, latitude: y)
        case .webMercator:
            guard abs(x) <= WebMercator.halfWidth, abs(y) <= WebMercator.halfWidth else { throw .invalidParameter(name, "outside Web Mercator") }
            return PlanarPoint(x: x, y: y)
        }
    }
}

/// Directions' length units (`directionsLengthUnits`), as ArcGIS names them.
public enum LengthUnit: String, Sendable {
    case meters = "esriNAUMeters"
    case kilometers = "esriNAUKilometers"
    case miles = "esriNAUMiles"
    case feet = "esriNAUFeet"
    case yards = "esriNAUYards"
    case nauticalMiles = "esriNAUNauticalMiles"

    public var metres: Double {
        switch self {
        case .meters: 1
        case .kilometers: 1000
        case .miles: 1609.344
        case .feet: 0.3048
        case .yards: 0.9144
        case .nauticalMiles: 1852
        }
    }
}
