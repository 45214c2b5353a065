/// One thing a locator can find: a row of the index, made by `LocatorEntry.make` from an
/// organisation's own layers (docs/geocoding.md, "Entries"). Every text component is held as
/// canonical tokens for matching and as display text for answers.
public struct LocatorEntry: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, CaseIterable, Codable {
        /// An address point: a house number on a street, at a location.
        case pointAddress
        /// A street centre-line, with the house numbers along each side when known.
        case streetCenterline
        /// A named place (ArcGIS's POI): its name is its one text field.
        case place
        /// A town, city or neighbourhood.
        case locality
        /// A postcode area.
        case postal

        /// Among candidates of one address type and score, the kind of entry that goes first:
        /// a centre-line is a better "StreetName" answer than one of the street's points.
        var tieOrder: Int {
            switch self {
            case .streetCenterline: 0
            case .pointAddress: 1
            case .place: 2
            case .locality: 3
            case .postal: 4
            }
        }
    }

    /// What each component is called in answers, as the data wrote it (abbreviations spelled out).
    public struct Display: Hashable, Sendable, Codable {
        public var street: String
        public var locality: String
        public var postcode: String
        public var placeName: String

        public init(street: String = "", locality: String = "", postcode: String = "", placeName: String = "") {
            self.street = street
            self.locality = locality
            self.postcode = postcode
            self.placeName = placeName
        }
    }

    /// The feature this entry was made from (the index's own id: a layer and an object id).
    public var id: String
    public var kind: Kind
    public var houseNumber: HouseNumber?
    public var street: [String]
    public var locality: [String]
    public var postcode: String?
    public var placeName: [String]
    public var display: Display
    /// For a centre-line, the point halfway along it. Planar, in the index's projected reference.
    public var location: PlanarPoint
    /// A centre-line's vertices `[[x, y], …]`, in the order they were drawn; empty otherwise.
    public var polyline: [[Double]]
    public var ranges: HouseNumberRanges?

    public init(
        id: String, kind: Kind, houseNumber: HouseNumber? = nil, street: [String] = [], locality: [String] = [], postcode: String? = nil,
        placeName: [String] = [], display: Display = Display(), location: PlanarPoint, polyline: [[Double]] = [], ranges: HouseNumberRanges? = nil
    ) {
        self.id = id
        self.kind = kind
        self.houseNumber = houseNumber
        self.street = street
        self.locality = locality
        self.postcode = postcode
        self.placeName = placeName
        self.display = display
        self.location = location
        self.polyline = polyline
        self.ranges = ranges
    }

    /// Every token an index holds for the entry, in component order, each once: what a text
    /// index stores in its one column (`SearchTerms` looks them up).
    public var indexTokens: [String] {
        var seen = Set<String>()
        let all = [houseNumber?.token].compactMap { $0 } + street + placeName + locality + [postcode].compactMap { $0 }
        return all.filter { seen.insert($0).inserted }
    }
}
