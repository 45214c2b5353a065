import Foundation

/// What a text index looks up for a query (docs/geocoding.md, "Search terms"), from canonical
/// tokens only: nothing the user typed reaches an expression except through
/// `AddressNormalizer`, which leaves `[a-z0-9]`, and every token is quoted anyway.
///
/// At most `QueryBounds.maximumTokens` tokens are taken (required first) and each is cut to
/// `AddressNormalizer.maximumTokenLength`; the parser has already read at most
/// `QueryBounds.maximumUTF8Bytes` bytes and `QueryBounds.maximumCharacters` characters.
///
/// The index's recipe: search with `fts5Expression`; when that gathers fewer entries than
/// asked for, add those of `fts5AnyExpression` and, on a table with FTS5's trigram tokenizer,
/// `fts5TrigramExpression` (PostgreSQL: `trigramText` as the bound parameter of `%` /
/// `word_similarity`); skip each pass whose expression is nil; pass at most
/// `AddressMatcher.maximumEntries` entries, best first, to `AddressMatcher` to score.
public struct SearchTerms: Hashable, Sendable {
    /// Distinctive tokens: of the street, or of the locality when there is no street, or the
    /// postcode when there is neither. A good match holds them all.
    public var required: [String]
    /// The rest: the house number, street types and directions, locality, postcode.
    public var optional: [String]
    /// Suggest's word being typed.
    public var prefix: String?

