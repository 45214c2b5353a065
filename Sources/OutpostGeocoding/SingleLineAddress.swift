/// ArcGIS's `SingleLine` (and `suggest`'s `text`) read into a `ParsedAddress`
/// (docs/geocoding.md, "Parsing"). Commas (or semicolons, or line breaks) are hints: the first
/// part is the street line, the second the locality, the rest a region. Without them the
/// locality is the longest run of final words that names a known locality.
///
/// Bounds come first: at most `QueryBounds.maximumCharacters` characters and
/// `QueryBounds.maximumTokens` words of the text are read.
public enum SingleLineAddress {
    /// - Parameter typing: the text is being typed (`suggest`): its last word, unless a space or
    ///   a comma follows it, becomes `prefix` instead of a whole token.
    public static func parse(_ text: String, knownLocalities: KnownLocalities = .none, typing: Bool = false) -> ParsedAddress {
        let bounded = QueryBounds.bounded(text)
        let segments = bounded.split(whereSeparator: { $0 == "," || $0 == ";" || $0.isNewline }).filter {
            !AddressNormalizer.words($0).isEmpty
        }
        guard let first = segments.first else { return ParsedAddress() }
        var parsed = ParsedAddress()
        var parts: [[String]] = []
        if let (number, rest) = HouseNumber.leading(in: first), segments.count > 1 || !AddressNormalizer.words(rest).isEmpty {
            parsed.houseNumber = number
            parts.append(AddressNormalizer.words(rest))
        } else {
            parts.append(AddressNormalizer.words(first))
        }
        parts += segments.dropFirst().map { AddressNormalizer.words($0) }
        // "12, Hill St": the number stood alone; the street is the next part.
        if parts[0].isEmpty { parts.removeFirst() }
        parts = bound(parts, budget: QueryBounds.maximumTokens - (parsed.houseNumber == nil ? 0 : 1))
        if typing, let last = bounded.last, !last.isWhitespace, last != ",", last != ";" {
            parsed.prefix = parts[parts.count - 1].popLast()
        }
        split(parts, into: &parsed, knownLocalities: knownLocalities)
        return parsed
    }

    /// Street, locality, postcode and region from the parts' words.
    private static func split(_ parts: [[String]], into parsed: inout ParsedAddress, knownLocalities: KnownLocalities) {
        var street = parts[0]
        var locality: [String] = []
        var rest = Array(parts.dropFirst())
        if var last = rest.popLast() {
            // "…, Springfield 90210" or "…, 10115 Berlin".
            if let (code, count) = Postcode.trailing(in: last) {
                parsed.postcode = code
                last.removeLast(count)
            } else if let (code, count) = Postcode.leading(in: last) {
                parsed.postcode = code
                last.removeFirst(count)
            }
            rest.append(last)
            rest.removeAll(where: \.isEmpty)
            locality = rest.first ?? []
            parsed.region = AddressNormalizer.canonical(rest.dropFirst().flatMap { $0 })
        }
        if parsed.postcode == nil, let (code, count) = Postcode.trailing(in: street), count < street.count || parsed.houseNumber == nil {
            parsed.postcode = code
            street.removeLast(count)
        }
        if locality.isEmpty {
            locality = trailingLocality(of: &street, known: knownLocalities, keepOne: parsed.houseNumber != nil)
            // "Rue de l'Église 75001 Paris": the postcode before the locality.
            if !locality.isEmpty, parsed.postcode == nil, let (code, count) = Postcode.trailing(in: street), count < street.count {
                parsed.postcode = code
                street.removeLast(count)
            }
        }
        parsed.street = AddressNormalizer.canonical(street)
        parsed.locality = AddressNormalizer.canonical(locality)
    }

    /// The longest run of final words that is a known locality, taken off `words`; at least
    /// one word stays when `keepOne` (a house number needs a street).
    private static func trailingLocality(of words: inout [String], known: KnownLocalities, keepOne: Bool) -> [String] {
        let most = min(known.longest, words.count - (keepOne ? 1 : 0))
        guard most > 0 else { return [] }
        for count in stride(from: most, through: 1, by: -1) {
            let suffix = Array(words.suffix(count))
            if known.contains(AddressNormalizer.canonical(suffix)) {
                words.removeLast(count)
                return suffix
            }
        }
        return []
    }

    /// The parts cut to `budget` words in all, in order.
    private static func bound(_ parts: [[String]], budget: Int) -> [[String]] {
        var left = budget
        return parts.map { part in
            let taken = Array(part.prefix(max(0, left)))
            left -= taken.count
            return taken
        }
    }
}

extension Postcode {
    /// The postcode a list of folded words starts with ("10115 Berlin") and how many words it took.
    static func leading(in words: [String]) -> (postcode: String, wordCount: Int)? {
        if words.count >= 2, let found = trailing(in: Array(words.prefix(2))), found.wordCount == 2 { return found }
        guard let first = words.first, let found = trailing(in: [first]) else { return nil }
        return found
    }
}
