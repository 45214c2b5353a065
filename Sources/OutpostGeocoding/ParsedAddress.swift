/// A query as the matcher reads it: each component as canonical tokens. A single line
/// (`SingleLineAddress.parse`) and ArcGIS's multi-field form (`MultiFieldAddress.parsed`) both
/// end here, so they match alike.
public struct ParsedAddress: Hashable, Sendable {
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

/// ArcGIS's multi-field parameters of `findAddressCandidates` and `geocodeAddresses`.
public struct MultiFieldAddress: Hashable, Sendable {
    public var address: String?
    public var address2: String?
    public var city: String?
    public var postal: String?
    public var region: String?

    public init(address: String? = nil, address2: String? = nil, city: String? = nil, postal: String? = nil, region: String? = nil) {
        self.address = address
        self.address2 = address2
        self.city = city
        self.postal = postal
        self.region = region
    }

    /// `Address` is read as a street line (house number, then the street); each other field is
    /// taken as what its name says, with the same bounds as a single line.
    public var parsed: ParsedAddress {
        let line = QueryBounds.bounded(address ?? "")
        var parsed = ParsedAddress()
        if let (number, rest) = HouseNumber.leading(in: line[...]) {
            parsed.houseNumber = number
            parsed.street = AddressNormalizer.canonical(QueryBounds.words(rest))
        } else {
            parsed.street = AddressNormalizer.canonical(QueryBounds.words(line))
        }
        parsed.subAddress = AddressNormalizer.canonical(QueryBounds.words(QueryBounds.bounded(address2 ?? "")))
        parsed.locality = AddressNormalizer.canonical(QueryBounds.words(QueryBounds.bounded(city ?? "")))
        parsed.postcode = postal.flatMap { Postcode.canonical(QueryBounds.bounded($0)) }
        parsed.region = AddressNormalizer.canonical(QueryBounds.words(QueryBounds.bounded(region ?? "")))
        return parsed
    }
}

/// What a query may cost: at most `maximumCharacters` characters of any text and
/// `maximumTokens` words are read; the rest is ignored, not refused.
public enum QueryBounds {
    public static let maximumCharacters = 200
    public static let maximumTokens = 20

    static func bounded(_ text: String) -> String { String(text.prefix(maximumCharacters)) }

    static func words(_ text: some StringProtocol) -> [String] {
        Array(AddressNormalizer.words(text).prefix(maximumTokens))
    }
}
