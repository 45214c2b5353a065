import Foundation

/// Text to canonical tokens: the one vocabulary both sides of a match speak. An index entry
/// and a query pass through the same functions, so "12 Hill St" and "12 Hill Street" meet on
/// `["12", "hill", "street"]` and nothing downstream compares raw text (docs/geocoding.md,
/// "Normalisation").
///
/// Every token is made of `[a-z0-9]` only and is at most `maximumTokenLength` characters, which
/// is what makes a token safe to quote into an FTS5 expression and bounds fuzzy matching.
public enum AddressNormalizer {
    /// A longer word is cut: nothing in an address is that long, and it bounds edit distances.
    public static let maximumTokenLength = 40

    /// Lower case, diacritics stripped (é → e, ß → ss, æ → ae), apostrophes dropped (so
    /// "Mary's" = "Marys", "l'Église" = "leglise") and every other character outside `[a-z0-9]`
    /// turned into a space. Letters of other scripts become spaces too: the vocabulary is Latin.
    public static func fold(_ text: some StringProtocol) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in String(text).lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            if let spelled = foldedLetters[scalar] {
                folded.append(contentsOf: spelled.unicodeScalars)
            } else if apostrophes.contains(scalar) || isCombiningMark(scalar) {
                continue
            } else if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                folded.append(scalar)
            } else {
                folded.append(" ")
            }
        }
        return String(folded)
    }

    /// The folded words of a text, in order, without any abbreviation touched.
    public static func words(_ text: some StringProtocol) -> [String] {
        fold(text).split(separator: " ").map { String($0.prefix(maximumTokenLength)) }
    }

    /// The canonical tokens of one address component (a street, a locality, a place name):
    /// abbreviations expanded, ordinals as digits. "st" is "saint" when another word follows
    /// it and it is the component's first word ("St Marys Road", "St Albans") or follows a
    /// leading street type ("Rue St Denis"), and "street" everywhere else ("Hill St", a lone "St").
    public static func canonical(_ words: [String]) -> [String] {
        words.enumerated().map { index, word in canonicalWord(word, at: index, in: words) }
    }

    /// `canonical(words(text))`: the tokens of one component given as text.
    public static func tokens(_ text: some StringProtocol) -> [String] {
        canonical(words(text))
    }

    /// A component's display text with its abbreviations spelled out and everything else as
    /// the data wrote it, diacritics kept: "N Main St" → "North Main Street", "Rue de l'Église"
    /// unchanged. Ordinals stay as written ("First Avenue", "1st Avenue").
    public static func displayForm(_ text: some StringProtocol) -> String {
        let parts = text.split(whereSeparator: \.isWhitespace)
        let folded = parts.map { part in words(part.hasSuffix(".") ? part.dropLast() : part[...]) }
        let firstWords = folded.map { $0.first ?? "" }
        return parts.enumerated().map { index, part -> String in
            let word = folded[index]
            guard word.count == 1, abbreviations[word[0]] != nil || word[0] == "st" else { return String(part) }
            let expanded = canonicalWord(word[0], at: index, in: firstWords)
            return expanded.prefix(1).uppercased() + expanded.dropFirst()
        }.joined(separator: " ")
    }

    /// A street type, a direction or a particle ("de", "the"): a word that says little about
    /// which street is meant. Missing one costs less, and a match needs at least one token that
    /// is not generic (`AddressMatcher`).
    public static func isGeneric(_ token: String) -> Bool {
        streetTypes.contains(token) || directions.contains(token) || particles.contains(token)
    }

    /// The canonical form of `words[index]`: only "st" needs its neighbours.
    /// A word that is, or abbreviates, a street type ("road", "rd", "st").
    static func isStreetType(_ word: String) -> Bool {
        word == "st" || streetTypes.contains(expansion(of: word))
    }

    static func canonicalWord(_ word: String, at index: Int, in words: [String]) -> String {
        if word == "st" { return isSaint(at: index, in: words) ? "saint" : "street" }
        return expansion(of: word)
    }

    /// "St" names a saint before a name, where a street type cannot stand: first in the
    /// component, or right after a leading street type ("Rue St Denis", "Avenue St Charles").
    static func isSaint(at index: Int, in words: [String]) -> Bool {
        guard index + 1 < words.count else { return false }
        return index == 0 || index == 1 && streetTypes.contains(expansion(of: words[0]))
    }

    /// An abbreviation's or ordinal word's canonical form; any other word is its own.
    static func expansion(of word: String) -> String {
        abbreviations[word] ?? ordinals[word] ?? word
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2019}", "\u{2018}", "\u{02BC}", "`"]
}
