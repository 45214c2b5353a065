/// What a candidate is, named exactly as ArcGIS's `Addr_type` names it.
public enum AddressType: String, Hashable, Sendable, CaseIterable, Codable {
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

    /// 0 for the type that goes first among candidates of equal score (docs/geocoding.md,
    /// "Ranking"). Spelt out rather than taken from the declaration order, so reordering the
    /// cases cannot silently change answers.
    public var rankOrder: Int {
        switch self {
        case .pointAddress: 0
        case .streetAddress: 1
        case .poi: 2
        case .streetName: 3
        case .postal: 4
        case .locality: 5
        }
    }
}
