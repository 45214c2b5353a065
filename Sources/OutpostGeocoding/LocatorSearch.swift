/// The four questions a locator answers, over any `LocatorIndex` (docs/geocoding.md,
/// "Service" and "Offline"): a `GeocodeServer` asks them of the store, the client library's
/// `LocatorTask` of a locator file, so both answer alike by construction.
public struct LocatorSearch<Index: LocatorIndex> {
    /// What `reverseGeocode` found, with its entry's display components.
    public struct ReverseAnswer: Sendable {
        public var found: ReverseGeocoder.Result
        public var display: LocatorEntry.Display

        /// ArcGIS's `address` of a `reverseGeocode` answer, in its order.
        public func attributes(locatorName: String) -> [(name: String, value: String)] {
            let street = [found.houseNumber?.description, display.street].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            let side: String = found.side.map { $0 == .left ? "L" : "R" } ?? ""
            return [
                ("Match_addr", found.matchAddress), ("LongLabel", found.matchAddress), ("ShortLabel", street),
                ("Addr_type", found.addressType.rawValue), ("AddNum", found.houseNumber?.description ?? ""), ("Address", street),
                ("StName", display.street), ("City", display.locality), ("Postal", display.postcode), ("Side", side), ("Loc_name", locatorName),
            ]
        }
    }

    public let index: Index

    public init(index: Index) { self.index = index }

    /// An address as asked: one line, or its parts (a multi-field request).
    public func parse(singleLine: String?, fields: MultiFieldAddress?) -> ParsedAddress {
        if let singleLine { return SingleLineAddress.parse(singleLine, knownLocalities: index.knownLocalities) }
        return fields?.parsed ?? ParsedAddress()
    }

    /// `findAddressCandidates`: the query matched against the entries gathered for it (at most
    /// `entries`), ranked.
    public func findCandidates(
        _ query: ParsedAddress, maxLocations: Int, preferences: GeocodePreferences = .init(), entries limit: Int = AddressMatcher.maximumEntries
    ) throws -> [GeocodeCandidate] {
        let entries = try index.gatherEntries(terms: SearchTerms(query), limit: limit)
        return AddressMatcher.findCandidates(
            query, among: entries, maxLocations: maxLocations, minScore: preferences.minScore, near: preferences.bias, within: preferences.extent)
    }

    /// `findAddressCandidates` with a suggestion's `magicKey`: only the entry it names.
    public func findCandidates(_ query: ParsedAddress, key: MagicKey, maxLocations: Int, minScore: Double = 0) throws -> [GeocodeCandidate] {
        let entry = try index.entry(kind: key.kind, id: key.entryId)
        return AddressMatcher.findCandidates(
            query, restrictedTo: key, among: entry.map { [$0] } ?? [], maxLocations: maxLocations, minScore: minScore)
    }

    /// `suggest`: completions of a text being typed.
    public func suggest(_ text: String, maxSuggestions: Int, preferences: GeocodePreferences = .init()) throws -> [Suggestion] {
        let query = SingleLineAddress.parse(text, knownLocalities: index.knownLocalities, typing: true)
        let entries = try index.gatherEntries(terms: SearchTerms(query), limit: AddressMatcher.maximumEntries)
        return AddressMatcher.suggest(
            query, among: entries, maxSuggestions: maxSuggestions, minScore: preferences.minScore, near: preferences.bias,
            within: preferences.extent)
    }

    /// `reverseGeocode`: the address nearest `point` within `metres`; nil when nothing is.
    public func reverseGeocode(_ point: PlanarPoint, metres: Double) throws -> ReverseAnswer? {
        let units = metres * WebMercator.unitsPerMetre(at: point)
        guard let box = LocatorBox(around: point, radius: units) else { return nil }
        let entries = try index.entries(in: box, limit: AddressMatcher.maximumEntries)
        guard let found = ReverseGeocoder.reverseGeocode(point, among: entries, maxDistance: units) else { return nil }
        let entry = entries.first { $0.id == found.entryId && $0.kind == found.entryKind }
        return ReverseAnswer(found: found, display: entry?.display ?? LocatorEntry.Display())
    }
}

/// What narrows and orders the answers (the request's `minScore`, `location`/`distance`
/// and `searchExtent`).
public struct GeocodePreferences: Sendable {
    public var minScore: Double
    public var bias: LocationBias?
    public var extent: SearchExtent?

    public init(minScore: Double = 0, bias: LocationBias? = nil, extent: SearchExtent? = nil) {
        self.minScore = minScore
        self.bias = bias
        self.extent = extent
    }
}
