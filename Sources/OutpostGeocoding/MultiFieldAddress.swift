/// ArcGIS's multi-field parameters of `findAddressCandidates` and `geocodeAddresses`.
public struct MultiFieldAddress: Hashable, Sendable, Codable {
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
    /// taken as what its name says. Each field is cut to the single line's bytes and
    /// characters, and the fields share ONE budget of `QueryBounds.maximumTokens` words, spent
    /// in the order Address, City, Postal, Region, Address2: five fields must not cost five
    /// times what one line may.
    public var parsed: ParsedAddress {
        var budget = QueryBounds.maximumTokens
        func take(_ words: [String]) -> [String] {
            let taken = Array(words.prefix(max(0, budget)))
            budget -= taken.count
            return taken
        }
        let line = QueryBounds.bounded(address ?? "")
        var parsed = ParsedAddress()
        if let (number, rest) = HouseNumber.leading(in: line[...]) {
            parsed.houseNumber = number
            budget -= 1
            parsed.street = AddressNormalizer.canonical(take(AddressNormalizer.words(rest)))
        } else {
            parsed.street = AddressNormalizer.canonical(take(AddressNormalizer.words(line)))
        }
        parsed.locality = AddressNormalizer.canonical(take(AddressNormalizer.words(QueryBounds.bounded(city ?? ""))))
        let postcode = take(AddressNormalizer.words(QueryBounds.bounded(postal ?? "")))
        parsed.postcode = postcode.isEmpty ? nil : Postcode.canonical(postcode.joined(separator: " "))
        parsed.region = AddressNormalizer.canonical(take(AddressNormalizer.words(QueryBounds.bounded(region ?? ""))))
        parsed.subAddress = AddressNormalizer.canonical(take(AddressNormalizer.words(QueryBounds.bounded(address2 ?? ""))))
        return parsed
    }
}
