import Foundation

/// One answer of a match: what was found, how well, and where.
public struct GeocodeCandidate: Hashable, Sendable, Codable {
    public var entryId: String
    public var entryKind: LocatorEntry.Kind
    public var addressType: AddressType
    /// 0…100: 100 less the penalties' points.
    public var score: Double
    /// ArcGIS's `address`/`Match_addr`, e.g. "12B Hill Street, Springfield, 90210".
    public var matchAddress: String
    /// In the index's projected reference (its wkid), as every coordinate here.
    public var location: PlanarPoint
    /// The house number of a PointAddress or StreetAddress.
    public var houseNumber: HouseNumber?
    /// A StreetAddress's side of the street.
    public var side: StreetSide?
    /// Why the score is below 100, in the order they were found.
    public var penalties: [MatchPenalty]
    /// The entry's display components, so a service can fill ArcGIS's attributes without
    /// looking the entry up again.
    public var display: LocatorEntry.Display

    public init(
        entryId: String, entryKind: LocatorEntry.Kind, addressType: AddressType, score: Double, matchAddress: String, location: PlanarPoint,
        houseNumber: HouseNumber? = nil, side: StreetSide? = nil, penalties: [MatchPenalty] = [], display: LocatorEntry.Display = .init()
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
        self.display = display
    }

    /// ArcGIS's candidate attributes by their names (`outFields`): `Match_addr`, `Addr_type`,
    /// `AddNum`, `StName`, `City`, `Postal`, `Side` ("L"/"R"), `Score`. Empty text for what the
    /// candidate has not, as ArcGIS answers.
    public var attributes: [String: String] {
        let side: String =
            switch self.side {
            case .left: "L"
            case .right: "R"
            case nil: ""
            }
        return [
            "Match_addr": matchAddress, "Addr_type": addressType.rawValue, "AddNum": houseNumber?.description ?? "",
            "StName": display.street, "City": display.locality, "Postal": display.postcode, "Side": side,
            "Score": String(format: "%.2f", score),
        ]
    }
}
