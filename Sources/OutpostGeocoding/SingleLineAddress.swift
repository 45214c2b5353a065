/// ArcGIS's `SingleLine` (and `suggest`'s `text`) read into a `ParsedAddress`
/// (docs/geocoding.md, "Parsing"). Commas (or semicolons, or line breaks) are hints: the first
/// part is the street line, the second the locality, the rest a region. Without them the
/// locality is the longest run of final words that names a known locality.
///
/// Bounds come first: at most `QueryBounds.maximumUTF8Bytes` bytes, then
/// `QueryBounds.maximumCharacters` characters, and `QueryBounds.maximumTokens` words of the
/// text are read.
public enum SingleLineAddress {
    /// - Parameter typing: the text is being typed (`suggest`): its last word, unless a space, a
    ///   comma, a semicolon, a full stop or a hyphen follows it, becomes `prefix` instead of a
    ///   whole token.
    public static func parse(_ text: String, knownLocalities: KnownLocalities = .none, typing: Bool = false) -> ParsedAddress {
        let bounded = QueryBounds.bounded(text)
        let segments = bounded.split(whereSeparator: { $0 == "," || $0 == ";" || $0.isNewline }).filter {
            !AddressNormalizer.words($0).isEmpty
        }
        guard let first = segments.first else { return ParsedAddress() }
        var parsed = ParsedAddress()
        var parts: [[String]] = []
        if let (code, rest) = leadingPostcode(segments, known: knownLocalities) {
            // No street: the postcode, then the locality's part and the region's.
            parsed.postcode = code
            parts = [[]] + rest
        } else {
            if let (number, rest) = HouseNumber.leading(in: first), segments.count > 1 || !AddressNormalizer.words(rest).isEmpty {
                parsed.houseNumber = number
                parts.append(AddressNormalizer.words(rest))
            } else {
                parts.append(AddressNormalizer.words(first))
            }
            parts += segments.dropFirst().map { AddressNormalizer.words($0) }
            // "12, Hill St": the number stood alone; the street is the next part.
            if parts[0].isEmpty { parts.removeFirst() }
        }
        let spent = (parsed.houseNumber == nil ? 0 : 1) + (parsed.postcode == nil ? 0 : 1)
        parts = bound(parts, budget: QueryBounds.maximumTokens - spent)
        // A space, comma, semicolon, full stop or hyphen after the last word ends it ("12 Hill St.").
        if typing, let last = bounded.last, !last.isWhitespace, !",;.-".contains(last) {
            parsed.prefix = parts[parts.count - 1].popLast()
        }
        split(parts, into: &parsed, knownLocalities: knownLocalities)
        return parsed
    }

    /// Street, locality, postcode and region from the parts' words.
    private static func split(_ parts: [[String]], into parsed: inout ParsedAddress, knownLocalities: KnownLocalities) {
        var street = parts[0]
        // "12 Hill St 90210" is a postcode; "Route 1234" and "County Road 1450, Springfield" are roads.
        let typedNumberIsPostcode = parsed.houseNumber != nil && parts.count == 1
        var locality: [String] = []
        var rest = Array(parts.dropFirst())
        if var last = rest.popLast() {
            // "…, Springfield 90210" or "…, 10115 Berlin" (unless a leading postcode was taken).
            if parsed.postcode == nil, let (code, count) = Postcode.trailing(in: last) {
                parsed.postcode = code
                last.removeLast(count)
            } else if parsed.postcode == nil, let (code, count) = Postcode.leading(in: last) {
                parsed.postcode = code
                last.removeFirst(count)
            }
            rest.append(last)
            rest.removeAll(where: \.isEmpty)
            locality = rest.first ?? []
            parsed.region = AddressNormalizer.canonical(rest.dropFirst().flatMap { $0 })
        }
        if parsed.postcode == nil, let (code, count) = Postcode.trailing(inStreet: street, afterStreetType: typedNumberIsPostcode),
            count < street.count || parsed.houseNumber == nil
        {
            parsed.postcode = code
            street.removeLast(count)
        }
        if locality.isEmpty {
            locality = trailingLocality(of: &street, known: knownLocalities, keepOne: parsed.houseNumber != nil)
            // "Rue de l'Église 75001 Paris": the postcode before the locality.
            if !locality.isEmpty, parsed.postcode == nil,
                let (code, count) = Postcode.trailing(inStreet: street, afterStreetType: typedNumberIsPostcode), count < street.count
            {
                parsed.postcode = code
                street.removeLast(count)
            }
        }
        parsed.street = AddressNormalizer.canonical(street)
        parsed.locality = AddressNormalizer.canonical(locality)
    }

    /// "10115 Berlin", "75002, Paris": a leading 4–6-digit number followed by exactly a known
    /// locality, or standing alone before a part that does not look like a street (no house
    /// number, no street type), is a postcode. Returns it and the parts after it.
    private static func leadingPostcode(_ segments: [Substring], known: KnownLocalities) -> (String, [[String]])? {
        var first = AddressNormalizer.words(segments[0])
        guard let code = first.first, Postcode.isNumeric(code) else { return nil }
        first.removeFirst()
        var later = segments.dropFirst().map { AddressNormalizer.words($0) }
        if !first.isEmpty {
            guard known.contains(AddressNormalizer.canonical(first)) else { return nil }
        } else {
            guard let next = later.first, !next.isEmpty, HouseNumber(next[0]) == nil, !next.contains(where: AddressNormalizer.isStreetType)
            else { return nil }
            first = later.removeFirst()
        }
        return (code, [first] + later)
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
