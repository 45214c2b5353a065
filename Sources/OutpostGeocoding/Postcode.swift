/// Postcodes recognised in free text (docs/geocoding.md, "Parsing"). A postcode is held as one
/// canonical token (lower case, no space: "90210", "sw1a1aa") and compared exactly.
///
/// Recognised shapes: 4–6 digits (most of the world; "90210-1234" is "90210", ZIP+4 dropped),
/// the UK's outward and inward codes ("SW1A 1AA", "M1 1AE") and Canada's ("K1A 0B6"), each
/// as two words.
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

    /// 1AA.
    private static func isUKInward(_ word: String) -> Bool {
        let chars = Array(word)
        return chars.count == 3 && chars[0].isASCIIDigit && chars[1].isASCIILetter && chars[2].isASCIILetter
    }

    /// A1A (the first half) or 1A1 (the second).
    private static func isCanadianHalf(_ word: String, letterFirst: Bool) -> Bool {
        let chars = Array(word)
        guard chars.count == 3 else { return false }
        return chars.enumerated().allSatisfy { index, char in (index % 2 == 0) == letterFirst ? char.isASCIILetter : char.isASCIIDigit }
    }
}