    public init(_ query: ParsedAddress) {
        let area = query.locality + [query.postcode].compactMap { $0 }
        let distinctive = (query.street.isEmpty ? area : query.street).filter { !AddressNormalizer.isGeneric($0) }
        let all = [query.houseNumber?.token].compactMap { $0 } + query.street + area
        var seen = Set<String>()
        var budget = QueryBounds.maximumTokens - (query.prefix == nil ? 0 : 1)
        func take(_ tokens: [String]) -> [String] {
            tokens.map(Self.safe).filter { token in
                guard !token.isEmpty, budget > 0, seen.insert(token).inserted else { return false }
                budget -= 1
                return true
            }
        }
        required = take(distinctive)
        optional = take(all)
        prefix = query.prefix.map(Self.safe).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every required token and the prefix, ANDed: `"hill" AND "spr"*`. When nothing is
    /// required, `fts5AnyExpression`. Nil when there is nothing to look up: SQLite rejects
    /// `MATCH ''`, so the index skips the pass instead.
    public var fts5Expression: String? {
        guard !required.isEmpty else { return fts5AnyExpression }
        let terms = required.map(Self.quoted) + [prefix.map { Self.quoted($0) + "*" }].compactMap { $0 }
        return terms.joined(separator: " AND ")
    }

    /// The loose pass's tokens ORed, the prefix as a prefix query; nil when there are none.
    /// Every token ANDed (required and optional: house number, street, locality, postcode),
    /// with the prefix; nil when that is no narrower than `fts5Expression`. The whole-query
    /// pass comes first: among a million entries the distinctive tokens alone (`oak` of
    /// "2 Oak Street, Ashford") meet thousands, and the asked address must not be cut off.
    public var fts5WholeExpression: String? {
        guard !required.isEmpty, !optional.isEmpty else { return nil }
        return ((required + optional).map(Self.quoted) + [prefix.map { Self.quoted($0) + "*" }].compactMap { $0 }).joined(separator: " AND ")
    }

    /// Once the whole-query pass found entries, the later passes add at most this many: the
    /// asked address is among those found, and the rest can only be alternatives ranked below
    /// it. Without the bound, a street name shared by thousands (`oak`) had a thousand entries
    /// read and scored after the address was found.
    public static let alternatesAfterAWholeMatch = 100

    /// How many entries the passes after the whole-query pass may bring the gathering to.
    public static func limitAfterTheWholePass(found: Int, limit: Int) -> Int {
        found == 0 ? limit : min(limit, found + alternatesAfterAWholeMatch)
    }

    /// `fts5WholeExpression` for PostgreSQL's `to_tsquery('simple', …)`.
    public var tsQueryWholeExpression: String? {
        guard !required.isEmpty, !optional.isEmpty else { return nil }
        return ((required + optional).map(Self.tsQuoted) + [prefix.map { Self.tsQuoted($0) + ":*" }].compactMap { $0 }).joined(separator: " & ")
    }

    public var fts5AnyExpression: String? {
        let terms = looseTokens.map(Self.quoted) + [prefix.map { Self.quoted($0) + "*" }].compactMap { $0 }
        return terms.isEmpty ? nil : terms.joined(separator: " OR ")
    }

    /// Each loose token's three-letter pieces ORed, for a table tokenised by FTS5's `trigram`:
    /// how a misspelt token ("stret") still meets its word ("street"). Tokens under three
    /// letters have none; nil when no token has any.
    public var fts5TrigramExpression: String? {
        var seen = Set<String>()
        let pieces = (looseTokens + [prefix].compactMap { $0 }).flatMap(Self.trigrams).filter { seen.insert($0).inserted }
        return pieces.isEmpty ? nil : pieces.map(Self.quoted).joined(separator: " OR ")
    }

    /// The tokens of the OR and trigram passes: every token but the generic ones (a street
    /// type or direction meets thousands of entries) and pure numbers (a house number or postcode
    /// alone says nothing of the street, and cannot be misspelt: numbers are never fuzzy).
    public var looseTokens: [String] {
        (required + optional).filter { token in !AddressNormalizer.isGeneric(token) && !token.allSatisfy(\.isNumber) }
    }

    /// The loose tokens and the prefix as one text, for PostgreSQL's `pg_trgm` (bound, never
    /// spliced); nil when there are none.
    public var trigramText: String? {
        let tokens = looseTokens + [prefix].compactMap { $0 }
        return tokens.isEmpty ? nil : tokens.joined(separator: " ")
    }

    /// PostgreSQL's `to_tsquery('simple', …)` form of `fts5Expression`: `'hill' & 'spr':*`.
    /// Bound as a parameter, never spliced; every token is `[a-z0-9]`, quoted anyway.
    public var tsQueryExpression: String? {
        guard !required.isEmpty else { return tsQueryAnyExpression }
        return (required.map(Self.tsQuoted) + [prefix.map { Self.tsQuoted($0) + ":*" }].compactMap { $0 }).joined(separator: " & ")
    }

    /// PostgreSQL's form of `fts5AnyExpression`: the loose tokens ORed, the prefix as `:*`.
    public var tsQueryAnyExpression: String? {
        let terms = looseTokens.map(Self.tsQuoted) + [prefix.map { Self.tsQuoted($0) + ":*" }].compactMap { $0 }
        return terms.isEmpty ? nil : terms.joined(separator: " | ")
    }

    /// A `tsquery` lexeme: in single quotes, a quote or backslash inside escaped.
    public static func tsQuoted(_ token: String) -> String {
        "'" + token.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// An FTS5 string: in double quotes, a quote inside doubled.
    public static func quoted(_ token: String) -> String {
        "\"" + token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The token's consecutive three-character pieces, in order ("hill" → "hil", "ill").
    public static func trigrams(of token: String) -> [String] {
        let characters = Array(token)
        guard characters.count >= 3 else { return [] }
        return (0...characters.count - 3).map { String(characters[$0..<$0 + 3]) }
    }

    /// A token as an expression may hold it: `[a-z0-9]` only, at most the maximum length.
    /// Canonical tokens pass unchanged; a hand-made `ParsedAddress` is held to the same rule.
    static func safe(_ token: String) -> String {
        String(token.filter { $0.isASCII && ($0.isLowercase || $0.isNumber) }.prefix(AddressNormalizer.maximumTokenLength))
    }
}
