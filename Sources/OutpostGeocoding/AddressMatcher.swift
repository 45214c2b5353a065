/// The match of a parsed query against index entries (docs/geocoding.md, "Score" and
/// "Address types"): which entries are candidates, as what address type, with what score.
/// The index's text search only gathers entries worth asking about (`SearchTerms`); this
/// decides.
public enum AddressMatcher {
    /// The most entries one match, suggest or reverse geocode reads: the first this many
    /// given, the rest ignored. Ordering them (best first: the AND pass's, then the loose
    /// passes') is the index's job; this bounds the work of any one request.
    public static let maximumEntries = 1_000

    public struct Options: Hashable, Sendable {
        /// The most `interpolationOffset` a candidate is moved: an offset is a few metres or
        /// feet; anything far larger is a mistake, and an unbounded one would leave the map.
        public static let maximumInterpolationOffset = 1_000.0

        /// How far off a centre-line (in its units) an interpolated address is placed: always
        /// finite and 0…`maximumInterpolationOffset` (NaN and negatives read as 0).
        public var interpolationOffset: Double {
            get { offset }
            set { offset = newValue.isNaN ? 0 : min(max(newValue, 0), Self.maximumInterpolationOffset) }
        }
        private var offset = 0.0

        public init(interpolationOffset: Double = 0) {
            self.interpolationOffset = interpolationOffset
        }
    }

    /// The entry's score for the query as its best candidate would have it, 0 when it is none.
    public static func score(_ query: ParsedAddress, _ entry: LocatorEntry) -> Double {
        match(query, entry)?.score ?? 0
    }

    /// The entry as a candidate for the query, or nil when it is none: a street or place with
    /// no distinctive token in common, a point address with another house number, a locality
    /// or postcode the query does not name, or a score of 0.
    public static func match(_ query: ParsedAddress, _ entry: LocatorEntry, options: Options = Options()) -> GeocodeCandidate? {
        guard var candidate = streetPart(query, entry, options: options) else { return nil }
        candidate.penalties += areaPenalties(query, entry)
        candidate.score = max(0, 100 - candidate.penalties.reduce(0) { $0 + $1.points })
        candidate.matchAddress = matchAddress(candidate.addressType, entry, houseNumber: candidate.houseNumber)
        return candidate.score > 0 ? candidate : nil
    }

    /// Every entry's candidate, ranked (`CandidateRanking.rank`).
    public static func findCandidates(
        _ query: ParsedAddress, among entries: [LocatorEntry], options: Options = Options(), maxLocations: Int = 20, minScore: Double = 0,
        near bias: LocationBias? = nil, within extent: SearchExtent? = nil
    ) -> [GeocodeCandidate] {
        let candidates = entries.prefix(maximumEntries).compactMap { match(query, $0, options: options) }
        return CandidateRanking.rank(candidates, maxLocations: maxLocations, minScore: minScore, near: bias, within: extent)
    }

    /// `findAddressCandidates` with a suggestion's `magicKey`: only the entry the key names is
    /// matched, with the suggestion's text as the query, so a centre-line's suggestion
    /// ("99 Hill Street, Springfield") keeps its house number (a StreetAddress), as ArcGIS does.
    public static func findCandidates(
        _ query: ParsedAddress, restrictedTo key: MagicKey, among entries: [LocatorEntry], options: Options = Options(), maxLocations: Int = 20,
        minScore: Double = 0
    ) -> [GeocodeCandidate] {
        let named = entries.prefix(maximumEntries).filter { $0.id == key.entryId && $0.kind == key.kind }
        return findCandidates(query, among: named, options: options, maxLocations: maxLocations, minScore: minScore)
    }

