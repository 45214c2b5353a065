extension AddressMatcher {
    /// ArcGIS's most `maxSuggestions`.
    public static let maximumSuggestions = 15

    /// Suggestions for a text being typed (parsed with `typing: true`): the word being typed
    /// completes to an entry's token that starts with it (or is its expansion: "rd" → "road"),
    /// taken as part of the street (or place name), else of the locality, else as the house
    /// number or postcode; the completed query is matched like `findCandidates`'s, and ranked.
    public static func suggest(
        _ query: ParsedAddress, among entries: [LocatorEntry], options: Options = Options(), maxSuggestions: Int = 5, minScore: Double = 0,
        near bias: LocationBias? = nil, within extent: SearchExtent? = nil
    ) -> [Suggestion] {
        let candidates = entries.prefix(maximumEntries).compactMap { entry in
            completions(of: query, by: entry).compactMap { match($0, entry, options: options) }.max { $0.score < $1.score }
        }
        let limit = min(maxSuggestions, maximumSuggestions)
        return CandidateRanking.rank(candidates, maxLocations: limit, minScore: minScore, near: bias, within: extent).map {
            Suggestion(text: $0.matchAddress, magicKey: MagicKey(entryId: $0.entryId, kind: $0.entryKind).encoded)
        }
    }

    /// The query with its prefix made whole by the entry's tokens, each way it can be.
    static func completions(of query: ParsedAddress, by entry: LocatorEntry) -> [ParsedAddress] {
        guard let prefix = query.prefix else { return [query] }
        var base = query
        base.prefix = nil
        // As a last word: "st" is street, "rd" road.
        let expanded = AddressNormalizer.canonicalWord(prefix, at: 1, in: ["", prefix])
        func completing(_ tokens: [String], _ used: [String]) -> String? {
            tokens.first { token in !used.contains(token) && (token.hasPrefix(prefix) || token == expanded) }
        }
        var found: [ParsedAddress] = []
        if base.locality.isEmpty, let token = completing(entry.kind == .place ? entry.placeName : entry.street, base.street) {
            var completed = base
            completed.street.append(token)
            found.append(completed)
        }
        if let token = completing(entry.locality, base.locality) {
            var completed = base
            if base.locality.isEmpty, entry.kind == .locality, base.houseNumber == nil {
                completed.street.append(token)
            } else {
                completed.locality.append(token)
            }
            found.append(completed)
        }
        if base.houseNumber == nil, base.street.isEmpty, let number = entry.houseNumber, number.token.hasPrefix(prefix) {
            var completed = base
            completed.houseNumber = number
            found.append(completed)
        }
        if base.postcode == nil, let postcode = entry.postcode, postcode.hasPrefix(prefix) {
            var completed = base
            completed.postcode = postcode
            found.append(completed)
        }
        return found
    }
}
