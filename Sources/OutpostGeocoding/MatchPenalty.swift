/// A reason a candidate scores below 100, with its points (docs/geocoding.md, "Score").
public enum MatchPenalty: Hashable, Sendable, Codable {
    /// A query token met an entry token within the allowed edits: 5 points an edit.
    case fuzzyToken(edits: Int)
    /// An entry token the query did not give: 15 points, 4 for a street type, direction or particle.
    case missingToken(generic: Bool)
    /// A query token the entry does not have: 8 points.
    case extraToken
    /// Tokens paired out of the entry's order ("Hill Park" asked, Park Hill found): 1 point.
    case tokenOrder
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
        case .tokenOrder: 1
        case .houseNumberNotFound, .houseNumberOnPlace, .differentPostcode: 10
        case .houseNumberSuffix, .missingLocality, .localityUnknownToEntry: 5
        case .streetNotFound: 30
        case .differentLocality: 20
        }
    }
}
