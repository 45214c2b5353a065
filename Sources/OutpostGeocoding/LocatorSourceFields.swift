/// A source feature's field values, as the layer holds them, before any normalising.
public struct LocatorSourceFields: Hashable, Sendable, Codable {
    public var houseNumber: String?
    public var street: String?
    public var locality: String?
    public var postcode: String?
    /// A whole address in one field, read as a single line when `street` is not given.
    public var fullAddress: String?
    public var placeName: String?
    public var ranges: HouseNumberRanges?

    public init(
        houseNumber: String? = nil, street: String? = nil, locality: String? = nil, postcode: String? = nil, fullAddress: String? = nil,
        placeName: String? = nil, ranges: HouseNumberRanges? = nil
    ) {
        self.houseNumber = houseNumber
        self.street = street
        self.locality = locality
        self.postcode = postcode
        self.fullAddress = fullAddress
        self.placeName = placeName
        self.ranges = ranges
    }
}
