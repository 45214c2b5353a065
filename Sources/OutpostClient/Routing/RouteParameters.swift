import OutpostRouting
import OutpostWire

/// A stop or point barrier: a name and WGS84 coordinates.
public struct RoutePlace: Sendable, Equatable {
    public var name: String
    public var longitude: Double
    public var latitude: Double

    public init(name: String, longitude: Double, latitude: Double) {
        self.name = name
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// What a route is solved for (after the ArcGIS Maps SDKs' `RouteParameters`), online or
/// offline alike (docs/client.md, "Routing").
public struct RouteParameters: Sendable, Equatable {
    public var stops: [RoutePlace] = []
    public var pointBarriers: [RoutePlace] = []
    /// `Length` or `TravelTime` (or `Cost` when the network has one).
    public var impedance: Impedance = .travelTime
    public var restrictions: Set<Restriction> = Set(Restriction.allCases)
    public var findsBestSequence = false
    public var preservesFirstStop = true
    public var preservesLastStop = true
    public var returnsDirections = true
    /// `en`, `de` or `fr` (any other: English).
    public var directionsLanguage = "en"

    public init(stops: [RoutePlace] = []) { self.stops = stops }

    /// The `solve` form the service reads: the same parameters the offline solve takes.
    var formFields: [(String, String)] {
        func places(_ places: [RoutePlace]) -> String {
            places.map { "\($0.longitude),\($0.latitude)" }.joined(separator: ";")
        }
        let features: [JSONValue] = stops.map { stop in
            ["geometry": ["x": .double(stop.longitude), "y": .double(stop.latitude)], "attributes": ["Name": .string(stop.name)]]
        }
        let stopSet: JSONValue = ["features": .array(features), "spatialReference": ["wkid": 4326]]
        var fields: [(String, String)] = [
            ("stops", stopSet.jsonText),
            ("impedanceAttributeName", impedance.rawValue),
            ("restrictionAttributeNames", Restriction.allCases.filter(restrictions.contains).map(\.rawValue).joined(separator: ",")),
            ("findBestSequence", String(findsBestSequence)), ("preserveFirstStop", String(preservesFirstStop)),
            ("preserveLastStop", String(preservesLastStop)), ("returnDirections", String(returnsDirections)), ("returnStops", "true"),
            ("directionsLanguage", directionsLanguage), ("directionsLengthUnits", "esriNAUMeters"), ("outSR", "4326"),
        ]
        if !pointBarriers.isEmpty { fields.append(("barriers", places(pointBarriers))) }
        return fields
    }
}

/// A solved route, as the service answers it and as the offline solve makes it.
public struct RouteResult: Sendable, Equatable {
    public struct Maneuver: Sendable, Equatable {
        public var text: String
        /// ArcGIS's maneuver type (`esriDMTTurnLeft` …).
        public var kind: String
        public var metres: Double
        public var minutes: Double
    }

    public var name: String
    /// Stop names in visiting order.
    public var stopOrder: [String]
    public var totalMetres: Double
    public var totalMinutes: Double
    /// The route's path, longitude and latitude.
    public var path: [[Double]]
    public var directions: [Maneuver]
}
