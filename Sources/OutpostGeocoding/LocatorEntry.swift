/// One thing a locator can find: a row of the index, made by `LocatorEntry.make` from an
/// organisation's own layers (docs/geocoding.md, "Entries"). Every text component is held as
/// canonical tokens for matching and as display text for answers.
public struct LocatorEntry: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
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
        var tieOrder: Int { [.streetCenterline, .pointAddress, .place, .locality, .postal].firstIndex(of: self)! }
    }

    /// What each component is called in answers, as the data wrote it (abbreviations spelled out).
    public struct Display: Hashable, Sendable {
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
    /// For a centre-line, the point halfway along it.
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

/// The house numbers along a centre-line's two sides (TIGER-style from/to per side). A side
/// with either end missing holds no numbers. From may be above to: numbers then fall along
/// the line.
public struct HouseNumberRanges: Hashable, Sendable {
    public var leftFrom: Int?
    public var leftTo: Int?
    public var rightFrom: Int?
    public var rightTo: Int?

    public init(leftFrom: Int? = nil, leftTo: Int? = nil, rightFrom: Int? = nil, rightTo: Int? = nil) {
        self.leftFrom = leftFrom
        self.leftTo = leftTo
        self.rightFrom = rightFrom
        self.rightTo = rightTo
    }

    /// One side's from and to, when it has both.
    public func range(_ side: StreetSide) -> (from: Int, to: Int)? {
        switch side {
        case .left: leftFrom.flatMap { from in leftTo.map { (from, $0) } }
        case .right: rightFrom.flatMap { from in rightTo.map { (from, $0) } }
        }
    }

    /// No side holds a number.
    public var isEmpty: Bool { range(.left) == nil && range(.right) == nil }
}
