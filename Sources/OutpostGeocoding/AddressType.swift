/// What a candidate is, named exactly as ArcGIS's `Addr_type` names it. The order of the cases
/// is the ranking order between candidates of equal score (docs/geocoding.md, "Ranking").
public enum AddressType: String, Hashable, Sendable, CaseIterable {
    /// An address point whose house number is the query's.
    case pointAddress = "PointAddress"
    /// A house number placed along a centre-line by its ranges.
    case streetAddress = "StreetAddress"
    /// A named place.
    case poi = "POI"
    /// A street, without a house number (none asked, or the one asked is not on it).
    case streetName = "StreetName"
    /// A postcode area.
    case postal = "Postal"
    /// A town, city or neighbourhood.
    case locality = "Locality"

    /// 0 for the type that goes first.
    public var rankOrder: Int { Self.allCases.firstIndex(of: self)! }
}

/// One answer of a match: what was found, how well, and where.
public struct GeocodeCandidate: Hashable, Sendable {
    public var entryId: String
    public var entryKind: LocatorEntry.Kind
    public var addressType: AddressType
    /// 0…100: 100 less the penalties' points.
    public var score: Double
    /// ArcGIS's `address`/`Match_addr`, e.g. "12B Hill Street, Springfield, 90210".
    public var matchAddress: String
    public var location: PlanarPoint
    /// The house number of a PointAddress or StreetAddress.
    public var houseNumber: HouseNumber?
    /// A StreetAddress's side of the street.
    public var side: StreetSide?
    /// Why the score is below 100, in the order they were found.
    public var penalties: [MatchPenalty]

    public init(
        entryId: String, entryKind: LocatorEntry.Kind, addressType: AddressType, score: Double, matchAddress: String, location: PlanarPoint,
        houseNumber: HouseNumber? = nil, side: StreetSide? = nil, penalties: [MatchPenalty] = []
    ) {
        self.entryId = entryId
        self.entryKind = entryKind
        self.addressType = addressType
        self.score = score
        self.matchAddress = matchAddress
        self.location = location
        self.houseNumber = houseNumber
        self.side = side
        self.penalties = penalties
    }
}

/// A reason a candidate scores below 100, with its points (docs/geocoding.md, "Score").
public enum MatchPenalty: Hashable, Sendable {
    /// A query token met an entry token within the allowed edits: 5 points an edit.
    case fuzzyToken(edits: Int)
    /// An entry token the query did not give: 15 points, 4 for a street type, direction or particle.
    case missingToken(generic: Bool)
    /// A query token the entry does not have: 8 points.
    case extraToken
    /// A house number the entry does not hold (a centre-line without it in its ranges): 10 points.
    case houseNumberNotFound
    /// The same number with another letter ("12" for "12B"): 5 points.
    case houseNumberSuffix
    /// A house number given for a place: 10 points.
    case houseNumberOnPlace
    /// A street given, only a locality or postcode found: 30 points.
    case streetNotFound
    /// Neither a locality nor the entry's postcode in the query: 5 points.
    case missingLocality
    /// A locality the entry does not name (it has none): 5 points.
    case localityUnknownToEntry
    /// Another locality than the entry's: 20 points.
    case differentLocality
    /// Another postcode than the entry's: 10 points.
    case differentPostcode

    public var points: Double {
        switch self {
        case .fuzzyToken(let edits): 5 * Double(edits)
        case .missingToken(let generic): generic ? 4 : 15
        case .extraToken: 8
        case .houseNumberNotFound, .houseNumberOnPlace, .differentPostcode: 10
        case .houseNumberSuffix, .missingLocality, .localityUnknownToEntry: 5
        case .streetNotFound: 30
        case .differentLocality: 20
        }
    }
}
