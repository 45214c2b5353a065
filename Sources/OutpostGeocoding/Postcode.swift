/// Postcodes recognised in free text (docs/geocoding.md, "Parsing"). A postcode is held as one
/// canonical token (lower case, no space: "90210", "sw1a1aa") and compared exactly.
///
/// Recognised shapes: 4–6 digits (most of the world; "90210-1234" is "90210", ZIP+4 dropped),
/// the UK's outward and inward codes ("SW1A 1AA", "M1 1AE") and Canada's ("K1A 0B6"), each
/// as two words.
///
/// Known limits (heuristics): a UK inward code that reads as an ordinal ("1ST", "3RD") is not
/// taken, so "N1 3RD" is two words of a street; a 4–6-digit number right after a street type
/// stays in the street ("Route 1234") unless a house number leads a line without commas
/// ("12 Hill St 90210"), so "Hill St 90210" keeps 90210 in the street (`SingleLineAddress`).
public enum Postcode {
    /// The postcode at the end of a list of folded words and how many words it took, or nil.
    static func trailing(in words: [String]) -> (postcode: String, wordCount: Int)? {
        guard let last = words.last else { return nil }
        if words.count >= 2 {
            let outward = words[words.count - 2]
            if isUKOutward(outward) && isUKInward(last) || isCanadianHalf(outward, letterFirst: true) && isCanadianHalf(last, letterFirst: false) {
                return (outward + last, 2)
            }
            if isDigits(outward, count: 5), isDigits(last, count: 4) { return (outward, 2) }
        }
        return isDigits(last, count: 4...6) ? (last, 1) : nil
    }

    /// A field known to hold a postcode (ArcGIS's `Postal`), as its canonical token.
    public static func canonical(_ text: some StringProtocol) -> String? {
        let words = AddressNormalizer.words(text)
        guard !words.isEmpty else { return nil }
        if let (code, count) = trailing(in: words), count == words.count { return code }
        return words.joined()
    }

    private static func isDigits(_ word: String, count: some RangeExpression<Int>) -> Bool {
        count.contains(word.count) && word.allSatisfy(\.isASCIIDigit)
    }

    private static func isDigits(_ word: String, count: Int) -> Bool { isDigits(word, count: count...count) }

    /// A1, A11, AA1, AA11, A1A, AA1A.
    private static func isUKOutward(_ word: String) -> Bool {
        let chars = Array(word)
        guard (2...4).contains(chars.count), chars[0].isASCIILetter else { return false }
        let letters = chars.prefix(while: \.isASCIILetter).count
        guard letters <= 2, letters < chars.count, chars[letters].isASCIIDigit else { return false }
        return chars.dropFirst(letters + 1).enumerated().allSatisfy { offset, char in
            offset == 0 ? char.isASCIIDigit || char.isASCIILetter : false
        }
    }

    /// 1AA, the letters from the UK's inward alphabet (no C, I, K, M, O, V); never an ordinal
    /// ending ("3rd", "1st"), which a street's words are far more often than a postcode.
    private static func isUKInward(_ word: String) -> Bool {
        let chars = Array(word)
        guard chars.count == 3, chars[0].isASCIIDigit, !["st", "nd", "rd", "th"].contains(String(chars[1...])) else { return false }
        return chars.dropFirst().allSatisfy { inwardLetters.contains($0) }
    }

    private static let inwardLetters = Set("abdefghjlnpqrstuwxyz")

    /// A canonical postcode as an answer shows it: a UK or Canadian code upper case with its
    /// space back before the last three characters ("al13ab" → "AL1 3AB"); digits as they are.
    public static func displayForm(_ canonical: String) -> String {
        let upper = canonical.uppercased()
        let inward = String(canonical.suffix(3))
        guard canonical.count >= 5, isUKInward(inward) || isCanadianHalf(inward, letterFirst: false) else { return upper }
        return upper.dropLast(3) + " " + upper.suffix(3)
    }

    /// 4–6 ASCII digits: the shape most of the world's postcodes have.
    static func isNumeric(_ word: String) -> Bool { isDigits(word, count: 4...6) }

    /// A1A (the first half) or 1A1 (the second).
    private static func isCanadianHalf(_ word: String, letterFirst: Bool) -> Bool {
        let chars = Array(word)
        guard chars.count == 3 else { return false }
        return chars.enumerated().allSatisfy { index, char in (index % 2 == 0) == letterFirst ? char.isASCIILetter : char.isASCIIDigit }
    }
}

extension Postcode {
    /// The postcode a list of folded words starts with ("10115 Berlin") and how many words it took.
    static func leading(in words: [String]) -> (postcode: String, wordCount: Int)? {
        if words.count >= 2, let found = trailing(in: Array(words.prefix(2))), found.wordCount == 2 { return found }
        guard let first = words.first, let found = trailing(in: [first]) else { return nil }
        return found
    }

    /// The postcode at the end of a street line's words. A lone number right after a street
    /// type is one only when `afterStreetType` (the line has a house number and no comma:
    /// "12 Hill St 90210"); else it names the road: "Route 1234", "County Road 1450, Springfield".
    static func trailing(inStreet words: [String], afterStreetType: Bool) -> (postcode: String, wordCount: Int)? {
        guard let found = trailing(in: words) else { return nil }
        if !afterStreetType, found.wordCount == 1, words.count >= 2, isNumeric(found.postcode),
            AddressNormalizer.isStreetType(words[words.count - 2])
        {
            return nil
        }
        return found
    }
}