    /// The candidate's type, location and number from the street (or place) part of the query;
    /// penalties of the locality and postcode come after.
    private static func streetPart(_ query: ParsedAddress, _ entry: LocatorEntry, options: Options) -> GeocodeCandidate? {
        var candidate = GeocodeCandidate(
            entryId: entry.id, entryKind: entry.kind, addressType: .streetName, score: 0, matchAddress: "", location: entry.location,
            display: entry.display)
        switch entry.kind {
        case .pointAddress, .streetCenterline:
            let alignment = TokenAlignment(query: query.street, entry: entry.street)
            guard alignment.distinctiveMatches > 0 else { return nil }
            candidate.penalties = alignment.penalties
            guard let number = query.houseNumber else { return candidate }
            if entry.kind == .pointAddress {
                guard let own = entry.houseNumber, own.number == number.number else { return nil }
                candidate.addressType = .pointAddress
                candidate.houseNumber = own
                if own.suffix != number.suffix { candidate.penalties.append(.houseNumberSuffix) }
            } else if let ranges = entry.ranges,
                let placement = CenterlineInterpolation.place(
                    number.number, ranges: ranges, polyline: entry.polyline, offset: options.interpolationOffset)
            {
                candidate.addressType = .streetAddress
                candidate.houseNumber = number
                candidate.side = placement.side
                candidate.location = placement.location
            } else {
                candidate.penalties.append(.houseNumberNotFound)
            }
        case .place:
            let alignment = TokenAlignment(query: query.street, entry: entry.placeName)
            guard alignment.distinctiveMatches > 0 else { return nil }
            candidate.addressType = .poi
            candidate.penalties = alignment.penalties + (query.houseNumber == nil ? [] : [.houseNumberOnPlace])
        case .locality:
            // A locality alone, or (without a known locality) a lone name taken as the street.
            let streetAsLocality = query.locality.isEmpty && query.houseNumber == nil
            let named = streetAsLocality ? query.street : query.locality
            guard !named.isEmpty, TokenAlignment(query: named, entry: entry.locality).isComplete else { return nil }
            candidate.addressType = .locality
            if !streetAsLocality, !query.street.isEmpty { candidate.penalties.append(.streetNotFound) }
        case .postal:
            guard let postcode = query.postcode, postcode == entry.postcode else { return nil }
            candidate.addressType = .postal
            if !query.street.isEmpty { candidate.penalties.append(.streetNotFound) }
        }
        return candidate
    }

    /// The locality and postcode compared: a locality entry has matched its own already.
    private static func areaPenalties(_ query: ParsedAddress, _ entry: LocatorEntry) -> [MatchPenalty] {
        var penalties: [MatchPenalty] = []
        if let postcode = query.postcode, let own = entry.postcode, postcode != own, entry.kind != .postal {
            penalties.append(.differentPostcode)
        }
        guard entry.kind != .locality else { return penalties }
        if query.locality.isEmpty {
            let placedByPostcode = query.postcode != nil && query.postcode == entry.postcode
            if !placedByPostcode, entry.kind != .postal { penalties.append(.missingLocality) }
        } else if entry.locality.isEmpty {
            penalties.append(.localityUnknownToEntry)
        } else {
            let alignment = TokenAlignment(query: query.locality, entry: entry.locality)
            penalties += alignment.isComplete ? alignment.penalties : [.differentLocality]
        }
        return penalties
    }

    /// ArcGIS's `Match_addr` in its display form: "12B Hill Street, Springfield, 90210"; a
    /// place as "Name, Locality"; a postcode as "90210, Springfield".
    public static func matchAddress(_ type: AddressType, _ entry: LocatorEntry, houseNumber: HouseNumber?) -> String {
        let display = entry.display
        let parts: [String]
        switch type {
        case .pointAddress, .streetAddress:
            parts = [[houseNumber?.description, display.street].compactMap { $0 }.joined(separator: " "), display.locality, display.postcode]
        case .streetName: parts = [display.street, display.locality, display.postcode]
        case .poi: parts = [display.placeName, display.locality]
        case .locality: parts = [display.locality]
        case .postal: parts = [display.postcode, display.locality]
        }
        return parts.filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
