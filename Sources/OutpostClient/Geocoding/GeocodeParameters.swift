import OutpostGeocoding

/// A point in WGS84: where a search prefers its answers, or where to reverse geocode.
public struct GeocodePoint: Sendable, Equatable {
    public var longitude: Double
    public var latitude: Double

    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }

    var isValid: Bool { longitude.isFinite && latitude.isFinite && abs(longitude) <= 180 && abs(latitude) <= 90 }
    var planar: PlanarPoint { WebMercator.point(longitude: longitude, latitude: latitude) }
    var text: String { "\(longitude),\(latitude)" }
}

/// What a search is asked with (after the ArcGIS Maps SDKs' `GeocodeParameters` and
/// `SuggestParameters`), online or offline alike (docs/client.md, "Geocoding"). The bounds are
/// the service's, checked before either asks.
public struct GeocodeParameters: Sendable, Equatable {
    /// `maxLocations` (or `maxSuggestions`): 1 to 50 (15 for suggestions).
    public var maxResults = 20
    /// Answers below this score (0 to 100) are dropped.
    public var minScore = 0.0
    /// Answers nearer this point rank first (`location`).
    public var preferredSearchLocation: GeocodePoint?
    /// With a preferred location: only answers within this many metres (0 to 50,000).
    public var searchDistanceMetres: Double?
    /// Only answers inside this WGS84 box (`searchExtent`): west, south, east, north.
    public var searchArea: (west: Double, south: Double, east: Double, north: Double)?

    public init(maxResults: Int = 20) { self.maxResults = maxResults }

    public static func == (a: GeocodeParameters, b: GeocodeParameters) -> Bool {
        a.maxResults == b.maxResults && a.minScore == b.minScore && a.preferredSearchLocation == b.preferredSearchLocation
            && a.searchDistanceMetres == b.searchDistanceMetres
            && a.searchArea.map { [$0.west, $0.south, $0.east, $0.north] }
                == b.searchArea.map { [$0.west, $0.south, $0.east, $0.north] }
    }

    /// The service's bounds, for `maxResults` up to `most`.
    func check(most: Int) throws {
        func refuse(_ name: String, _ rule: String) -> ClientError {
            ClientError.server(code: 400, message: "Unable to complete operation.", details: ["Invalid parameter '\(name)': \(rule)."])
        }
        guard (1...most).contains(maxResults) else { throw refuse("maxResults", "1 to \(most)") }
        guard minScore.isFinite, (0...100).contains(minScore) else { throw refuse("minScore", "0 to 100") }
        if let point = preferredSearchLocation, !point.isValid { throw refuse("preferredSearchLocation", "longitude and latitude") }
        if let metres = searchDistanceMetres, !(metres.isFinite && (0...50_000).contains(metres)) {
            throw refuse("searchDistanceMetres", "0 to 50,000")
        }
        if let area = searchArea, ![area.west, area.south, area.east, area.north].allSatisfy(\.isFinite) {
            throw refuse("searchArea", "finite degrees")
        }
    }

    /// The same preferences as the service reads them from `location`, `distance` and `searchExtent`.
    var preferences: GeocodePreferences {
        var preferences = GeocodePreferences(minScore: minScore)
        if let point = preferredSearchLocation {
            let centre = point.planar
            preferences.bias = LocationBias(location: centre, distance: searchDistanceMetres.map { $0 * WebMercator.unitsPerMetre(at: centre) })
        }
        if let area = searchArea {
            let low = WebMercator.point(longitude: area.west, latitude: area.south)
            let high = WebMercator.point(longitude: area.east, latitude: area.north)
            preferences.extent = SearchExtent(xmin: low.x, ymin: low.y, xmax: high.x, ymax: high.y)
        }
        return preferences
    }

    /// The service's parameters for the same preferences.
    var queryFields: [(String, String)] {
        var fields: [(String, String)] = [("minScore", String(minScore)), ("outSR", "4326")]
        if let point = preferredSearchLocation {
            fields.append(("location", point.text))
            if let metres = searchDistanceMetres { fields.append(("distance", String(metres))) }
        }
        if let area = searchArea { fields.append(("searchExtent", "\(area.west),\(area.south),\(area.east),\(area.north)")) }
        return fields
    }
}

/// One answer of `geocode` or `reverseGeocode` (after the SDKs' `GeocodeResult`).
public struct GeocodeResult: Sendable, Equatable {
    /// `Match_addr`: the address as the locator writes it.
    public var label: String
    /// 0 to 100 (100 for a reverse geocode).
    public var score: Double
    /// Where it is, in WGS84.
    public var location: GeocodePoint
    /// ArcGIS's text attributes (`Addr_type`, `AddNum`, `StName`, `City`, `Postal`, `Side`,
    /// `Loc_name`, …).
    public var attributes: [String: String]

    public init(label: String, score: Double, location: GeocodePoint, attributes: [String: String]) {
        self.label = label
        self.score = score
        self.location = location
        self.attributes = attributes
    }
}

/// One completion of `suggest`: geocode it with `LocatorTask.geocode(suggestion:)`.
public struct SuggestResult: Sendable, Equatable {
    public var label: String
    /// The locator's `magicKey` for the entry it names.
    public var magicKey: String
    public var isCollection: Bool

    public init(label: String, magicKey: String, isCollection: Bool = false) {
        self.label = label
        self.magicKey = magicKey
        self.isCollection = isCollection
    }
}
