/// A query as the matcher reads it: each component as canonical tokens. A single line
/// (`SingleLineAddress.parse`) and ArcGIS's multi-field form (`MultiFieldAddress.parsed`) both
/// end here, so they match alike.
public struct ParsedAddress: Hashable, Sendable, Codable {
    public var houseNumber: HouseNumber?
    public var street: [String]
    public var locality: [String]
    /// Canonical: lower case, no space ("90210", "sw1a1aa").
    public var postcode: String?
    /// A state or province: kept, never scored (entries do not carry one).
    public var region: [String]
    /// A unit or suite (ArcGIS's `Address2`): kept, never scored.
    public var subAddress: [String]
    /// Suggest's word being typed (folded, not expanded): the last word when the text does not
    /// end in a space or a comma. It is not also in `street` or `locality`.
    public var prefix: String?

    public init(
        houseNumber: HouseNumber? = nil, street: [String] = [], locality: [String] = [], postcode: String? = nil,
        region: [String] = [], subAddress: [String] = [], prefix: String? = nil
    ) {
        self.houseNumber = houseNumber
        self.street = street
        self.locality = locality
        self.postcode = postcode
        self.region = region
        self.subAddress = subAddress
        self.prefix = prefix
    }

    /// Nothing to look for.
    public var isEmpty: Bool { houseNumber == nil && street.isEmpty && locality.isEmpty && postcode == nil && prefix == nil }
}
